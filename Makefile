# Fateboard. `make run` serves the demo on SQLite; `make test` runs every test.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
LANGS  := de da
HOST   ?= 127.0.0.1

.PHONY: run run-multi test lint lock lock-upgrade install dev migrate seed bench bench-scaling admin messages messages-update messages-compile clean

# Installs are locked (uv.lock: every package, direct and transitive, with hashes; docs/DEVELOPING.md). uv itself is
# pinned with its hashes in tools/uv-requirements.txt and installed by pip into $(UV_HOME); it then installs exactly
# the lock into $(VENV) (`--locked`: it refuses a lock that disagrees with pyproject.toml). The editable install of
# the project is built with the setuptools that pyproject.toml's [tool.uv] pins.
UV_HOME := .uv
UV      := $(UV_HOME)/bin/uv
export UV_PROJECT_ENVIRONMENT := $(VENV)
export UV_PYTHON_DOWNLOADS := never
# The platform's certificate store, like pip (a proxy or a company CA the machine trusts works for uv too).
export UV_SYSTEM_CERTS := 1
UV_SYNC := $(UV) sync --locked --python $(PYTHON) --quiet

$(UV): tools/uv-requirements.txt
	rm -rf $(UV_HOME)
	$(PYTHON) -m venv $(UV_HOME)
	$(UV_HOME)/bin/pip install -q --disable-pip-version-check --require-hashes --no-deps -r tools/uv-requirements.txt
	touch $@

# `make run` adds the runtime packages to what is there (--inexact: a dev venv keeps its test tools); `make dev`
# makes the venv exactly the lock with the dev extra.
$(VENV)/.installed: uv.lock pyproject.toml | $(UV)
	$(UV_SYNC) --inexact
	touch $@

$(VENV)/.dev-installed: uv.lock pyproject.toml | $(UV)
	$(UV_SYNC) --extra dev
	touch $@ $(VENV)/.installed

# Deliberate refreshes (docs/DEVELOPING.md): `make lock` after editing pyproject.toml's dependencies (keeps every
# other pin); `make lock-upgrade` takes the newest versions pyproject.toml allows. Then `make test`, commit uv.lock.
lock: | $(UV)
	$(UV) lock --python $(PYTHON)

lock-upgrade: | $(UV)
	$(UV) lock --upgrade --python $(PYTHON)

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
	$(UV_SYNC) --inexact --extra postgres --extra redis
	FATEBOARD_DATABASE_URL=$(PG_URL) $(BIN)/alembic upgrade head
	@echo "Serving on http://$(HOST):$(PORT) with $(WORKERS) workers"
	FATEBOARD_DATABASE_URL=$(PG_URL) FATEBOARD_BROKER=redis FATEBOARD_REDIS_URL=$(REDIS_URL) \
		$(BIN)/python -m app.serve --host $(HOST) --port $(PORT) --workers $(WORKERS)

# Self-hosters' commands (app/admin.py): make admin ARGS="reset-password USER" | "backup DIR" | "restore DIR" | "check DIR"
admin: install
	$(BIN)/python -m app.admin $(ARGS)

# The quality gate: lint and types, then every test (CI runs exactly this through .ci/run). mypy is strict on app/
# and tests/utils/ (pyproject.toml). The JS check (tools/check_js.mjs) is node's own parser plus a small rule set
# in a script of ours: no package, so no network and nothing vendored (a pinned ESLint or Biome would be megabytes
# of node_modules or a platform binary in the repo for the same few rules). A machine without node (a new user's,
# with only Python) skips it with a message, so `make test` still passes there; CI sets JS_CHECK=required, so a
# missing node fails there instead of skipping.
NODE     ?= node
JS_CHECK ?= optional
lint: dev
	$(BIN)/python tools/check_lock.py
	$(UV) lock --check --offline --python $(PYTHON)
	$(BIN)/ruff format --check app tests bench migrations
	$(BIN)/ruff check app tests bench migrations
	$(BIN)/python tools/check_templates.py
	$(BIN)/mypy
	@if command -v $(NODE) >/dev/null 2>&1; then $(NODE) tools/check_js.mjs static/js tools; \
	elif [ "$(JS_CHECK)" = required ]; then echo "JS check: '$(NODE)' not found and JS_CHECK=required" >&2; exit 1; \
	else echo "JS check SKIPPED: '$(NODE)' not found (install Node.js >= 18 to check static/js; CI runs it)"; fi

