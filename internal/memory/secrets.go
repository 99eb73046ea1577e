package memory

import (
	"regexp"
	"sync"
)

type secretPattern struct {
	what string
	re   *regexp.Regexp
}

// secretPatterns recognise credentials by shape. A memory is read back into
// later sessions' context, so a key written there would leak into their
// requests; these are refused instead. Compiled on first use, so start-up
// does no work for them.
var secretPatterns = sync.OnceValue(func() []secretPattern {
	return []secretPattern{
		{"a private key", regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
		{"an AWS access key", regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
		{"a GitHub token", regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b`)},
		{"an API key (sk-…)", regexp.MustCompile(`\bsk-(ant-)?[A-Za-z0-9_-]{20,}`)},
		{"a Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
		{"a Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
		{"a JSON web token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
		{"a password or token assignment", regexp.MustCompile(`(?i)\b(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth)\s*[:=]\s*["']?[^\s"'<>$(){}]{6,}(["'\s]|$)`)},
		{"credentials in a URL", regexp.MustCompile(`[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]{3,}@`)},
		{"a bearer token", regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{20,}`)},
		{"a password (密码)", regexp.MustCompile(`(密码|口令|密钥)\s*[:：=是为]\s*\S{4,}`)},
	}
})

// SecretReason names the kind of secret text seems to contain ("" if none).
func SecretReason(text string) string {
	for _, p := range secretPatterns() {
		if p.re.MatchString(text) {
			return p.what
		}
	}
	return ""
}
