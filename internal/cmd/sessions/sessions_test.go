package sessions

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/session"
)

func text(s string) llm.Block { return llm.Block{Type: llm.BlockText, Text: s} }

func call(id string) llm.Block {
	return llm.Block{Type: llm.BlockToolUse, ID: id, Name: "read_file", Input: json.RawMessage(`{"file_path":"a"}`)}
}

func TestListShowRemove(t *testing.T) {
	home, root := t.TempDir(), "/work/proj"
	w, _ := session.Create(session.Dir(home, root), session.Meta{Cwd: root})
	w.Message(llm.UserText("hello there"))
	w.Message(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{text("hi"), call("c1")}})
	w.Close()
	var out, errb bytes.Buffer
	if code := Run(Options{Stdout: &out, Stderr: &errb, HewHome: home, Root: root}, []string{"list"}); code != 0 || !strings.Contains(out.String(), w.ID()) || !strings.Contains(out.String(), "hello there") {
		t.Fatalf("list: %d %q %q", code, out.String(), errb.String())
	}
	out.Reset()
	if code := Run(Options{Stdout: &out, Stderr: &errb, HewHome: home, Root: root}, []string{"show", w.ID()}); code != 0 || !strings.Contains(out.String(), "interrupted") || !strings.Contains(out.String(), "→ read_file") {
		t.Fatalf("show: %d %q", code, out.String())
	}
	out.Reset()
	if code := Run(Options{Stdout: &out, Stderr: &errb, HewHome: home, Root: "/other"}, []string{"list"}); code != 0 || !strings.Contains(out.String(), "no sessions") {
		t.Fatalf("other dir list: %q", out.String())
	}
	if code := Run(Options{Stdout: &out, Stderr: &errb, HewHome: home, Root: root}, []string{"rm", "../x"}); code != 1 {
		t.Fatalf("rm ../x: %d", code)
	}
	if code := Run(Options{Stdout: &out, Stderr: &errb, HewHome: home, Root: root}, []string{"rm", w.ID()}); code != 0 {
		t.Fatalf("rm: %d %s", code, errb.String())
	}
	if _, err := os.Stat(w.Path()); !os.IsNotExist(err) {
		t.Fatal("session file still there")
	}
	if code := Run(Options{Stdout: &out, Stderr: &errb, HewHome: home, Root: root}, []string{"bogus"}); code != 2 {
		t.Fatalf("bogus: %d", code)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"list", "--help"}, {"show", "-h"}, {"rm", "--help"}, {"help"}} {
		var out, errb bytes.Buffer
		if code := Run(Options{Stdout: &out, Stderr: &errb, HewHome: t.TempDir(), Root: "/p"}, args); code != 0 || !strings.Contains(out.String(), "usage: hew sessions") {
			t.Errorf("%v: %d %q %q", args, code, out.String(), errb.String())
		}
	}
}
