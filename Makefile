# Set-up is idempotent: every target below installs what is missing first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PLDOC  ?= docs/pldoc
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup setup-test demo check test lint typecheck bench bench-del bench-serve serve screenshots clean docs

# apt-get install the Debian packages of the commands named (command:package pairs) that are missing.
define apt_needs
	@missing=""; for pair in $(1); do \
	  command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing with apt-get:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi
endef

# WordNet 3.0 for the text reader's coverage check: Debian's database files and sense index (no command to
# test for, so the files are), copied under the venv's NLTK data path with the relations it reads.
define wordnet
	@[ -f /usr/share/wordnet/data.noun ] && [ -f /usr/share/wordnet/index.sense ] || { \
	  echo "installing with apt-get: wordnet-base wordnet-sense-index"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wordnet-base wordnet-sense-index; }
	$(BIN)/python -m grounded.interpreter.setup_wordnet
endef

# The core and what the demo and the service read text with: SWI-Prolog (the rules), the package with its
# interpreter and serve extras (pip install -e '.[interpreter,serve]'), WordNet.  No Chromium, no PostgreSQL.
setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(call apt_needs,swipl:swi-prolog-nox)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[interpreter,serve]'
	$(call wordnet)
	@touch $@

# Everything the tests use: Graphviz (`grounded show`, `grounded book`), Chromium and its driver (the page
# tests), PostgreSQL (the serve tests start a throw-away cluster; found by its versioned path), WordNet, and
# every extra (pip install -e '.[test]').
APT_TEST := swipl:swi-prolog-nox dot:graphviz chromium:chromium chromedriver:chromium-driver

setup-test: $(VENV)/.installed-test

$(VENV)/.installed-test: pyproject.toml
	$(call apt_needs,$(APT_TEST))
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  echo "PostgreSQL not found (the serve tests start a throw-away cluster): installing postgresql"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	$(call wordnet)
	@touch $@ $(VENV)/.installed

demo: setup
	$(BIN)/grounded demo

lint: setup-test
	$(BIN)/ruff check .
	$(MAKE) --no-print-directory typecheck

typecheck: setup-test
	$(BIN)/mypy -p grounded -p bench

# The slow groups (pytest markers, pyproject.toml): Chromium pages, PostgreSQL, kill -9 rounds, the
# benchmarks' runs, long property runs and the longest single tests.  `make check` leaves them out and
# runs the rest on every core (pytest-xdist, one test file per worker at a time: a file's tests share
# its fixtures and servers); `make test` (CI, .ci/run) runs everything, one test at a time.
SLOW := browser or postgres or kill or bench or slow

check: setup-test
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n auto --dist loadfile -m "not ($(SLOW))"

test: setup-test lint
	$(BIN)/python -m pytest -q

bench: setup-test
	$(BIN)/python -m bench.latency

bench-del: setup-test
	$(BIN)/python -m bench del

bench-serve: setup-test
	$(BIN)/python -m bench serve

serve: setup
	$(BIN)/grounded serve

# docs/texts-*.png, docs/present-*.png: the page at 1280x720 with the texts and in presentation mode, in headless
# Chromium (tests/screenshots.py)
screenshots: setup-test
	$(BIN)/python -m tests.screenshots

# $(PLDOC)/: the rules' PlDoc as HTML (each module of prolog/ with its %! headers; vocabulary.html is the
# author layer), by SWI-Prolog's own doc_save.
docs:
	$(call apt_needs,swipl:swi-prolog-nox)
	rm -rf $(PLDOC) && mkdir -p $(PLDOC)
	cd prolog && swipl -g "use_module(library(doc_files)), doc_save('.', [format(html), recursive(false), \
	  doc_root('$(abspath $(PLDOC))'), if(true)])" -t halt

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis .mypy_cache
