# One-command set-up: each target builds what it needs (.venv, compiled engines).
#   make demo  needs Python 3.11+, a C compiler and make.
#   make test  needs the same, plus Node.js (installed here from the system's
#              packages where it is missing and we are root) for the JavaScript
#              sample engine's tests, and Chromium (likewise) for the browser
#              tests of the HTML replay (tests/html).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test demo lint format typecheck engines engines-c node browser sandbox-tools sandbox-tools-optional bench clean venv

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,rl]'
	touch $(STAMP)

venv: $(STAMP)

# The compiled (C) sample engines: all that `make demo` needs besides Python.
engines-c:
	$(MAKE) -C sample_engines

# Node.js runs the JavaScript sample engine (sample_engines/js_random); only the
# test suite needs it.
node:
	@command -v node >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: Node.js (node) is missing; installing Debian's nodejs package for the JavaScript sample engine's tests"; \
	    apt-get update -qq && apt-get install -y -qq nodejs >/dev/null; \
	  else \
	    echo "error: Node.js (node) is needed by the tests of sample_engines/js_random; install it (e.g. apt-get install nodejs)" >&2; exit 1; \
	  fi; }

engines: engines-c node

# Chromium runs the HTML replay pages in the browser tests (tests/html), driven by
# Playwright for Python; it is Debian's chromium at /usr/bin/chromium, never a
# browser that Playwright downloads.
browser:
	@[ -x /usr/bin/chromium ] || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: Chromium (/usr/bin/chromium) is missing; installing Debian's chromium package for the HTML replay's browser tests"; \
	    apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "error: Chromium (/usr/bin/chromium) is needed by the browser tests in tests/html; install it (e.g. apt-get install chromium)" >&2; exit 1; \
	  fi; }

# bubblewrap (bwrap) jails each engine under the default --sandbox auto (docs/match.md,
# "Containment"): `make demo` and the tests (tests/sandbox) use it. setpriv (util-linux)
# switches a jailed engine to its seat's own account when the referee is root.
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: bubblewrap (bwrap) is missing; installing Debian's bubblewrap package to jail the engines (--sandbox auto)"; \
	    apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; \
	  else \
	    echo "error: bubblewrap (bwrap) jails the engines (--sandbox auto, tests/sandbox); install it (e.g. apt-get install bubblewrap), or run with --sandbox off" >&2; exit 1; \
	  fi; }

# The demo runs without bubblewrap too (--sandbox auto then jails with what this
# machine allows: limits, no namespaces), so there a missing bwrap is only said.
sandbox-tools-optional:
	@$(MAKE) --no-print-directory sandbox-tools 2>/dev/null || \
	  echo "make: bubblewrap (bwrap) is missing and we are not root: the demo's engines run without namespaces (see docs/match.md, Containment)"

lint: $(STAMP)
	$(VENV)/bin/ruff check bidref tests benchmarks sample_engines
	$(VENV)/bin/ruff format --check bidref tests benchmarks sample_engines
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff format bidref tests benchmarks sample_engines

test: $(STAMP) engines browser sandbox-tools lint
	$(VENV)/bin/pytest -n 2 -q

# The mypyc-compiled build in build/compiled (docs/perf.md; the bidref program runs on
# it while it is fresh), and the rules, search, protocol and replay tests (with a
# differential test of both builds) run against it.
.PHONY: compiled test-compiled
compiled: $(STAMP)
	$(PY) -m bidref.build.compiled

test-compiled: compiled
	PYTHONPATH=$(CURDIR)/build/compiled BIDREF_RULES_BUILD=compiled $(VENV)/bin/pytest --import-mode=append -n 2 -q tests/rules tests/engines_ai tests/test_python_strong.py tests/protocol \
		$(filter-out %/test_export.py %/test_stderr_log.py,$(wildcard tests/transcript/test_*.py))

test: test-compiled

demo: $(STAMP) engines-c sandbox-tools-optional
	rm -f demo-transcript.jsonl
	$(VENV)/bin/bidref match sample_engines/c_first/engine sample_engines/python_greedy/engine.py \
		--seed 7 --bank 10 --delay 0.5 --transcript demo-transcript.jsonl

# Every benchmark prints its own figures (see benchmarks/*.py for targets).
bench: $(STAMP) engines
	$(PY) benchmarks/rules_playouts.py
	$(PY) benchmarks/referee_overhead.py
	$(PY) benchmarks/referee_work.py
	$(PY) benchmarks/replay_speed.py
	$(PY) benchmarks/play_screen.py
	$(PY) benchmarks/tournament_throughput.py

clean:
	rm -rf $(VENV) build *.egg-info demo-transcript.jsonl
	$(MAKE) -C sample_engines clean
