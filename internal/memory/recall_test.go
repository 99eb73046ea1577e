package memory

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/llm"
)

var day0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// pool writes a fixed set of memories, English and Chinese.
func pool(t *testing.T) *Store {
	t.Helper()
	now := day0.Add(-10 * 24 * time.Hour)
	s := &Store{Dir: t.TempDir(), Now: func() time.Time { return now }}
	add := func(typ, name, desc string, age time.Duration) {
		now = day0.Add(-age)
		if _, err := s.Add(Memory{Type: typ, Name: name, Description: desc, Body: name + ": " + desc}); err != nil {
			t.Fatal(err)
		}
	}
	add("project", "部署注意事项", "CI 部署前先跑 make check，发布走 GitHub Actions", 3*24*time.Hour)
	add("project", "CI/CD notes", "deployment runs from the release workflow after tagging", 2*time.Hour)
	add("feedback", "go vet first", "always run go vet before committing Go code", 5*24*time.Hour)
	add("user", "indentation", "the user prefers tabs for indentation in Go and Makefiles", 30*24*time.Hour)
	add("reference", "API docs", "the HTTP API reference lives in docs/api.md", time.Hour)
	add("project", "数据库迁移", "迁移脚本在 db/migrations，用 make migrate 执行", 24*time.Hour)
	return s
}

func names(list []Scored) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Memory.Name)
	}
	return out
}

func TestTokensCJKBigrams(t *testing.T) {
	got := Tokens("部署流程 and Deployment, 日本語テスト 한국어")
	for _, w := range []string{"部署", "署流", "流程", "deployment", "~deplo", "日本", "語テ", "한국", "국어"} {
		if !got[w] {
			t.Errorf("tokens lack %q: %v", w, got)
		}
	}
	if got["and"] || got["部署流程"] {
		t.Errorf("stopword or unsplit run kept: %v", got)
	}
}

// English and Chinese questions find their memories; unrelated memories
// are not recalled at all.
func TestRankFindsByWords(t *testing.T) {
	s := pool(t)
	list, _ := s.Indexed()
	for _, tc := range []struct {
		query, want string
		not         []string
	}{
		{"部署流程是怎样的？", "部署注意事项", []string{"数据库迁移", "indentation"}},
		{"how does the deploy work", "CI/CD notes", []string{"部署注意事项"}},
		{"run go vet?", "go vet first", nil},
		{"数据库怎么迁移", "数据库迁移", []string{"部署注意事项"}},
		{"which indentation should I use", "indentation", nil},
	} {
		got := names(Rank(tc.query, list, day0))
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("%q: ranked %v, want %q first", tc.query, got, tc.want)
		}
		for _, n := range tc.not {
			for _, g := range got {
				if g == n {
					t.Errorf("%q recalled unrelated %q", tc.query, n)
				}
			}
		}
	}
	if got := Rank("hello there", list, day0); len(got) != 0 {
		t.Errorf("unrelated message recalled %v", names(got))
	}
}

// Type weights and recency order memories that match equally.
func TestRankWeightsAndRecency(t *testing.T) {
	mk := func(typ string, age time.Duration) Memory {
		return Memory{Type: typ, Name: typ, Description: "release checklist", Updated: day0.Add(-age)}
	}
	got := Rank("release checklist", []Memory{mk("reference", 0), mk("project", 0), mk("feedback", 0), mk("user", 0)}, day0)
	if strings.Join(names(got), ",") != "user,feedback,project,reference" {
		t.Errorf("type order %v", names(got))
	}
	fresh, old := mk("project", 0), mk("project", 14*24*time.Hour)
	old.Name = "old"
	got = Rank("release checklist", []Memory{old, fresh}, day0)
	if got[0].Memory.Name != "project" || got[0].Score-got[1].Score < 0.7 {
		t.Errorf("recency: %+v", got)
	}
	if r := recency(day0.Add(-HalfLife), day0); r < 0.499 || r > 0.501 {
		t.Errorf("half-life: %v", r)
	}
}

// The same query and pool give the same bytes, run after run.
func TestRecallDeterministicBytes(t *testing.T) {
	s := pool(t)
	var first string
	for i := 0; i < 20; i++ {
		r := &Recall{Store: s, Now: func() time.Time { return day0 }}
		got := r.Submit(context.Background(), "部署流程和 deployment 怎么做")
		if i == 0 {
			first = got
			if !strings.Contains(got, "部署注意事项") || !strings.Contains(got, "CI/CD notes") {
				t.Fatalf("recall:\n%s", got)
			}
		} else if got != first {
			t.Fatalf("run %d differs:\n%s\n---\n%s", i, got, first)
		}
	}
}

// Memories older than a day carry the freshness warning; newer ones not.
func TestFreshnessWarning(t *testing.T) {
	s := pool(t)
	r := &Recall{Store: s, Now: func() time.Time { return day0 }}
	got := r.Submit(context.Background(), "deployment and 部署")
	lines := strings.Split(got, "\n")
	for i, l := range lines {
		switch {
		case strings.Contains(l, "部署注意事项"):
			if i+1 >= len(lines) || !strings.Contains(lines[i+1], "over a day ago: a snapshot") || !strings.Contains(lines[i+1], "verify it against the current code") {
				t.Errorf("3-day-old memory without warning:\n%s", got)
			}
		case strings.Contains(l, "CI/CD notes"):
			if i+1 < len(lines) && strings.Contains(lines[i+1], "snapshot") {
				t.Errorf("2-hour-old memory warned:\n%s", got)
			}
		}
	}
	if !strings.Contains(got, s.Dir) {
		t.Errorf("recall does not give the file path for read_file:\n%s", got)
	}
}

