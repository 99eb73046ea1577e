package shellparse

import "strings"

// pythonBuildModules are `python -m X` test runners and checkers.
var pythonBuildModules = setOf("pytest", "unittest", "mypy", "ruff", "black", "flake8", "pylint", "tox", "nox",
	"coverage", "pyflakes", "isort", "doctest", "compileall", "py_compile", "build")

// buildTools run the project's own build, tests or checks with any
// subcommand (their configuration lives in the project).
var buildTools = setOf("make", "gmake", "ninja", "pytest", "py.test", "tox", "nox", "mypy", "pyright", "ruff",
	"flake8", "pylint", "black", "isort", "jest", "vitest", "mocha", "tsc", "eslint", "prettier", "rspec",
	"rake", "ctest", "javac", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "rustfmt",
	"golangci-lint", "staticcheck", "phpunit", "pest", "meson", "cmake", "gotestsum", "ginkgo", "nextest",
	"biome", "stylelint", "hadolint", "markdownlint", "yamllint", "buf", "protoc", "sbt", "zig", "elm",
	"stack", "cabal", "dune", "ghc", "swiftc", "kotlinc", "scalac", "bazel", "bazelisk", "turbo", "nx")

// subcommandBuilds lists, per tool, the subcommands that build or test the
// project, the read-only ones, and the local-work ones.
var subcommandBuilds = map[string]struct{ build, ro, local []string }{
	"go": {
		build: []string{"build", "test", "vet", "run", "generate", "mod", "tool"},
		ro:    []string{"version", "doc", "help", "list", "env"},
		local: []string{"fmt"},
	},
	"cargo": {
		build: []string{"build", "b", "test", "t", "check", "c", "clippy", "run", "r", "bench", "doc", "fetch", "nextest", "miri"},
		ro:    []string{"tree", "metadata", "--version", "-V", "version", "locate-project", "pkgid", "verify-project", "help"},
		local: []string{"fmt"},
	},
	"npm": {
		build: []string{"test", "t", "tst", "run", "run-script", "start", "ci", "install", "i", "rebuild"},
		ro:    []string{"ls", "list", "view", "info", "outdated", "help", "--version", "-v", "root", "prefix", "explain", "why", "audit", "doctor"},
	},
	"yarn": {
		build: []string{"test", "run", "build", "lint", "typecheck", "start", "dev", "install", "check"},
		ro:    []string{"--version", "-v", "info", "list", "why", "outdated", "help"},
	},
	"pnpm": {
		build: []string{"test", "t", "run", "build", "lint", "typecheck", "start", "dev", "install", "i"},
		ro:    []string{"--version", "-v", "ls", "list", "why", "outdated", "help"},
	},
	"bun": {
		build: []string{"test", "run", "build", "install", "i"},
		ro:    []string{"--version", "-v", "pm"},
	},
	"deno": {
		build: []string{"test", "check", "lint", "bench", "task", "compile"},
		ro:    []string{"--version", "-v", "info", "doc", "help"},
		local: []string{"fmt"},
	},
	"gradle":     {build: []string{"build", "test", "check", "assemble", "compileJava", "compileKotlin", "clean", "lint", "jar", "run"}},
	"mvn":        {build: []string{"test", "compile", "package", "verify", "validate", "clean", "test-compile"}, ro: []string{"-v", "--version"}},
	"dotnet":     {build: []string{"build", "test", "run", "restore", "clean"}, ro: []string{"--version", "--info", "--list-sdks"}, local: []string{"format"}},
	"swift":      {build: []string{"build", "test", "run"}, ro: []string{"--version"}},
	"mix":        {build: []string{"test", "compile", "deps.get", "credo", "dialyzer"}, local: []string{"format"}},
	"bundle":     {build: []string{"exec", "install"}, ro: []string{"list", "show", "--version"}},
	"poetry":     {build: []string{"run", "install", "check", "build"}, ro: []string{"show", "--version", "env"}},
	"uv":         {build: []string{"run", "sync"}, ro: []string{"--version", "tree"}},
	"pip":        {ro: []string{"list", "show", "freeze", "--version", "check"}},
	"pip3":       {ro: []string{"list", "show", "freeze", "--version", "check"}},
	"composer":   {build: []string{"test", "install", "run-script", "run", "dump-autoload", "validate"}, ro: []string{"show", "--version"}},
	"xcodebuild": {build: []string{"build", "test", "-scheme", "-project", "-workspace"}, ro: []string{"-version", "-list", "-showsdks"}},
	"lerna":      {build: []string{"run"}},
}

// npxTools are the build tools npx/pnpm exec may run as builds.
var npxTools = setOf("tsc", "jest", "vitest", "eslint", "prettier", "mocha", "playwright", "tsx", "ts-node", "biome", "stylelint")

