package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// bulkImport fills a new index with the whole work tree through one `git
// fast-import` stream: the objects land in a single pack instead of one
// loose file per project file, which is what makes the first snapshot of a
// large tree slow. The index then gets its stat data from `update-index
// --refresh` (which only reads), so the `git add -A` that follows hashes
// nothing but what changed since.
func (g *gitBackend) bulkImport(idx string) error {
	out, err := g.run(idx, nil, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return err
	}
	var paths []string
	for _, p := range bytes.Split(out, []byte{0}) {
		s := string(p)
		// Embedded repositories show as "dir/"; odd names are left to add.
		if s == "" || strings.HasSuffix(s, "/") || strings.ContainsAny(s, "\n\"") {
			continue
		}
		paths = append(paths, s)
	}
	if len(paths) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.s.opts.Git, "-c", "core.autocrlf=false", "fast-import", "--quiet", "--done")
	cmd.Dir = g.s.opts.Root
	cmd.Env = g.env(idx)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("checkpoint: git fast-import: %w", err)
	}
	// One ref per index, so two sessions importing at once never meet.
	ref := "refs/hew/import-" + safeName(filepath.Base(idx))
	werr := g.writeImport(stdin, ref, paths)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("checkpoint: git fast-import: %s", firstLine(stderr.String()+" "+err.Error()))
	}
	if werr != nil {
		return werr
	}
	defer g.run("", nil, "update-ref", "-d", ref)
	if _, err := g.run(idx, nil, "read-tree", ref); err != nil {
		return err
	}
	// Exit 1 only means some entries need updating; add -A sees to them.
	g.run(idx, nil, "update-index", "-q", "--refresh")
	return nil
}

// writeImport streams each file as a blob, then one commit naming them all.
func (g *gitBackend) writeImport(w io.Writer, ref string, paths []string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	type entry struct {
		mode string
		mark int
		path string
	}
	var entries []entry
	for _, rel := range paths {
		p := filepath.Join(g.s.opts.Root, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if err != nil {
			continue // gone meanwhile; add -A decides
		}
		var data []byte
		mode := "100644"
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				continue
			}
			data, mode = []byte(filepath.ToSlash(target)), "120000"
		case fi.Mode().IsRegular():
			if data, err = os.ReadFile(p); err != nil {
				continue // unreadable: add -A --ignore-errors reports it
			}
			if fi.Mode()&0o111 != 0 {
				mode = "100755"
			}
		default:
			continue
		}
		mark := len(entries) + 1
		fmt.Fprintf(bw, "blob\nmark :%d\ndata %d\n", mark, len(data))
		bw.Write(data)
		bw.WriteString("\n")
		entries = append(entries, entry{mode, mark, rel})
	}
	fmt.Fprintf(bw, "commit %s\ncommitter hew <hew@localhost> %d +0000\ndata 0\n", ref, g.s.opts.Now().Unix())
	for _, e := range entries {
		fmt.Fprintf(bw, "M %s :%d %s\n", e.mode, e.mark, e.path)
	}
	bw.WriteString("\ndone\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("checkpoint: git fast-import: %w", err)
	}
	return nil
}
