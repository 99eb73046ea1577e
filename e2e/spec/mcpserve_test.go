package spec

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// SPEC section 1: `hew mcp serve` exposes hew's own tools over stdio (MCP
// JSON-RPC, one message a line) with hew's permission rules applied: what
// would ask is denied, since no one can be asked.
func TestMCPServe(t *testing.T) {
	w := newWorld(t)
	w.write("f.txt", "served-content\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, hewBin, "mcp", "serve")
	cmd.Dir, cmd.Env = w.proj, w.env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	br := bufio.NewReader(stdout)
	send := func(m string) {
		if _, err := stdin.Write([]byte(m + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	recv := func(id int) map[string]any {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("mcp serve closed: %v", err)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("mcp serve wrote a non-JSON line: %q", line)
			}
			if n, ok := m["id"].(float64); ok && int(n) == id {
				return m
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"spec","version":"1"}}}`)
	if res, _ := recv(1)["result"].(map[string]any); res == nil || res["serverInfo"] == nil {
		t.Fatal("initialize: no serverInfo")
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var names []string
	tools, _ := recv(2)["result"].(map[string]any)["tools"].([]any)
	for _, x := range tools {
		names = append(names, x.(map[string]any)["name"].(string))
	}
	for _, want := range []string{"read_file", "write_file", "edit_file", "list_files", "grep_search", "run_shell"} {
		if !contains(names, want) {
			t.Errorf("mcp serve lacks %s (has %v)", want, names)
		}
	}
	call := func(id int, tool, args string) (string, bool) {
		send(`{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
		res, _ := recv(id)["result"].(map[string]any)
		b, _ := json.Marshal(res["content"])
		isErr, _ := res["isError"].(bool)
		return string(b), isErr
	}
	if text, isErr := call(3, "read_file", `{"file_path":"f.txt"}`); isErr || !strings.Contains(text, "served-content") {
		t.Errorf("read_file over MCP: %s (isError %v)", text, isErr)
	}
	if text, isErr := call(4, "write_file", `{"file_path":"new.txt","content":"x"}`); !isErr || !strings.Contains(text, "Action denied") {
		t.Errorf("write_file over MCP in default mode must be denied: %s", text)
	}
	if _, err := readFileErr(w, "new.txt"); err == nil {
		t.Error("a denied MCP write created the file")
	}
}