// buildLevel recognises build, test and check commands. ok is false for
// programs it does not know; what names the command for messages.
func buildLevel(lname string, args []string) (lvl Level, what string, ok bool) {
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	what = strings.TrimSpace(lname + " " + sub)
	if len(args) == 1 && (sub == "--version" || sub == "-V" || sub == "version") && (buildTools[lname] || subcommandBuilds[lname].build != nil) {
		return LevelReadOnly, what, true
	}
	if buildTools[lname] {
		if lname == "make" || lname == "gmake" {
			what = "make"
			for i, a := range args {
				if (a == "-f" || a == "--file" || a == "--makefile" || a == "-C" || a == "--directory") && i+1 < len(args) && !projectRelative(args[i+1]) ||
					strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile=") || strings.HasPrefix(a, "--directory=") ||
					len(a) > 2 && (strings.HasPrefix(a, "-f") || strings.HasPrefix(a, "-C")) && !projectRelative(a[2:]) {
					return LevelUnknown, "make " + a, true
				}
				if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && ships(a) {
					return LevelUnknown, "make " + a + " (a target that ships or deploys)", true
				}
			}
		}
		if lname == "rake" {
			for _, a := range args {
				if ships(a) {
					return LevelUnknown, "rake " + a + " (a task that ships or deploys)", true
				}
			}
		}
		if hasFlag(args, "", "--fix", "--write", "-w") && (lname == "prettier" || lname == "eslint" || lname == "ruff" || lname == "biome") {
			return LevelBuild, lname + " " + sub, true // rewriting sources is still the project's own tooling
		}
		if (lname == "bazel" || lname == "bazelisk") && hasAnyArg(args[:min(len(args), 1)], "query", "info", "version") {
			return LevelReadOnly, what, true
		}
		return LevelBuild, what, true
	}
	if lname == "npx" || lname == "bunx" || lname == "pnpx" {
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if npxTools[a] {
				return LevelBuild, lname + " " + a, true
			}
			return LevelUnknown, lname + " " + a, true
		}
		return LevelUnknown, lname, true
	}
	if lname == "gradlew" || lname == "mvnw" {
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && ships(a) {
				return LevelUnknown, lname + " " + a + " (a task that ships or deploys)", true
			}
		}
		return LevelBuild, lname, true
	}
	spec, known := subcommandBuilds[lname]
	if !known {
		return 0, "", false
	}
	// The subcommand is the first word that is not an option (mvn -q
	// package, cargo +nightly build), unless the option is itself listed.
	listed := func(a string) bool {
		return hasAnyArg([]string{a}, spec.ro...) || hasAnyArg([]string{a}, spec.build...) || hasAnyArg([]string{a}, spec.local...)
	}
	for i, a := range args {
		if listed(a) || !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			sub, args = a, append([]string{a}, args[i+1:]...)
			break
		}
	}
	what = strings.TrimSpace(lname + " " + sub)
	// Flags that swap in another program, whatever the tool.
	for _, a := range args {
		for _, p := range []string{"-toolexec", "--toolexec", "-exec", "--exec", "--script-shell", "--config-file", "-overlay", "--prefix"} {
			if a == p || strings.HasPrefix(a, p+"=") {
				return LevelUnknown, lname + " " + a, true
			}
		}
	}
	switch lname {
	case "go":
		switch sub {
		case "env":
			if hasFlag(args, "", "-w", "-u") {
				return LevelUnknown, "go env -w", true
			}
		case "list":
			if hasFlag(args, "", "-export", "-compiled", "-test") {
				return LevelBuild, what, true
			}
		case "mod":
			if len(args) > 1 && (args[1] == "edit" || args[1] == "init" || args[1] == "vendor") {
				return LevelLocal, "go mod " + args[1], true
			}
		}
	case "npm", "pnpm", "bun", "yarn":
		if (sub == "install" || sub == "i" || sub == "add") && len(operands(wordsOf(args[1:]))) > 0 {
			return LevelUnknown, what + " PACKAGE (adds dependencies)", true
		}
		if sub == "" && lname == "yarn" {
			return LevelBuild, "yarn", true
		}
		if sub == "run" || sub == "run-script" {
			if len(args) > 1 {
				what += " " + args[1]
				if ships(args[1]) {
					return LevelUnknown, what + " (a script that ships or deploys)", true
				}
			}
		}
	case "bundle", "poetry", "uv":
		if (sub == "exec" && lname == "bundle" || sub == "run" && lname != "bundle") && len(args) > 1 {
			inner := args[1]
			if inner == "python" || inner == "python3" {
				if len(args) > 3 && args[2] == "-m" && pythonBuildModules[args[3]] {
					return LevelBuild, lname + " " + sub + " python -m " + args[3], true
				}
				return LevelUnknown, lname + " " + sub + " " + inner, true
			}
			if !buildTools[inner] {
				return LevelUnknown, lname + " " + sub + " " + inner, true
			}
			l, w, _ := buildLevel(inner, args[2:])
			return l, lname + " " + sub + " " + w, true
		}
	case "gradle", "gradlew", "mvn":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && ships(a) {
				return LevelUnknown, lname + " " + a + " (a task that ships or deploys)", true
			}
		}
	}
	if lname == "go" && (sub == "run" || sub == "generate") {
		for _, a := range args[1:] {
			if strings.Contains(a, "@") && !strings.HasPrefix(a, "-") {
				return LevelUnknown, "go run " + a + " (downloads and runs a module)", true
			}
		}
	}
	for _, s := range spec.ro {
		if sub == s {
			return LevelReadOnly, what, true
		}
	}
	for _, s := range spec.local {
		if sub == s {
			return LevelLocal, what, true
		}
	}
	for _, s := range spec.build {
		if sub == s {
			return LevelBuild, what, true
		}
	}
	return LevelUnknown, what, true
}

// ships reports script or target names that publish, deploy or release —
// not the project's build or tests, whatever the build file says.
func ships(name string) bool {
	l := strings.ToLower(name)
	for _, w := range []string{"deploy", "publish", "release", "upload", "push", "ship", "destroy", "rollout", "promote", "install"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// projectRelative reports a path that stays in the working tree: relative,
// without climbing out, and not a device.
func projectRelative(p string) bool {
	if p == "" || p == "-" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, `\`) || len(p) > 1 && p[1] == ':' {
		return false
	}
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return false
		}
	}
	return true
}
