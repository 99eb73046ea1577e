package repl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/testenv"
)

// /memory open hands the terminal to $EDITOR (the editor sees a terminal on
// stdin, and what it writes is saved) and takes it back: the prompt edits
// and submits as before.
func TestMemoryOpenRunsTheEditorUnderTmux(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no tmux on windows")
	}
	for _, tool := range []string{"tmux", "go"} {
		testenv.Tool(t, tool)
	}
	bin := buildHew(t)
	tmp := t.TempDir()
	proj, home := filepath.Join(tmp, "proj"), filepath.Join(tmp, "home")
	for _, d := range []string{proj, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mark := filepath.Join(tmp, "editor-ran")
	editor := filepath.Join(tmp, "editor.sh")
	mustWrite(t, editor, "#!/bin/sh\nif [ -t 0 ]; then echo tty > \""+mark+"\"; else echo notty > \""+mark+"\"; fi\nprintf 'Edited in the editor.\\n' >> \"$1\"\n")
	os.Chmod(editor, 0o755)

	ts := &tmuxSession{t: t, socket: fmt.Sprintf("hew-editor-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", ts.socket, "kill-server").Run() })
	ts.run("-f", "/dev/null", "new-session", "-d", "-s", "hew", "-x", "100", "-y", "30", "-c", proj,
		"env", "-i", "PATH="+os.Getenv("PATH"), "HOME="+tmp, "TERM=screen", "HEW_HOME="+home, "EDITOR="+editor,
		"sh", "-c", `"$0" --mock 2>"$1"; echo $? > "$2"`, bin, filepath.Join(tmp, "stderr"), ts.exitFile(tmp))
	ts.run("set-option", "-t", "hew", "remain-on-exit", "on")
	ts.waitPrompts(1)
	ts.keys("/remember the deploy command is make ship", "Enter")
	ts.waitText("Remembered (")
	ts.waitPrompts(2)
	files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "memory", "*", "*.md"))
	if len(files) != 1 {
		t.Fatalf("memory files: %v", files)
	}
	name := strings.TrimSuffix(filepath.Base(files[0]), ".md")
	ts.keys("/memory open "+name, "Enter")
	ts.waitText("Saved; the index is up to date")
	ts.waitPrompts(3)
	if got, _ := os.ReadFile(mark); strings.TrimSpace(string(got)) != "tty" {
		t.Fatalf("the editor ran with stdin %q, want a terminal", got)
	}
	if data, _ := os.ReadFile(files[0]); !strings.Contains(string(data), "Edited in the editor.") {
		t.Fatalf("the editor's change is not in %s:\n%s", files[0], data)
	}
	// The prompt is ours again: keys edit the line and Enter submits it.
	ts.keys("/memory shoX", "BSpace", "w "+name, "Enter")
	ts.waitText("Edited in the editor.")
	ts.keys("/exit", "Enter")
	if st := ts.waitExit(); st != "0" {
		t.Errorf("exit status = %s, want 0\n%s", st, ts.screen())
	}
}
