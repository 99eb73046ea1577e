package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, r io.Reader, max int) ([]Event, error) {
	t.Helper()
	rd := NewReader(r, max)
	var evs []Event
	for {
		ev, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				return evs, nil
			}
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  []Event
		error error
	}{
		{"single", "data: hello\n\n", []Event{{Data: "hello"}}, nil},
		{"typed", "event: message_start\ndata: {\"a\":1}\n\n", []Event{{Type: "message_start", Data: `{"a":1}`}}, nil},
		{"multi-line data", "data: a\ndata: b\ndata:c\n\n", []Event{{Data: "a\nb\nc"}}, nil},
		{"comments and keep-alives", ": ping\n\n:\ndata: x\n\n", []Event{{Data: "x"}}, nil},
		{"crlf", "event: e\r\ndata: x\r\n\r\n", []Event{{Type: "e", Data: "x"}}, nil},
		{"done", "data: {}\n\ndata: [DONE]\n\n", []Event{{Data: "{}"}, {Data: "[DONE]"}}, nil},
		{"no space after colon", "data:x\n\n", []Event{{Data: "x"}}, nil},
		{"event without data ignored", "event: ping\n\ndata: y\n\n", []Event{{Data: "y"}}, nil},
		{"id and unknown fields", "id: 7\nretry: 10\nfoo\ndata: z\n\n", []Event{{ID: "7", Data: "z"}}, nil},
		{"last event without blank line", "data: a\n\ndata: [DONE]\n", []Event{{Data: "a"}, {Data: "[DONE]"}}, nil},
		{"cut inside a line", "data: a\n\ndata: {\"tr", []Event{{Data: "a"}}, io.ErrUnexpectedEOF},
		{"bom", "\xef\xbb\xbfdata: b\n\n", []Event{{Data: "b"}}, nil},
		{"empty data line", "data:\n\n", []Event{{Data: ""}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// One byte at a time proves nothing depends on read boundaries.
			got, err := readAll(t, iotest.OneByteReader(strings.NewReader(tc.in)), 0)
			if !errors.Is(err, tc.error) && err != tc.error {
				t.Fatalf("err = %v, want %v", err, tc.error)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d events %+v, want %+v", len(got), got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestUTF8SplitAcrossReads(t *testing.T) {
	in := "data: 日本語のテキスト\n\n"
	got, err := readAll(t, iotest.OneByteReader(strings.NewReader(in)), 0)
	if err != nil || len(got) != 1 || got[0].Data != "日本語のテキスト" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestMaxLine(t *testing.T) {
	long := "data: " + strings.Repeat("x", 5000) + "\n\n"
	_, err := readAll(t, strings.NewReader(long), 1000)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err = %v, want ErrLineTooLong", err)
	}
	got, err := readAll(t, strings.NewReader(long), 10000)
	if err != nil || len(got) != 1 || len(got[0].Data) != 5000 {
		t.Fatalf("a line under the limit must pass: %v", err)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, "content_block_delta", "line1\nline2"); err != nil {
		t.Fatal(err)
	}
	if err := Write(&buf, "", "[DONE]"); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, &buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{Type: "content_block_delta", Data: "line1\nline2"}, {Data: "[DONE]"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] || !got[1].Done() {
		t.Fatalf("got %+v", got)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("event: a\ndata: b\n\n"), 64)
	f.Add([]byte("data: x\r\ndata: y\r\n\r\n: c\n"), 8)
	f.Add([]byte("data: [DONE]"), 1)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 0 {
			max = -max
		}
		max %= 4096
		rd := NewReader(bytes.NewReader(in), max)
		total := 0
		for i := 0; ; i++ {
			ev, err := rd.Next()
			if err != nil {
				break
			}
			total += len(ev.Data)
			if total > len(in) {
				t.Fatalf("produced more data (%d) than input (%d)", total, len(in))
			}
			if i > len(in) {
				t.Fatal("more events than input bytes")
			}
		}
	})
}
