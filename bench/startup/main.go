// Command startup prints hew's start-up figures: the median wall time and
// peak RSS of `hew --version` and `hew -p --mock "hi"`, and a two-step task
// against `hew mock-server` (wall time, peak RSS, time to the first model
// request). bench/run.sh builds hew and runs it.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("hew", "./hew", "path to the hew binary")
	runs := flag.Int("runs", 11, "runs per figure (the median is printed)")
	flag.Parse()
	abs, err := filepath.Abs(*bin)
	if err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp("", "hew-bench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	home := filepath.Join(work, "home")
	proj := filepath.Join(work, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "greeting.txt"), []byte("hello\n"), 0o644); err != nil {
		fail(err)
	}
	env := cleanEnv(home)

	fmt.Printf("hew start-up figures (%d runs each, median; peak RSS is the median of the runs' maxima)\n", *runs)
	report("hew --version", measure(*runs, func() sample { return run(abs, proj, env, nil, "--version") }))
	report(`hew -p --mock "hi"`, measure(*runs, func() sample { return run(abs, proj, env, nil, "-p", "--mock", "hi") }))
	twoStep(abs, work, proj, env, *runs)
}

// sample is one measured run.
type sample struct {
	wall time.Duration
	rss  int64 // KiB, -1 when unknown
	ttfr time.Duration
}

func measure(n int, f func() sample) []sample {
	out := make([]sample, n)
	for i := range out {
		out[i] = f()
	}
	return out
}

func run(bin, dir string, env []string, extraEnv []string, args ...string) sample {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, env...), extraEnv...)
	var stderr strings.Builder
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("hew %s: %v\n%s", strings.Join(args, " "), err, stderr.String()))
	}
	return sample{wall: time.Since(start), rss: maxRSS(cmd.ProcessState)}
}

func report(name string, s []sample) {
	walls := make([]time.Duration, len(s))
	rss := make([]int64, len(s))
	var ttfr []time.Duration
	for i, x := range s {
		walls[i], rss[i] = x.wall, x.rss
		if x.ttfr > 0 {
			ttfr = append(ttfr, x.ttfr)
		}
	}
	line := fmt.Sprintf("  %-34s wall %8s (min %s, max %s)", name, median(walls), minD(walls), maxD(walls))
	if r := medianI(rss); r >= 0 {
		line += fmt.Sprintf("  peak RSS %5.1f MiB", float64(r)/1024)
	} else {
		line += "  peak RSS n/a"
	}
	if len(ttfr) > 0 {
		line += fmt.Sprintf("  first request after %s", median(ttfr))
	}
	fmt.Println(line)
}

// twoStep runs a read-then-answer task against `hew mock-server`, through
// a small proxy that notes when the first model request arrives.
func twoStep(bin, work, proj string, env []string, runs int) {
	scen := filepath.Join(work, "two-step.json")
	if err := os.WriteFile(scen, []byte(`{"turns": [
 {"text": "I'll read it.", "tool_calls": [{"name": "read_file", "input": {"file_path": "greeting.txt"}}]},
 {"text": "It says hello."}]}`), 0o644); err != nil {
		fail(err)
	}
	var samples []sample
	for i := 0; i < runs; i++ {
		samples = append(samples, oneTwoStep(bin, proj, scen, env))
	}
	report("two-step task via mock-server", samples)
}

func oneTwoStep(bin, proj, scen string, env []string) sample {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "mock-server", "--scenario", scen, "--addr", "127.0.0.1:0")
	srv.Env = env
	out, err := srv.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := srv.Start(); err != nil {
		fail(err)
	}
	defer func() { cancel(); _ = srv.Wait() }()
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		fail(fmt.Errorf("mock-server printed no address: %v", err))
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	addr := strings.Fields(strings.TrimSpace(first))
	target, err := url.Parse(normalizeAddr(addr[len(addr)-1]))
	if err != nil {
		fail(err)
	}

	// A plain TCP relay in front of the server notes when hew's first
	// request arrives, without touching the HTTP stream.
	var mu sync.Mutex
	var firstReq time.Time
	ln, err := listen()
	if err != nil {
		fail(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if firstReq.IsZero() {
				firstReq = time.Now()
			}
			mu.Unlock()
			go relay(c, target.Host)
		}
	}()

	s := run(bin, proj, env, []string{"ANTHROPIC_API_KEY=bench", "ANTHROPIC_BASE_URL=http://" + ln.Addr().String()},
		"-p", "--provider", "anthropic", "--model", "mock", "read greeting.txt")
	mu.Lock()
	defer mu.Unlock()
	if !firstReq.IsZero() {
		s.ttfr = firstReq.Sub(time.Now().Add(-s.wall))
	}
	return s
}

// relay copies bytes both ways between c and the server at addr.
func relay(c net.Conn, addr string) {
	defer c.Close()
	up, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

func normalizeAddr(a string) string {
	if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
		return a
	}
	return "http://" + a
}

func cleanEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "HEW_"), strings.HasPrefix(k, "ANTHROPIC_"), strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "AGENT_"):
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HEW_HOME="+home, "NO_COLOR=1")
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(10 * time.Microsecond)
}

func minD(d []time.Duration) time.Duration {
	m := d[0]
	for _, x := range d {
		m = min(m, x)
	}
	return m.Round(10 * time.Microsecond)
}

func maxD(d []time.Duration) time.Duration {
	m := d[0]
	for _, x := range d {
		m = max(m, x)
	}
	return m.Round(10 * time.Microsecond)
}

func medianI(v []int64) int64 {
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
