package netproxy

// defaultDomains is hew's built-in allowlist: the package registries and
// source hosts that everyday builds fetch from (npm, PyPI, Go modules,
// crates, RubyGems, Maven/Gradle, NuGet, Debian, the big git forges). It
// is product configuration kept in this one place; `hew doctor` prints it
// and sandbox.deniedDomains overrides any entry.
var defaultDomains = []string{
	// JavaScript
	"registry.npmjs.org", "*.npmjs.org", "registry.yarnpkg.com", "*.yarnpkg.com",
	// Python
	"pypi.org", "files.pythonhosted.org",
	// Go
	"proxy.golang.org", "sum.golang.org", "index.golang.org", "golang.org", "go.dev",
	// Rust
	"crates.io", "index.crates.io", "static.crates.io", "static.rust-lang.org",
	// Ruby, JVM, .NET
	"rubygems.org", "*.rubygems.org", "repo.maven.apache.org", "repo1.maven.org",
	"plugins.gradle.org", "services.gradle.org", "api.nuget.org",
	// Debian
	"deb.debian.org", "security.debian.org",
	// Source hosts
	"github.com", "api.github.com", "codeload.github.com", "objects.githubusercontent.com",
	"raw.githubusercontent.com", "gitlab.com", "bitbucket.org",
}

// DefaultDomains returns a copy of the built-in allowlist.
func DefaultDomains() []string { return append([]string(nil), defaultDomains...) }
