package sandbox

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/tools"
)

// A failed command's output is read for the sandbox's fingerprints: a
// permission error on a path outside the writable set, or a connection
// that could not be made. The explanation is for the model (and, once per
// session, the user): what was blocked and how the user can lift it.

// permissionLine matches the ways programs report EACCES/EPERM/EROFS.
var permissionLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system|\bEACCES\b|\bEPERM\b|\bEROFS\b`)
})

// pathToken finds absolute or ./relative paths, bare or quoted.
var pathToken = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?:^|[\\s'\"`(\\[=,:])((?:/|\\./|\\.\\./|~/)[^\\s'\"`):,\\]]*)")
})

// connectLine matches failed connections and lookups from common tools.
var connectLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)failed to connect|could not connect|couldn't connect|connection refused|network is unreachable|no route to host|could not resolve|couldn't resolve|temporary failure in name resolution|name or service not known|getaddrinfo|ENOTFOUND|ECONNREFUSED|ENETUNREACH|EAI_AGAIN|dial tcp|connect: permission denied|/dev/tcp/`)
})

// maxBlockedPaths bounds how many paths one explanation names.
const maxBlockedPaths = 3

// explain returns the note for a result and a few words for the user's
// notice, or "" and "".
func (s *Sandbox) explain(dir string, res tools.ShellResult) (note, short string) {
	st := s.State()
	if !st.Confined {
		return "", ""
	}
	var notes, shorts []string
	if n, hosts := refusedNote(res.Network); n != "" {
		notes = append(notes, n)
		shorts = append(shorts, "refused the connection to "+strings.Join(hosts, ", ")+" (allow a domain with sandbox.allowedDomains)")
	}
	failed := res.ExitCode != 0 && !res.TimedOut
	if failed {
		if paths := s.blockedPaths(dir, res.Output); len(paths) > 0 {
			shorts = append(shorts, "blocked a write to "+strings.Join(paths, ", ")+" (allow a directory with permissions.additionalDirectories or --add-dir)")
			notes = append(notes, "sandbox: the write to "+strings.Join(paths, ", ")+" was blocked: sandboxed commands may write only in "+
				strings.Join(s.opts.Policy.Writable(), ", ")+
				". The user can allow a directory with permissions.additionalDirectories (or --add-dir DIR), or run hew with --no-sandbox; otherwise work inside the project or the temp directory.")
		}
		if len(notes) == 0 && st.Network != NetAll && connectLine().MatchString(res.Output) {
			notes = append(notes, connectNote(st.Network))
			shorts = append(shorts, `blocked a direct network connection (see "sandbox.network")`)
		}
	}
	return strings.Join(notes, "\n"), strings.Join(shorts, "; ")
}

// refusedNote names the domains the proxy refused and how to allow them.
func refusedNote(rs []netproxy.Receipt) (string, []string) {
	seen := map[string]bool{}
	var lines, hosts []string
	for _, r := range rs {
		if !r.Denied() || r.By == "error" || seen[r.Host] {
			continue
		}
		seen[r.Host] = true
		hosts = append(hosts, r.Host)
		lines = append(lines, "sandbox: the connection to "+r.Host+" was refused by hew's network proxy: "+r.Reason)
	}
	return strings.Join(lines, "\n"), hosts
}

func connectNote(n NetMode) string {
	if n == NetOff {
		return `sandbox: network access is off for sandboxed commands ("sandbox.network": false). The user can set "sandbox.network" to "allowlist" (registries and allowed domains) or true in .hew/settings.json, or run hew with --no-sandbox.`
	}
	return "sandbox: sandboxed commands reach the network only through hew's proxy (HTTPS_PROXY, HTTP_PROXY and ALL_PROXY are set); direct connections and DNS lookups fail. Use a tool that honours those variables; the user can widen access with sandbox.allowedDomains, \"sandbox.network\": true, or --no-sandbox."
}

// blockedPaths are the paths named on permission-error lines that lie
// outside every writable directory.
func (s *Sandbox) blockedPaths(dir, out string) []string {
	writable := s.opts.Policy.Writable()
	var found []string
	seen := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if !permissionLine().MatchString(line) {
			continue
		}
		for _, m := range pathToken().FindAllStringSubmatch(line, -1) {
			p := strings.TrimRight(m[1], ".;")
			if strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/") || p == "/" && len(m[1]) == 1 {
				continue
			}
			if strings.HasPrefix(p, "~/") {
				home := s.opts.Policy.Home
				if home == "" || home == "-" {
					continue
				}
				p = filepath.Join(home, p[2:])
			} else if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			p = filepath.Clean(p)
			if seen[p] || insideAny(p, writable) {
				continue
			}
			seen[p] = true
			found = append(found, p)
			if len(found) == maxBlockedPaths {
				return found
			}
		}
	}
	return found
}

func insideAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
