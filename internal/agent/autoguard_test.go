package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/permission"
)

// writes is a scenario of n answers each writing one file, then "Done.",
// with a classifier that blocks everything.
func writes(n int) string {
	var turns []string
	for i := 0; i < n; i++ {
		turns = append(turns, fmt.Sprintf(`{"tool_calls": [{"id": "w%d", "name": "write_file", "input": {"file_path": "f%d.txt", "content": "x\n"}}]}`, i, i))
	}
	turns = append(turns, `{"text": "Done."}`)
	return `{"turns": [` + strings.Join(turns, ",") + `], "side": {"classifier": "{\"decision\": \"block\", \"reason\": \"not requested\"}"}}`
}

// After 3 blocks in a row, auto mode asks the user instead of the
// classifier; each decision leaves a receipt with its reason.
func TestAutoModeFallsBackToAsking(t *testing.T) {
	x := newE2E(t, nil, writes(5), permission.ModeAuto, nil)
	x.ap.fn = func(ApprovalRequest) (Approval, string) { return ApproveOnce, "" }
	res := x.run("write some files")
	if res.StopReason != StopCompleted {
		t.Fatalf("%+v", res)
	}
	for i := 0; i < 5; i++ {
		_, err := os.Stat(filepath.Join(x.root, fmt.Sprintf("f%d.txt", i)))
		if (err == nil) != (i >= 3) {
			t.Errorf("f%d.txt written=%v", i, err == nil)
		}
	}
	if len(x.ap.asked) != 2 || !strings.Contains(x.ap.asked[0].Reason, "auto mode asks now (the classifier blocked 3 calls in a row)") {
		t.Fatalf("asked %+v", x.ap.asked)
	}
	st := x.a.AutoStats()
	if st.Blocked != 3 || st.Allowed != 0 || !st.FellBack {
		t.Errorf("stats %+v", st)
	}
	var byClassifier, byUser int
	for _, r := range x.rec.receipts() {
		switch r.DecidedBy {
		case "classifier":
			byClassifier++
			if r.Decision != "deny" || !strings.Contains(r.Reason, "not requested") {
				t.Errorf("classifier receipt %+v", r)
			}
		case "user":
			byUser++
		}
	}
	if byClassifier != 3 || byUser != 2 {
		t.Errorf("receipts: %d by the classifier, %d by the user", byClassifier, byUser)
	}
}

// Headless: the third block in a row ends the run instead of asking.
func TestAutoModeHeadlessStops(t *testing.T) {
	x := newE2E(t, nil, writes(5), permission.ModeAuto, nil)
	x.a.cfg.Approver = Headless{}
	res := x.run("write some files")
	if res.StopReason != StopError || !strings.Contains(res.Err, "auto mode stopped: the classifier blocked 3 calls in a row") {
		t.Fatalf("%+v", res)
	}
	if res.RoundTrips != 3 {
		t.Errorf("round trips %d", res.RoundTrips)
	}
}

func TestAutoGuardTotalLimit(t *testing.T) {
	var g autoGuard
	for i := 0; i < AutoMaxTotalBlocks-1; i++ {
		if tripped, _ := g.record(false); tripped {
			t.Fatalf("tripped at block %d", i+1)
		}
		if i%2 == 1 {
			g.record(true) // an allow breaks the run of blocks, not the total
		}
	}
	tripped, why := g.record(false)
	if !tripped || !strings.Contains(why, "20 calls in this session") {
		t.Fatalf("%v %q", tripped, why)
	}
}
