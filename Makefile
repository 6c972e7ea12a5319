# Every target installs what it needs into .venv first, so each works from a fresh clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup services demo test test-fast bench proof lint clean i18n

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# A whole Reef Encounter game by bots through submit and process; reports in ./demo-out/, and an
# archive page of a bot game of every game, linked from demo-out/index.html.
demo: $(STAMP)
	$(BIN)/pbem demo --every-game

# The real servers the tests use: Debian's PostgreSQL, Dovecot and Chromium (installed when missing,
# with apt-get, as root), PostgreSQL started. Idempotent, so every test run may ask.
services:
	@echo "services: the tests need PostgreSQL, Dovecot, Chromium and two font packages from Debian;"
	@echo "services: scripts/system-deps.sh lists any that are missing and installs them with apt-get (as root)"
	bash scripts/system-deps.sh
	bash scripts/postgres.sh

# The whole suite, the games' 1,000-game campaigns included.
test: $(STAMP) services
	$(BIN)/python -m pytest -n 2 -q

test-fast: $(STAMP) services
	$(BIN)/python -m pytest -q -x -m "not slow"

# Every figure of BENCHMARKS.md at the issue's sizes, on this machine (python -m bench --help: sizes, parts).
bench: $(STAMP)
	$(BIN)/python -m bench

proof: $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,proof]' || echo "proof: atheris could not be installed; fuzzing runs without it"
	$(BIN)/python -m proof

# ruff, and the layers contract of pyproject.toml (import-linter: each package of pbem/ imports only from
# the layers below it, no import cycles, the games see pbem.core only); docs/architecture.md draws it.
lint: $(STAMP)
	$(BIN)/ruff check pbem games tests proof bench
	$(BIN)/ruff format --check pbem games tests proof bench
	$(BIN)/lint-imports --config pyproject.toml

# The gettext catalogs (pbem.core.i18n), one set per package (the host, each game): pybabel extract from the
# Python code and the Jinja templates (babel.cfg), update every language's .po, compile the .mo files
# (committed; tests/i18n checks them against the .po). See pbem/core/catalogs.py.
i18n: $(STAMP)
	$(BIN)/python -m pbem.core.catalogs

clean:
	rm -rf $(VENV) demo-out pbem.sqlite .pytest_cache .hypothesis
