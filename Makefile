# Set-up is idempotent: every target below installs what is missing first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup demo test bench bench-del bench-serve serve clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@command -v swipl >/dev/null 2>&1 || { \
	  echo "SWI-Prolog not found: installing swi-prolog-nox"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq swi-prolog-nox; }
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  echo "PostgreSQL not found (the serve tests start a throw-away cluster): installing postgresql"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $@

demo: setup
	$(BIN)/grounded demo

test: setup
	$(BIN)/python -m pytest -q

bench: setup
	$(BIN)/python -m grounded.bench.latency

bench-del: setup
	$(BIN)/grounded bench del

bench-serve: setup
	$(BIN)/grounded bench serve

serve: setup
	$(BIN)/grounded serve

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis
