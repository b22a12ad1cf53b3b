# Fateboard. `make run` serves the demo on SQLite; `make test` runs every test.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
HOST   ?= 127.0.0.1

.PHONY: run test lint install dev migrate seed bench messages messages-update messages-compile clean

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

run: seed
	@echo "Serving on http://$(HOST):$(PORT)"
	$(BIN)/uvicorn app.asgi:app --host $(HOST) --port $(PORT) --no-proxy-headers --timeout-graceful-shutdown 3

# The quality gate: lint and types, then every test (CI runs exactly this through .ci/run).
lint: dev
	$(BIN)/ruff check app tests bench migrations
	$(BIN)/mypy

test: dev lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: dev
	$(BIN)/python bench/actions.py
	$(BIN)/python bench/fanout.py

messages: dev
	$(BIN)/pybabel extract -F babel.cfg -o app/locale/messages.pot .

# After `make messages`: merge new strings into every language's catalog (app/locale/<lang>/LC_MESSAGES/messages.po).
messages-update: dev
	$(BIN)/pybabel update --no-fuzzy-matching -i app/locale/messages.pot -d app/locale

# The compiled catalogs (messages.mo) are committed, so a plain install has them; a test checks they match the .po.
messages-compile: dev
	$(BIN)/pybabel compile -d app/locale

clean:
	rm -rf $(VENV) fateboard.db fateboard.db-* instance .pytest_cache .hypothesis
