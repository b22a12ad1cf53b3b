# Fateboard. `make run` serves the demo on SQLite; `make test` runs every test.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
LANGS  := de da
HOST   ?= 127.0.0.1

.PHONY: run run-multi test lint install dev migrate seed bench admin messages messages-update messages-compile clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

dev: $(VENV)/.dev-installed

migrate: install
	$(BIN)/alembic upgrade head

seed: migrate
	$(BIN)/python -m app.demo

# One process through app/serve.py: uvicorn with httptools bounded (a request head of 64 KB at most, and within
# FATEBOARD_BODY_TIMEOUT_SECONDS), TCP_NODELAY, no proxy headers of its own; bodies are bounded by the app
# (docs/LIMITS.md). uvicorn's keep-alive timeout stays at its 5 s; no --limit-concurrency (the live streams are
# connections too).
run: seed
	@echo "Serving on http://$(HOST):$(PORT)"
	$(BIN)/python -m app.serve --host $(HOST) --port $(PORT) --workers 1

# Several worker processes behind one port (app/serve.py): PostgreSQL and the Redis broker, which every process
# needs to hear the others' entries. `make run-multi PG_URL=… REDIS_URL=… WORKERS=2`.
PG_URL    ?= postgresql+psycopg://postgres@127.0.0.1:5432/fateboard
REDIS_URL ?= redis://127.0.0.1:6379/0
WORKERS   ?= 2
run-multi: install
	FATEBOARD_DATABASE_URL=$(PG_URL) $(BIN)/alembic upgrade head
	@echo "Serving on http://$(HOST):$(PORT) with $(WORKERS) workers"
	FATEBOARD_DATABASE_URL=$(PG_URL) FATEBOARD_BROKER=redis FATEBOARD_REDIS_URL=$(REDIS_URL) \
		$(BIN)/python -m app.serve --host $(HOST) --port $(PORT) --workers $(WORKERS)

# Self-hosters' commands (app/admin.py): make admin ARGS="reset-password USER" | "backup DIR" | "restore DIR" | "check DIR"
admin: install
	$(BIN)/python -m app.admin $(ARGS)

# The quality gate: lint and types, then every test (CI runs exactly this through .ci/run).
lint: dev
	$(BIN)/ruff format --check app tests bench migrations
	$(BIN)/ruff check app tests bench migrations
	$(BIN)/mypy

test: dev lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Issue 16's five benchmarks (bounded, 127.0.0.1 only; each prints MET/MISSED and a JSON line), then the fan-out.
# multiproc.py needs PostgreSQL and Redis: BENCH_PG_URL must be a THROWAWAY database (its schema is dropped).
BENCH_PG_URL    ?= postgresql+psycopg://postgres@127.0.0.1:5432/fateboard_bench
BENCH_REDIS_URL ?= redis://127.0.0.1:6379/0
bench: dev
	$(BIN)/python bench/actions.py
	$(BIN)/python bench/multiproc.py --database-url $(BENCH_PG_URL) --redis-url $(BENCH_REDIS_URL)
	$(BIN)/python bench/tables.py --duration 60
	$(BIN)/python bench/longlog.py
	$(BIN)/python bench/pages.py
	$(BIN)/python bench/panels.py
	$(BIN)/python bench/fanout.py

# msg(...) is a log line stored language-neutral (app/i18n.py); N_(...) marks a string translated where shown.
messages: dev
	$(BIN)/pybabel extract -F babel.cfg -o app/locale/messages.pot .

# After `make messages`: merge new strings into every language's catalog (app/locale/<lang>/LC_MESSAGES/messages.po).
messages-update: dev
	@for lang in $(LANGS); do test -f app/locale/$$lang/LC_MESSAGES/messages.po || \
		$(BIN)/pybabel init -i app/locale/messages.pot -d app/locale -l $$lang; done
	$(BIN)/pybabel update --no-fuzzy-matching -i app/locale/messages.pot -d app/locale

# The compiled catalogs (messages.mo) are committed, so a plain install has them; a test checks they match the .po.
messages-compile: dev
	$(BIN)/pybabel compile -d app/locale

clean:
	rm -rf $(VENV) fateboard.db fateboard.db-* instance .pytest_cache .hypothesis
