# hew — build, test and benchmark.
#
#   make build   the hew binary in ./hew
#   make test    install what the tests need, then vet, race-test and cross-compile
#   make bench   start-up figures (bench/run.sh)

GO         ?= go
NPM_PREFIX ?= $(CURDIR)/.cache/npm
MCP_PKGS   := @modelcontextprotocol/server-filesystem@2026.8.31 @modelcontextprotocol/server-everything@2026.8.31

# Tests that need the MCP reference servers find them here (and on PATH).
export HEW_TEST_NPM_PREFIX := $(NPM_PREFIX)
export PATH := $(NPM_PREFIX)/node_modules/.bin:$(PATH)

.PHONY: all build test deps vet race cross bench

all: build

build:
	$(GO) build -o hew ./cmd/hew

test: deps vet race cross

# deps installs ripgrep, tmux, git and curl (apt-get, when missing and running as root)
# and the MCP reference servers (npm, into $(NPM_PREFIX)). Without them the
# tests that need them are skipped, saying why (under CI, where CI=true, they
# fail instead: a broken install step must not pass as a green run).
deps:
	@missing=""; \
	command -v rg >/dev/null 2>&1 || missing="$$missing ripgrep"; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	command -v git >/dev/null 2>&1 || missing="$$missing git"; \
	command -v curl >/dev/null 2>&1 || missing="$$missing curl ca-certificates"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing$$missing"; \
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } \
				|| echo "note: apt-get could not install$$missing; tests that need them are skipped (they fail when CI is set)"; \
		else \
			echo "note: install$$missing for the full test suite (tests that need them are skipped; they fail when CI is set)"; \
		fi; \
	fi
	@if command -v npm >/dev/null 2>&1; then \
		if [ ! -x "$(NPM_PREFIX)/node_modules/.bin/mcp-server-filesystem" ] || [ ! -x "$(NPM_PREFIX)/node_modules/.bin/mcp-server-everything" ]; then \
			echo "installing $(MCP_PKGS) into $(NPM_PREFIX)"; \
			{ mkdir -p "$(NPM_PREFIX)" && npm install --prefix "$(NPM_PREFIX)" --no-audit --no-fund --loglevel=error $(MCP_PKGS); } \
				|| echo "note: npm install failed; the MCP server tests are skipped (they fail when CI is set)"; \
		fi; \
	else \
		echo "note: npm not found; the MCP server tests are skipped (they fail when CI is set)"; \
	fi

vet:
	$(GO) vet ./...

race:
	$(GO) test -race ./...

cross:
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build ./...

bench:
	bench/run.sh
