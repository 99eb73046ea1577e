package netproxy

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/netproxy/proxytest"
	"github.com/hew-dev/hew/internal/testenv"
)

// Real clients, configured only through the variables a sandboxed command
// gets (Scope.Env), fetch from a loopback registry through the proxy.

// toolEnv is a minimal environment plus the scope's proxy variables.
func toolEnv(t *testing.T, s *Scope, extra ...string) []string {
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C"}
	env = append(env, s.Env()...)
	return append(env, extra...)
}

func runTool(t *testing.T, env []string, dir string, argv ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestCurlThroughProxy(t *testing.T) {
	curl := testenv.Tool(t, "curl")
	f := newFixture(t, Config{Rules: Rules{Allowed: []string{"registry.test"}, Denied: []string{"blocked.test"}}})
	s := f.proxy.Begin("curl")
	env := toolEnv(t, s)
	out, err := runTool(t, env, "", curl, "-sS", "--cacert", f.reg.CAFile, f.reg.URL("registry.test")+"/via-http-proxy")
	if err != nil || !strings.Contains(out, "package index for registry.test") {
		t.Fatalf("curl over HTTPS_PROXY: %v\n%s", err, out)
	}
	// SOCKS5 with the name resolved by the proxy (socks5h).
	out, err = runTool(t, env, "", curl, "-sS", "--cacert", f.reg.CAFile, "--proxy", s.URL("socks5h"), f.reg.URL("registry.test")+"/via-socks")
	if err != nil || !strings.Contains(out, "/via-socks") {
		t.Fatalf("curl over SOCKS5: %v\n%s", err, out)
	}
	out, err = runTool(t, env, "", curl, "-sS", "--cacert", f.reg.CAFile, f.reg.URL("blocked.test")+"/")
	if err == nil {
		t.Fatalf("denied domain fetched: %s", out)
	}
	out, err = runTool(t, env, "", curl, "-sS", "--cacert", f.reg.CAFile, "--proxy", s.URL("socks5h"), f.reg.URL("blocked.test")+"/")
	if err == nil {
		t.Fatalf("denied domain fetched over SOCKS5: %s", out)
	}
	lastReceipt(t, s)
	var vias []string
	for _, r := range s.End() {
		vias = append(vias, r.Via+":"+r.Decision)
	}
	if got := strings.Join(vias, " "); got != "connect:allow socks5:allow connect:deny socks5:deny" {
		t.Errorf("receipts %s", got)
	}
}

// gitServer serves a bare repository over git's "dumb" HTTP protocol.
func gitServer(t *testing.T, git string) http.Handler {
	t.Helper()
	work, bare := t.TempDir(), filepath.Join(t.TempDir(), "lib.git")
	gitEnv := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	for _, argv := range [][]string{
		{git, "init", "-q", "-b", "main", work},
		{"sh", "-c", "echo 'fetched through hew' > " + filepath.Join(work, "README")},
		{git, "-C", work, "add", "README"},
		{git, "-C", work, "commit", "-qm", "first"},
		{git, "clone", "-q", "--bare", work, bare},
		{git, "-C", bare, "update-server-info"},
	} {
		if out, err := runTool(t, gitEnv, "", argv...); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	return http.StripPrefix("/git/", http.FileServer(http.Dir(filepath.Dir(bare))))
}

func TestGitCloneThroughProxy(t *testing.T) {
	git := testenv.Tool(t, "git")
	reg := proxytest.NewRegistry(t, gitServer(t, git))
	p, err := Start(Config{Rules: Rules{Allowed: []string{"registry.test"}}, Resolve: proxytest.Loopback})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := p.Begin("git clone")
	dst := filepath.Join(t.TempDir(), "lib")
	out, err := runTool(t, toolEnv(t, s, "GIT_SSL_CAINFO="+reg.CAFile, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0"), "",
		git, "clone", "-q", reg.URL("registry.test")+"/git/lib.git", dst)
	if err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "README")); err != nil || !strings.Contains(string(b), "fetched through hew") {
		t.Fatalf("cloned README: %q %v", b, err)
	}
	if rs := s.End(); len(rs) == 0 || rs[0].Decision != "allow" {
		t.Errorf("receipts %+v", rs)
	}
}

func TestNpmThroughProxy(t *testing.T) {
	npm := testenv.Tool(t, "npm")
	reg := proxytest.NewRegistry(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hew-proxy-probe" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"hew-proxy-probe","dist-tags":{"latest":"1.2.3"},"versions":{"1.2.3":{"name":"hew-proxy-probe","version":"1.2.3","dist":{"tarball":"https://registry.test/x.tgz","shasum":"0"}}}}`)
	}))
	p, err := Start(Config{Rules: Rules{Allowed: []string{"registry.test"}}, Resolve: proxytest.Loopback})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := p.Begin("npm view")
	out, err := runTool(t, toolEnv(t, s, "NODE_EXTRA_CA_CERTS="+reg.CAFile, "npm_config_cafile="+reg.CAFile, "npm_config_update_notifier=false", "npm_config_cache="+t.TempDir()), t.TempDir(),
		npm, "view", "hew-proxy-probe", "version", "--registry", reg.URL("registry.test")+"/", "--fetch-retries=0")
	if err != nil || strings.TrimSpace(out) != "1.2.3" {
		t.Fatalf("npm view: %v\n%s", err, out)
	}
	if rs := s.End(); len(rs) == 0 || rs[0].Host != "registry.test" {
		t.Errorf("receipts %+v", rs)
	}
}

// goProxy serves one module, example.test/hello v1.0.0, as a GOPROXY.
func goProxy(t *testing.T) http.Handler {
	t.Helper()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range map[string]string{
		"example.test/hello@v1.0.0/go.mod":   "module example.test/hello\n\ngo 1.21\n",
		"example.test/hello@v1.0.0/hello.go": "package hello\n\n// Hello greets.\nfunc Hello() string { return \"hi\" }\n",
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	files := map[string][]byte{
		"/example.test/hello/@v/list":        []byte("v1.0.0\n"),
		"/example.test/hello/@v/v1.0.0.info": []byte(`{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}`),
		"/example.test/hello/@v/v1.0.0.mod":  []byte("module example.test/hello\n\ngo 1.21\n"),
		"/example.test/hello/@v/v1.0.0.zip":  zb.Bytes(),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})
}

func TestGoModDownloadThroughProxy(t *testing.T) {
	goBin := testenv.Tool(t, "go")
	reg := proxytest.NewRegistry(t, goProxy(t))
	p, err := Start(Config{Rules: Rules{Allowed: []string{"registry.test"}}, Resolve: proxytest.Loopback})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := p.Begin("go mod download")
	modcache := t.TempDir()
	out, err := runTool(t, toolEnv(t, s, "SSL_CERT_FILE="+reg.CAFile, "GOPROXY="+reg.URL("registry.test"), "GOSUMDB=off",
		"GOMODCACHE="+modcache, "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local", "GOCACHE="+t.TempDir()), t.TempDir(),
		goBin, "mod", "download", "-json", "example.test/hello@v1.0.0")
	if err != nil || !strings.Contains(out, `"Version": "v1.0.0"`) {
		t.Fatalf("go mod download: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(modcache, "example.test", "hello@v1.0.0", "hello.go")); err != nil {
		t.Errorf("module not extracted: %v", err)
	}
	if rs := s.End(); len(rs) == 0 {
		t.Error("no receipts")
	}
}
