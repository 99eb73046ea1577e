package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestApplyEdit(t *testing.T) {
	cases := []struct {
		name        string
		content     string
		old, new    string
		all         bool
		want        string
		stage       string
		errKind     EditErrorKind
		errContains []string
	}{
		{name: "exact unique", content: "a\nfoo()\nb\n", old: "foo()", new: "bar()", want: "a\nbar()\nb\n", stage: "exact"},
		{name: "ambiguous lists lines", content: "x=1\ny\nx=1\nz\nx=1\n", old: "x=1", new: "x=2", errKind: EditAmbiguous, errContains: []string{"3 times", "lines 1, 3, 5", "replace_all"}},
		{name: "replace all", content: "x=1\ny\nx=1\n", old: "x=1", new: "x=2", all: true, want: "x=2\ny\nx=2\n", stage: "exact"},
		{name: "not found", content: "hello\n", old: "goodbye", new: "x", errKind: EditNotFound, errContains: []string{"not found", "re-read the file"}},
		{name: "not found hints first line", content: "func f() {\n\treturn 1\n}\n", old: "func f() {\n\treturn 2\n}", new: "x", errKind: EditNotFound, errContains: []string{"line 1"}},
		{name: "crlf file stays crlf", content: "one\r\ntwo\r\nthree\r\n", old: "one\ntwo\n", new: "one\nTWO\nextra\n", want: "one\r\nTWO\r\nextra\r\nthree\r\n", stage: "line endings"},
		{name: "crlf file, exact old, new lines get crlf", content: "a\r\nb\r\n", old: "a", new: "a\nx", want: "a\r\nx\r\nb\r\n", stage: "exact"},
		{name: "lf file with crlf old", content: "one\ntwo\n", old: "one\r\ntwo", new: "one\r\n2", want: "one\n2\n", stage: "line endings"},
		{name: "curly quotes in file", content: "say “hello” and it’s fine\n", old: `say "hello" and it's fine`, new: `say "bye" and it's fine`, want: "say “bye” and it’s fine\n", stage: "curly quotes"},
		{name: "curly quotes typed by model", content: `msg := "it's"` + "\n", old: `msg := “it’s”`, new: `msg := “it is”`, want: `msg := "it is"` + "\n", stage: "curly quotes"},
		{name: "nbsp in file", content: "price:\u00a010\u00a0€\nnext\n", old: "price: 10 €\nnext", new: "price: 10 €\nlast", want: "price:\u00a010\u00a0€\nlast\n", stage: "non-breaking spaces"},
		{name: "trailing whitespace in file", content: "a := 1   \nb := 2\t\nc := 3\n", old: "a := 1\nb := 2\n", new: "a := 1\nb := 20\n", want: "a := 1   \nb := 20\nc := 3\n", stage: "trailing whitespace"},
		{name: "tabs in file, spaces from model", content: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", old: "    if x {\n        return 1\n    }", new: "    if x {\n        log(x)\n        return 1\n    }", want: "func f() {\n\tif x {\n\t\tlog(x)\n\t\treturn 1\n\t}\n}\n", stage: "indentation (tabs vs spaces)"},
		{name: "spaces in file, tabs from model", content: "def f():\n    if x:\n        return 1\n", old: "\tif x:\n\t\treturn 1", new: "\tif x:\n\t\treturn 2", want: "def f():\n    if x:\n        return 2\n", stage: "indentation (tabs vs spaces)"},
		{name: "indentation at another depth is not matched", content: "\t\tif x {\n\t\t\treturn 1\n\t\t}\n", old: "if x {\n  return 1\n}", new: "if y {\n  return 1\n}", errKind: EditNotFound},
		{name: "fallback must be unique", content: "a\r\nb\r\na\r\nb\r\n", old: "a\nb", new: "c", errKind: EditAmbiguous, errContains: []string{"2 times", "lines 1, 3"}},
		{name: "already applied (old absent, new in place between old's context)", content: "f(a, 2, c)\n", old: "f(a, 1, c)", new: "f(a, 2, c)", errKind: EditAlreadyApplied, errContains: []string{"already in place at line 1"}},
		// Issue 12.1: new_string occurring elsewhere is not proof the edit was made.
		{name: "new elsewhere is not already applied", content: "x = 2\ny = 1\n", old: "x = 1", new: "x = 2", errKind: EditNotFound, errContains: []string{"not found", "already occurs at line 1"}},
		{name: "new elsewhere, deletion", content: "a()\nreturn x\n", old: "x := 1\nreturn x", new: "return x", errKind: EditNotFound},
		{name: "nearest candidate named", content: "func main() {\n\tfmt.Println(\"hello, world\")\n}\n", old: "fmt.Println(\"hello world\")", new: "fmt.Println(\"bye\")", errKind: EditNotFound, errContains: []string{"nearest candidate is line 2"}},
		// Issue 12.2: replace_all holds in the fallback stages.
		{name: "replace_all in crlf stage", content: "a\r\nb\r\na\r\nb\r\n", old: "a\nb", new: "c\nd", all: true, want: "c\r\nd\r\nc\r\nd\r\n", stage: "line endings"},
		{name: "replace_all in quotes stage", content: "it’s\nit’s\n", old: "it's", new: "it is", all: true, want: "it is\nit is\n", stage: "curly quotes"},
		// Issue 12.3: overlapping occurrences are ambiguous.
		{name: "overlapping matches are ambiguous", content: "}\n}\n}\n", old: "}\n}\n", new: "}\n", errKind: EditAmbiguous, errContains: []string{"2 times", "lines 1, 2", "overlap"}},
		{name: "overlapping matches ambiguous in crlf stage", content: "}\r\n}\r\n}\r\n", old: "}\n}\n", new: "}\n", errKind: EditAmbiguous, errContains: []string{"2 times"}},
		{name: "overlapping single chars", content: "aaa", old: "aa", new: "b", errKind: EditAmbiguous},
		// Issue 12.4: style of mixed files.
		{name: "lf region of crlf file keeps lf", content: "a\r\nb\r\nc\nd\ne\r\n", old: "c\nd\n", new: "c\nX\nd\n", want: "a\r\nb\r\nc\nX\nd\ne\r\n", stage: "exact"},
		{name: "crlf region of lf file keeps crlf", content: "a\nb\nc\r\nd\r\ne\n", old: "c\nd", new: "c\nX\nd", want: "a\nb\nc\r\nX\r\nd\r\ne\n", stage: "line endings"},
		{name: "unchanged line keeps its curly quotes", content: "say “hi”\nsay 'x'\n", old: "say \"hi\"\nsay 'x'", new: "say \"hi\"\nsay 'y'", want: "say “hi”\nsay 'y'\n", stage: "curly quotes"},
		{name: "unchanged lines keep bytes when model sends other endings", content: "a\r\nb\r\nc\r\n", old: "a\r\nb\r\n", new: "a\nB\n", want: "a\r\nB\r\nc\r\n", stage: "exact"},
		{name: "already applied (new contains old)", content: "import a\nimport b\n", old: "import a", new: "import a\nimport b", errKind: EditAlreadyApplied},
		{name: "identical strings refused", content: "x", old: "x", new: "x", errKind: EditInvalid},
		{name: "deletion", content: "keep\ndrop me\nkeep\n", old: "drop me\n", new: "", want: "keep\nkeep\n", stage: "exact"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := applyEdit(tc.content, tc.old, tc.new, tc.all)
			if tc.want != "" || tc.stage != "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if out.Content != tc.want {
					t.Errorf("content\n got %q\nwant %q", out.Content, tc.want)
				}
				if out.Stage != tc.stage {
					t.Errorf("stage %q, want %q", out.Stage, tc.stage)
				}
				return
			}
			ee, ok := err.(*EditError)
			if !ok {
				t.Fatalf("want EditError kind %d, got %v (content %q)", tc.errKind, err, out.Content)
			}
			if ee.Kind != tc.errKind {
				t.Errorf("kind %d, want %d: %s", ee.Kind, tc.errKind, ee.Msg)
			}
			for _, s := range tc.errContains {
				if !strings.Contains(ee.Msg, s) {
					t.Errorf("message %q lacks %q", ee.Msg, s)
				}
			}
		})
	}
}

