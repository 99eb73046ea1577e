package plan

import (
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# Plan: Add caching to the HTTP client\n...", "add-caching-to-the-http-client"},
		{"\n\n  - Refactor   parser (v2)!", "refactor-parser-v2"},
		{"# 重构解析器", "plan"},
		{"", "plan"},
		{"# " + strings.Repeat("word ", 30), "word-word-word-word-word-word-word-word-word"},
		{"Migrate DB: users→accounts", "migrate-db-users-accounts"},
	}
	for _, tc := range tests {
		got := Slug(tc.in)
		if got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if len(got) > maxSlug {
			t.Errorf("Slug(%q) is %d bytes long", tc.in, len(got))
		}
	}
}
