# Set-up is idempotent: every target below installs what is missing first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# torch's CPU build for the embed extra (the sentence-embedding model of Verify from text); on the
# project's machines this release lies in pip's local wheel directory, elsewhere pip fetches it.
TORCH  ?= torch==2.13.0
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup demo test bench bench-del bench-serve serve clean

setup: $(VENV)/.installed

# System tools, each installed with apt-get only when missing: SWI-Prolog (the rules),
# Graphviz (`grounded show`, `grounded book`), Chromium and its driver (the page tests);
# PostgreSQL (the serve tests start a throw-away cluster) below, found by its versioned path.
APT_NEEDS := swipl:swi-prolog-nox dot:graphviz chromium:chromium chromedriver:chromium-driver

$(VENV)/.installed: pyproject.toml
	@missing=""; for pair in $(APT_NEEDS); do \
	  command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing with apt-get:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  echo "PostgreSQL not found (the serve tests start a throw-away cluster): installing postgresql"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q '$(TORCH)' || echo "note: $(TORCH) not available; the embed extra brings its own torch"
	$(BIN)/pip install -q -e '.[test,embed]'
	@touch $@

demo: setup
	$(BIN)/grounded demo

# mypy cannot follow setuptools' package-dir mapping (grounded -> bridge/, grounded.interpreter ->
# interpreter/, ...), so it checks a tree of symlinks laid out as the installed package is.
TYPING := $(VENV)/typing

lint: setup
	$(BIN)/ruff check .
	$(MAKE) --no-print-directory typecheck

typecheck: setup
	@rm -rf $(TYPING) && mkdir -p $(TYPING)/grounded
	@ln -s $(CURDIR)/bridge/* $(TYPING)/grounded/
	@for d in interpreter prolog asp scenarios; do ln -s $(CURDIR)/$$d $(TYPING)/grounded/$$d; done
	MYPYPATH=$(TYPING) $(BIN)/mypy -p grounded -p bench

test: setup lint
	$(BIN)/python -m pytest -q

bench: setup
	$(BIN)/python -m bench.latency

bench-del: setup
	$(BIN)/python -m bench del

bench-serve: setup
	$(BIN)/python -m bench serve

serve: setup
	$(BIN)/grounded serve

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis .mypy_cache
