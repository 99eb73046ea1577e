package spec

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Issue 15 item 6: a program holds a conversation with one headless hew:
// each stdin line is a user message and one turn, answered by its events
// and a result line; EOF ends the session cleanly.
func TestStreamJSONInputConversation(t *testing.T) {
	w := newWorld(t)
	w.write("greeting.txt", "hello from the file\n")
	sc := `{"turns":[{"text":"reading","tool_calls":[{"name":"read_file","input":{"file_path":"greeting.txt"}}]},{"text":"it says hello"},{"text":"second answer"}]}`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, hewBin, "-p", "--mock", "--input-format", "stream-json", "--output-format", "stream-json")
	cmd.Dir, cmd.Env = w.proj, append(w.env, w.mockEnv(sc)...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	// untilResult reads events up to and including the next result line.
	untilResult := func() (evs []map[string]any) {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("stdout ended before a result line: %v (stderr %s)", err, stderr.String())
			}
			var e map[string]any
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("not JSON: %q", line)
			}
			evs = append(evs, e)
			if e["type"] == "result" {
				return evs
			}
		}
	}
	send := func(s string) {
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"type":"user","message":{"role":"user","content":"read greeting.txt"}}`)
	first := untilResult()
	if first[0]["type"] != "init" {
		t.Errorf("first event %v, want init", first[0]["type"])
	}
	res1 := first[len(first)-1]
	if res1["result"] != "it says hello" || res1["stop_reason"] != "completed" {
		t.Fatalf("first turn result %v", res1)
	}
	send(`{"type":"user","message":{"content":[{"type":"text","text":"and then?"}]}}`)
	second := untilResult()
	res2 := second[len(second)-1]
	if res2["result"] != "second answer" || res2["session_id"] != res1["session_id"] {
		t.Fatalf("second turn result %v (first session %v)", res2, res1["session_id"])
	}
	for _, e := range second {
		if e["type"] == "init" {
			t.Error("init repeated in the second turn")
		}
	}
	send(`{"type":"assistant","message":{"content":"x"}}`)
	bad := untilResult()
	if r := bad[len(bad)-1]; r["stop_reason"] != "error" || !strings.Contains(mustJSON(r), "only") {
		t.Errorf("a bad line: %v", r)
	}
	stdin.Close()
	if rest, _ := io.ReadAll(br); strings.TrimSpace(string(rest)) != "" {
		t.Errorf("output after EOF: %q", rest)
	}
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Errorf("exit %d (%v), want 2 after a bad last line; stderr %s", code, err, stderr.String())
	}
}

// EOF after good turns ends with exit 0; no input at all too.
func TestStreamJSONInputEOF(t *testing.T) {
	w := newWorld(t)
	r := w.exec(call{args: []string{"-p", "--mock", "--input-format", "stream-json", "--output-format", "stream-json"},
		stdin: `{"type":"user","message":{"content":"hi"}}` + "\n"})
	if r.code != 0 || strings.Count(r.stdout, `"type":"result"`) != 1 || strings.Count(r.stdout, `"type":"init"`) != 1 {
		t.Fatalf("one message then EOF\n%s", r)
	}
	r = w.exec(call{args: []string{"-p", "--mock", "--input-format", "stream-json", "--output-format", "stream-json"}, stdin: ""})
	if r.code != 0 || strings.Contains(r.stdout, `"type":"result"`) {
		t.Fatalf("no input\n%s", r)
	}
}
