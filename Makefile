# The two commands: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
export PORT
RUN_DIR ?= .run

.PHONY: run logs test install install-test lint format bench stop-db clean

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed requirements-test.txt
	$(PY) -m pip install -q -r requirements-test.txt
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

run: install
	$(PY) manage.py runplatform --port $(PORT)

# What `make run`'s processes write (each to $(RUN_DIR)/logs/<name>.log), followed as it is written; -F keeps
# following across a restart of `make run`, which empties the files.
LOGS := web worker-interactive worker-bulk beat
logs:
	tail -n 20 -F $(foreach name,$(LOGS),$(RUN_DIR)/logs/$(name).log)

# --durations=25: CI's log ends with the 25 slowest tests, so a test that grows slow is seen where it is run.
test: install-test
	$(PY) -m pytest --durations=25 $(PYTEST_ARGS)

# Lint, format check and type check (configured in pyproject.toml), as CI runs them before the tests. mypy's
# Django plugin loads the settings but never connects: a placeholder DATABASE_URL keeps it from starting the
# embedded PostgreSQL.
lint: install-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	DATABASE_URL=postgres://lint@127.0.0.1:1/lint $(VENV)/bin/mypy .

# Apply ruff's safe fixes and its formatting (scripts/lint_fix.sh), then `make lint` shows what is left by hand.
format: install-test
	scripts/lint_fix.sh

stop-db:
	$(PY) -c "from pathlib import Path; from config.embedded_db import stop_embedded_server as s; print('stopped' if s(Path('.pgdata').resolve()) else 'not running')"

clean: stop-db
	rm -rf .pgdata .run staticfiles

# Benchmarks and memory-quality evaluation (docs/benchmarks.md). BENCH_ARGS="--profile full" for the full profile;
# the dense MiniLM baseline runs when requirements-bench-dense.txt is installed.
BENCH_ARGS ?=
bench: install-test
	$(PY) -m bench $(BENCH_ARGS)

# The understanding set (bench/data/understanding_*.jsonl) through your own model: OPENAI_BASE_URL, OPENAI_API_KEY
# and LLM_CHAT_MODEL as for `make run`; skipped when no endpoint is set. Figures: "understanding_model".
.PHONY: eval-model
eval-model: install-test
	@if [ -z "$$OPENAI_BASE_URL" ]; then echo "eval-model: OPENAI_BASE_URL is not set, nothing to measure (skipped)"; \
	else $(PY) -m bench --endpoint --only understanding --no-docs $(BENCH_ARGS); fi

.PHONY: load
# Load test (docs/reliability.md): starts `make run`'s platform on LOAD_PORT (8097), 50 users chat for 60 s.
$(VENV)/.installed-load: $(VENV)/.installed requirements-load.txt
	$(PY) -m pip install -q -r requirements-load.txt
	touch $@

load: $(VENV)/.installed-load
	$(PY) load/run_load.py
