package mockserver

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, data
}

func TestMainFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"turns":[{"txet":"typo"}]}`), 0o644)
	tests := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"--help"}, 0, "usage: hew mock-server", ""},
		{[]string{"--scenario", bad}, 2, "", `bad.json: turn 1: unknown field "txet"`},
		{[]string{"--scenario", filepath.Join(dir, "missing.json")}, 2, "", "missing.json"},
		{[]string{"--bogus"}, 2, "", "flag provided but not defined"},
		{[]string{"--addr", "256.0.0.1:1"}, 1, "", "listen"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := Run(Options{Stdout: &out, Stderr: &errb, Context: context.Background()}, tc.args)
		if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("Run(%v) = %d\nstdout %q\nstderr %q", tc.args, code, out.String(), errb.String())
		}
	}
}

// The address comes first, while the server runs; the context ends it.
func TestMainPrintsAddressFirst(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	_ = os.WriteFile(path, []byte(`{"turns":[{"text":"served"}]}`), 0o644)
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- Run(Options{Stdout: pw, Stderr: io.Discard, Context: ctx}, []string{"--scenario", path, "--quiet"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Fatalf("first line %q, %v", line, err)
	}
	res, data := post(t, strings.TrimSpace(line)+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
	if res.StatusCode != 200 || !strings.Contains(string(data), "served") {
		t.Fatalf("%d %s", res.StatusCode, data)
	}
	cancel() // what an interrupt does through the caller's context
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}