func TestEditTwiceDoesNotDouble(t *testing.T) {
	cases := []struct{ content, old, new string }{
		{"a\nb\n", "a\n", "a\ninserted\n"},
		{"x := 1\n", "x := 1", "x := 1\ny := 2"},
		{"one\r\ntwo\r\n", "one\n", "one\nadded\n"},
		{"if a {\n\tf()\n}\n", "if a {\n    f()\n}", "if a {\n    f()\n    g()\n}"},
	}
	for _, tc := range cases {
		first, err := applyEdit(tc.content, tc.old, tc.new, false)
		if err != nil {
			t.Fatalf("%q: first apply: %v", tc.content, err)
		}
		second, err := applyEdit(first.Content, tc.old, tc.new, false)
		if err == nil {
			t.Fatalf("second apply changed the file again: %q -> %q", first.Content, second.Content)
		}
		if ee, ok := err.(*EditError); !ok || ee.Kind != EditAlreadyApplied {
			t.Errorf("second apply: %v, want already applied", err)
		}
	}
}

func TestEditFileTool(t *testing.T) {
	env := testEnv(t)
	p := writeTestFile(t, env, "pkg/a.go", "package a\n\nfunc A() int {\n\treturn 1\n}\n")
	in := map[string]any{"file_path": "pkg/a.go", "old_string": "return 1", "new_string": "return 2"}

	if _, err := call(t, env, EditFile{editFileSpec}, in); err == nil || !strings.Contains(err.Error(), "read_file first") {
		t.Fatalf("edit before read: %v", err)
	}
	if _, err := call(t, env, ReadFile{readFileSpec}, map[string]any{"file_path": "pkg/a.go"}); err != nil {
		t.Fatal(err)
	}
	res, err := call(t, env, EditFile{editFileSpec}, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := readTestFile(t, p); !strings.Contains(got, "return 2") {
		t.Errorf("file not edited: %q", got)
	}
	for _, want := range []string{"-\treturn 1", "+\treturn 2"} {
		if !strings.Contains(res.Display, want) || !strings.Contains(res.Content, want) {
			t.Errorf("diff lacks %q:\ncontent %s\ndisplay %s", want, res.Content, res.Display)
		}
	}
	if !strings.HasPrefix(res.Display, "--- a/pkg/a.go") {
		t.Errorf("display is not a unified diff: %q", res.Display)
	}
	// The tool's own write refreshed the receipt: a second edit works.
	if _, err := call(t, env, EditFile{editFileSpec}, map[string]any{"file_path": "pkg/a.go", "old_string": "A()", "new_string": "B()"}); err != nil {
		t.Fatalf("edit after own edit: %v", err)
	}
	// Applying the first edit again changes nothing. A one-line edit has no
	// context after the change, so hew cannot confirm it was made: it says
	// where new_string occurs instead of claiming success (issue 12.1).
	before := readTestFile(t, p)
	_, err = call(t, env, EditFile{editFileSpec}, map[string]any{"file_path": "pkg/a.go", "old_string": "return 1", "new_string": "return 2"})
	if err == nil || !strings.Contains(err.Error(), "already occurs at line 4") || readTestFile(t, p) != before {
		t.Errorf("re-apply: %v", err)
	}
	// With context on both sides the repeat is recognised as done.
	res, err = call(t, env, EditFile{editFileSpec}, map[string]any{"file_path": "pkg/a.go", "old_string": "{\n\treturn 1\n}", "new_string": "{\n\treturn 2\n}"})
	if err != nil || !strings.Contains(res.Content, "already in place") || readTestFile(t, p) != before {
		t.Errorf("re-apply with context: %v %q", err, res.Content)
	}
	// An external change invalidates the receipt.
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(p, []byte(before+"// user edit\n"), 0o644)
	if _, err := call(t, env, EditFile{editFileSpec}, map[string]any{"file_path": "pkg/a.go", "old_string": "B()", "new_string": "C()"}); err == nil || !strings.Contains(err.Error(), "re-read") {
		t.Fatalf("edit after external change: %v", err)
	}
	if !strings.Contains(readTestFile(t, p), "// user edit") {
		t.Error("user's change was overwritten")
	}
}

func TestEditFileChecks(t *testing.T) {
	env := testEnv(t)
	writeTestFile(t, env, "a.txt", "x\n")
	cases := []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"file_path": "a.txt", "old_string": "x", "new_string": "x"}, "identical"},
		{map[string]any{"file_path": "../outside.txt", "old_string": "x", "new_string": "y"}, "outside the project root " + env.Root},
		{map[string]any{"file_path": "a.txt", "old_string": "x"}, "new_string: required field is missing"},
		{map[string]any{"file_path": "a.txt", "old_string": "x", "new_string": 3}, "new_string: must be a string"},
	}
	for _, tc := range cases {
		_, err := call(t, env, EditFile{editFileSpec}, tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestEditCreatesFileWithEmptyOld(t *testing.T) {
	env := testEnv(t)
	if _, err := call(t, env, EditFile{editFileSpec}, map[string]any{"file_path": "new/dir/f.txt", "old_string": "", "new_string": "hi\n"}); err != nil {
		t.Fatal(err)
	}
	if got := readTestFile(t, filepath.Join(env.Root, "new/dir/f.txt")); got != "hi\n" {
		t.Errorf("got %q", got)
	}
	if _, err := call(t, env, EditFile{editFileSpec}, map[string]any{"file_path": "new/dir/f.txt", "old_string": "", "new_string": "again"}); err == nil {
		t.Error("empty old_string on an existing file was accepted")
	}
}

// FuzzEditMatch checks the matcher never panics and that an accepted edit
// changes only the regions it reports, each of which matches old_string
// (exactly, or after the stage's normalization).
func FuzzEditMatch(f *testing.F) {
	seeds := [][3]string{
		{"a\nb\nc\n", "b", "B"},
		{"one\r\ntwo\r\n", "one\ntwo", "1\n2"},
		{"“q” it’s", `"q" it's`, `"r"`},
		{"\tif x {\n\t\ty()\n\t}\n", "    if x {\n        y()\n    }", "    if x {\n        z()\n    }"},
		{"a  \nb\n", "a\nb", "c\nd"},
		{"p\u00a0q", "p q", "r"},
		{"aaa", "aa", "a"},
		{"x", "x", "xx"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], false)
	}
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		out, err := applyEdit(content, old, new, all)
		if err != nil {
			return
		}
		if len(out.Regions) == 0 {
			t.Fatal("success without regions")
		}
		prev := 0
		for _, r := range out.Regions {
			if r.Start < prev || r.End < r.Start || r.End > len(content) {
				t.Fatalf("bad region %+v (prev end %d, len %d)", r, prev, len(content))
			}
			region := content[r.Start:r.End]
			if out.Stage == "exact" {
				if region != old || toLF(r.Replacement) != toLF(new) {
					t.Fatalf("exact region %q != old %q (replacement %q, new %q)", region, old, r.Replacement, new)
				}
			} else {
				var fl normFlags
				for _, st := range fallbackStages {
					if st.name == out.Stage {
						fl = st.flags
					}
				}
				if normalize(region, fl).s != normalize(old, fl).s {
					t.Fatalf("stage %s: region %q does not match old %q", out.Stage, region, old)
				}
			}
			if !strings.Contains(content, "\r") && !strings.Contains(new, "\r") && strings.Contains(r.Replacement, "\r") {
				t.Fatalf("a CR appeared in an LF file: %q", r.Replacement)
			}
			prev = r.End
		}
		if got := splice(content, out.Regions); got != out.Content {
			t.Fatalf("content changed outside the reported regions")
		}
		if out.Stage != "exact" && len(out.Regions) != 1 && !all {
			t.Fatalf("fallback stage %s replaced %d regions", out.Stage, len(out.Regions))
		}
		if out.Content == content {
			t.Fatalf("accepted edit changed nothing")
		}
		// An insertion (new contains old) applied twice must not double.
		if !all && out.Stage == "exact" && strings.Contains(new, old) {
			if again, err := applyEdit(out.Content, old, new, false); err == nil {
				t.Fatalf("second application succeeded: %q -> %q -> %q", content, out.Content, again.Content)
			}
		}
	})
}

func BenchmarkApplyEditExact(b *testing.B) {
	content := strings.Repeat("func f() {\n\treturn 1\n}\n", 2000) + "func target() {}\n"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := applyEdit(content, "func target() {}", "func target() { x() }", false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplyEditIndentFallback(b *testing.B) {
	content := strings.Repeat("func f() {\n\treturn 1\n}\n", 2000) + "func target() {\n\tif x {\n\t\ty()\n\t}\n}\n"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := applyEdit(content, "    if x {\n        y()\n    }", "    if x {\n        z()\n    }", false); err != nil {
			b.Fatal(err)
		}
	}
}