# Two pytest-xdist workers on 2 cores (TEST_WORKERS=0 runs in one process); loadgroup keeps each xdist_group on one
# worker (the Redis tests: its channels are shared). docs/DEVELOPING.md has the times and what PostgreSQL runs.
TEST_WORKERS ?= auto
test: dev lint
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# Issue 16's five benchmarks (bounded, 127.0.0.1 only; each prints MET/MISSED and a JSON line), the fan-out, then
# issue 27's busy night (PostgreSQL + Redis + two app.serve workers).
# multiproc.py needs PostgreSQL and Redis: BENCH_PG_URL must be a THROWAWAY database (its schema is dropped).
BENCH_PG_URL    ?= postgresql+psycopg://postgres@127.0.0.1:5432/fateboard_bench
BENCH_REDIS_URL ?= redis://127.0.0.1:6379/0
# The busy night (bench/night.py: 1,000 campaigns, 6,000 page streams, ~10 min with its seeding) and the scaling
# benchmark wipe this one (a THROWAWAY database too).
BENCH_NIGHT_PG_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/fateboard_night_bench
bench: dev
	$(BIN)/python bench/actions.py
	$(BIN)/python bench/multiproc.py --database-url $(BENCH_PG_URL) --redis-url $(BENCH_REDIS_URL)
	$(BIN)/python bench/tables.py --duration 60
	$(BIN)/python bench/longlog.py
	$(BIN)/python bench/pages.py
	$(BIN)/python bench/panels.py
	$(BIN)/python bench/fanout.py
	$(BIN)/python bench/night.py --database-url $(BENCH_NIGHT_PG_URL) --redis-url $(BENCH_REDIS_URL)

# Issue 27 §3 (not in `make bench`: minutes of PostgreSQL-only measurements for docs/SCALING.md).
bench-scaling: dev
	$(BIN)/python bench/scaling.py --database-url $(BENCH_NIGHT_PG_URL) --redis-url $(BENCH_REDIS_URL)

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
	rm -rf $(VENV) $(UV_HOME) fateboard.db fateboard.db-* instance .pytest_cache .hypothesis

# Issue 27: Fateboard against the peer pyvtt, alternating pairs (bench/peer.py; MET/MISSED and a JSON line).
# pyvtt is set up in /tmp if it is missing, from its snapshot in PEERS and the package index only (its own
# requirements.txt into its own venv): shared/peers/README.md. PEERS defaults to ../shared/peers.
PEERS         ?= $(firstword $(wildcard ../shared/peers ../../shared/peers))
PYVTT_ROOT    ?= /tmp/pyvtt
PYVTT_PYTHON  ?= python3.11
BENCH_PEER_ARGS ?= --pairs 3
.PHONY: bench-peer
bench-peer: dev
	@test -n "$(PEERS)" || { echo "no shared/peers folder found: make bench-peer PEERS=/path/to/shared/peers"; exit 1; }
	@if [ ! -x $(PYVTT_ROOT)/.venv/bin/python ]; then \
		echo "Setting up pyvtt in $(PYVTT_ROOT): unpacking $(PEERS)/pyvtt-src.tar.gz, then"; \
		echo "  $(PYVTT_PYTHON) -m venv $(PYVTT_ROOT)/.venv && pip install -r $(PYVTT_ROOT)/requirements.txt (package index)"; \
		mkdir -p $(dir $(PYVTT_ROOT)) && tar -xzf $(PEERS)/pyvtt-src.tar.gz -C $(dir $(PYVTT_ROOT)) && \
		$(PYVTT_PYTHON) -m venv $(PYVTT_ROOT)/.venv && \
		$(PYVTT_ROOT)/.venv/bin/pip install -q -r $(PYVTT_ROOT)/requirements.txt || exit 1; \
	fi
	$(BIN)/python bench/peer.py --peers $(PEERS) --pyvtt-root $(PYVTT_ROOT) \
		--pyvtt-python $(PYVTT_ROOT)/.venv/bin/python $(BENCH_PEER_ARGS)
