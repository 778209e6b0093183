# One-command set-up: each target builds what it needs (.venv, compiled engines).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test demo lint typecheck engines bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# The C sample engines are compiled here; the JavaScript one needs Node.js, which
# is installed from the system's packages where it is missing and we may (root).
engines: $(STAMP)
	$(MAKE) -C sample_engines
	@command -v node >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Node.js for the JavaScript sample engine"; \
	    apt-get update -qq && apt-get install -y -qq nodejs >/dev/null; \
	  else \
	    echo "error: Node.js (node) is needed for sample_engines/js_random; install it" >&2; exit 1; \
	  fi; }

lint: $(STAMP)
	$(VENV)/bin/ruff check bidref tests benchmarks sample_engines
	$(VENV)/bin/mypy

test: $(STAMP) engines lint
	$(VENV)/bin/pytest -n 2 -q

demo: $(STAMP) engines
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