// Already shown memories are not repeated, and the budget stops recall.
func TestRecallSurfacedAndBudget(t *testing.T) {
	s := pool(t)
	r := &Recall{Store: s, Now: func() time.Time { return day0 }}
	if got := r.Submit(context.Background(), "部署"); !strings.Contains(got, "部署注意事项") {
		t.Fatalf("first: %s", got)
	}
	if got := r.Submit(context.Background(), "部署"); got != "" {
		t.Fatalf("repeated:\n%s", got)
	}
	r2 := &Recall{Store: s, Now: func() time.Time { return day0 }}
	r2.spent = Budget
	if got := r2.Submit(context.Background(), "部署"); got != "" {
		t.Fatalf("past the budget:\n%s", got)
	}
	if r.Spent() == 0 || r.Spent() > Budget {
		t.Fatalf("spent %d", r.Spent())
	}
	spent := r.Spent()
	r.Unsee() // a summary dropped the messages that carried it
	if got := r.Submit(context.Background(), "部署"); !strings.Contains(got, "部署注意事项") || r.Spent() <= spent {
		t.Fatalf("after unsee: %s (spent %d, was %d)", got, r.Spent(), spent)
	}
	r.Reset() // a new conversation (/clear) has seen nothing yet
	if got := r.Submit(context.Background(), "部署"); !strings.Contains(got, "部署注意事项") {
		t.Fatalf("after reset: %s", got)
	}
}

// fakeSide answers side requests like a model would, counting them.
type fakeSide struct {
	calls  atomic.Int32
	answer func(req *llm.Request) string
	block  chan struct{}
}

func (f *fakeSide) run(ctx context.Context, req *llm.Request) (string, error) {
	f.calls.Add(1)
	if llm.DetectPurpose(req) != llm.PurposeMemoryRecall {
		return "", errors.New("wrong purpose")
	}
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return f.answer(req), nil
}

// The semantic side query finds by meaning what words miss, is injected
// once, only after the first request of the turn, and never repeats.
func TestSideQueryByMeaning(t *testing.T) {
	s := pool(t)
	f := &fakeSide{answer: func(req *llm.Request) string {
		body := req.Messages[0].Text()
		if !strings.Contains(body, "project/ci-cd-notes.md") {
			return "none"
		}
		return "project/ci-cd-notes.md\n"
	}, block: make(chan struct{})}
	r := &Recall{Store: s, Side: f.run, Now: func() time.Time { return day0 }}
	if got := r.Submit(context.Background(), "what are the steps to ship it to production"); strings.Contains(got, "CI/CD notes") {
		t.Fatalf("words alone should not find it: %s", got)
	}
	if got := r.Take(); got != "" {
		t.Fatalf("injected into the request it runs alongside: %s", got)
	}
	if got := r.Take(); got != "" {
		t.Fatalf("injected before it settled: %s", got)
	}
	close(f.block)
	r.Wait()
	got := r.Take()
	if !strings.Contains(got, "CI/CD notes") || !strings.Contains(got, "picked by meaning") {
		t.Fatalf("side answer not injected: %q", got)
	}
	if again := r.Take(); again != "" {
		t.Fatalf("injected twice: %s", again)
	}
	f.block = nil
	r.Submit(context.Background(), "what are the steps to ship it to production again")
	r.Wait()
	r.Take()
	if got := r.Take(); strings.Contains(got, "CI/CD notes") {
		t.Fatalf("already surfaced memory repeated: %s", got)
	}
}

// The side query is skipped for a short message, a spent budget or no
// memories.
func TestSideQueryGates(t *testing.T) {
	f := &fakeSide{answer: func(*llm.Request) string { return "none" }}
	r := &Recall{Store: pool(t), Side: f.run, Now: func() time.Time { return day0 }}
	r.Submit(context.Background(), "ok go")
	r.Wait()
	if f.calls.Load() != 0 {
		t.Error("short message started a side query")
	}
	r.spent = Budget
	r.Submit(context.Background(), "a long enough question about releases")
	r.Wait()
	if f.calls.Load() != 0 {
		t.Error("spent budget started a side query")
	}
	empty := &Recall{Store: &Store{Dir: t.TempDir()}, Side: f.run}
	empty.Submit(context.Background(), "a long enough question about releases")
	empty.Wait()
	if f.calls.Load() != 0 {
		t.Error("no memories but a side query")
	}
	r3 := &Recall{Store: pool(t), Side: f.run, Now: func() time.Time { return day0 }}
	r3.Submit(context.Background(), "a long enough question about releases")
	r3.Wait()
	if f.calls.Load() != 1 {
		t.Errorf("side queries %d, want 1", f.calls.Load())
	}
}

// An answer that settles after a one-request turn goes with the next
// message instead of being lost.
func TestSideAnswerCarriedToNextMessage(t *testing.T) {
	f := &fakeSide{answer: func(*llm.Request) string { return "reference/api-docs.md" }}
	r := &Recall{Store: pool(t), Side: f.run, Now: func() time.Time { return day0 }}
	r.Submit(context.Background(), "where do I find the endpoints")
	r.Take() // the turn's only request
	r.Wait()
	got := r.Submit(context.Background(), "thanks, and something else")
	if !strings.Contains(got, "API docs") {
		t.Fatalf("carried answer lost: %q", got)
	}
}
