package spec

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveClient connects the official MCP SDK's client to `hew mcp serve ARGS`.
func serveClient(t *testing.T, w *world, args ...string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cmd := exec.Command(hewBin, append([]string{"mcp", "serve"}, args...)...)
	cmd.Dir, cmd.Env = w.proj, w.env
	client := sdk.NewClient(&sdk.Implementation{Name: "spec-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callText(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	b, _ := json.Marshal(res.Content)
	return string(b), res.IsError
}

// Issue 15 item 5: `hew mcp serve` takes the permission flags of a session;
// with --accept-edits an edit through a real MCP client lands on disk, and
// without it the denial says what would allow it. Unknown flags are refused.
func TestMCPServePermissionFlags(t *testing.T) {
	w := newWorld(t)
	w.write("a.txt", "old line\n")
	cs := serveClient(t, w, "--accept-edits")
	if _, isErr := callText(t, cs, "read_file", map[string]any{"file_path": "a.txt"}); isErr {
		t.Fatal("read_file failed")
	}
	if text, isErr := callText(t, cs, "edit_file", map[string]any{"file_path": "a.txt", "old_string": "old line", "new_string": "new line"}); isErr {
		t.Fatalf("edit_file under --accept-edits: %s", text)
	}
	if got := w.read("a.txt"); got != "new line\n" {
		t.Fatalf("a.txt = %q after the edit", got)
	}

	plain := serveClient(t, w)
	text, isErr := callText(t, plain, "write_file", map[string]any{"file_path": "b.txt", "content": "x"})
	if !isErr || !strings.Contains(text, "Action denied") || !strings.Contains(text, "--allowed-tools") || !strings.Contains(text, "--accept-edits") || strings.Contains(text, "user declined") || !strings.Contains(text, "nobody") {
		t.Errorf("denial does not say what would allow the call: %s", text)
	}
	ruled := serveClient(t, w, "--allowed-tools", "Write(b.txt)")
	if text, isErr := callText(t, ruled, "write_file", map[string]any{"file_path": "b.txt", "content": "x"}); isErr {
		t.Errorf("--allowed-tools Write(b.txt): %s", text)
	}
}

func TestMCPServeRejectsUnknownFlags(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{{"--bogus"}, {"stray"}, {"--permission-mode", "nope"}, {"--plan", "--accept-edits"}} {
		r := w.hew(append([]string{"mcp", "serve"}, args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "mcp serve") {
			t.Errorf("mcp serve %v: exit %d, stderr %q; want 2", args, r.code, r.stderr)
		}
	}
}

// Issue 12.11: `hew mcp serve` makes no model request on a served call's
// behalf (it has no model: in auto mode a call that needs the classifier
// is refused, saying so), so there is no side-request usage to count. A
// model endpoint in the environment receives nothing.
func TestMCPServeSendsNoSideRequests(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock(`{"turns":[{"text":"unused"}]}`)
	w.env = append(w.env, ms.anthropicEnv()...)
	cs := serveClient(t, w, "--permission-mode", "auto")
	text, isErr := callText(t, cs, "write_file", map[string]any{"file_path": "b.txt", "content": "x"})
	if !isErr || !strings.Contains(text, "no model is available to classify") {
		t.Errorf("auto-mode write through hew mcp serve: %s", text)
	}
	if _, isErr := callText(t, cs, "read_file", map[string]any{"file_path": "b.txt"}); !isErr {
		t.Errorf("b.txt was written")
	}
	if n := len(ms.requests()); n != 0 {
		t.Errorf("hew mcp serve sent %d model request(s)", n)
	}
}
