# Two commands do all the set-up: `make site` and `make test`.
# The environment (.venv) is synced from uv.lock by uv, which is bootstrapped into
# .tools/ with pip on first use; nothing else needs to be installed by hand.
SHELL := /bin/bash
PYTHON ?= python3
UV_VERSION := 0.13.9
UV := .tools/bin/uv
VENV := .venv
STAMP := $(VENV)/.synced
export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true
export UV_PROJECT_ENVIRONMENT := $(VENV)
# Bytecode is kept (a shell that sets PYTHONDONTWRITEBYTECODE would have every build, test worker and
# figure process compile the same few hundred modules from source at each start: seconds each here).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: site test test-fast serve bench reference compare-aic numbers-diff changelog screenshots env clean help

help:
	@echo "make site          set up .venv (uv, from uv.lock) and build the site into site/ (strict, offline)"
	@echo "make test          the whole suite: unit, built site, browser, Lighthouse (about three minutes on"
	@echo "                   two cores; runs npm ci; browser tests need Debian's chromium)"
	@echo "make test-fast     the unit tests only: no built site, no browser (about half a minute)"
	@echo "make serve         live preview on http://127.0.0.1:8000/ (re-renders only edited pages,"
	@echo "                   or every page after an edit to the package, registry or glossary)"
	@echo "make env           set up .venv only; then run .venv/bin/roofline or .venv/bin/mkdocs"
	@echo "make reference     regenerate reference/ (CLI, JSON, spec-file fields) from the code"
	@echo "make bench         timings and scores against their targets (writes reports/)"
	@echo "make compare-aic   NVIDIA's AIConfigurator beside the expected figure (own venv; writes reports/)"
	@echo "make numbers-diff REF=<git ref>   numbers that changed since REF"
	@echo "make changelog     the changelog's unreleased section: numbers changed since the last release"
	@echo "make screenshots   every page at 390x844 (touch) and 1280x900, light and dark, into screenshots/"

$(UV):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "error: Python 3.11 or newer is needed (found $$($(PYTHON) --version))"; exit 1; }
	@echo "bootstrapping uv $(UV_VERSION) into .tools/"
	@$(PYTHON) -m venv .tools && .tools/bin/pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"

$(STAMP): $(UV) uv.lock pyproject.toml Makefile
	@$(UV) sync --frozen --quiet --compile-bytecode
	@touch $(STAMP)

# Node tools for the test suite (Lighthouse), installed from package-lock.json when npm exists;
# without npm the Lighthouse gate skips with a reason (CI makes that a failure).
NODE_STAMP := node_modules/.package-lock.json
$(NODE_STAMP): package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then echo "installing node tools (npm ci)"; npm ci --no-audit --no-fund --loglevel=error; else echo "npm not found: Lighthouse tests will be skipped"; fi

env: $(STAMP)

site: $(STAMP)
	@$(VENV)/bin/python -m roofline_site.build

# Tests run on every core (pytest-xdist): a file's tests stay on one worker, so module fixtures
# (an edited-spec build, a served copy) are made once. PYTEST_WORKERS=0 runs them in this process.
# make test takes one worker more than the cores (at most 8): a browser test waits on Chromium and
# the served site part of its time, which left a core idle a tenth of the run with one worker per
# core (2-core machine, 26 Nov: 2 workers 4 min 6 s, 3 workers 3 min 40 s, 4 workers 3 min 53 s).
# The unit tests wait on nothing: one worker per core. (Expanded only by the test recipe: `=`, not
# `:=`, so no other target starts Python to count the cores.)
SITE_WORKERS = $(shell $(PYTHON) -c 'import os; print(min((os.cpu_count() or 1) + 1, 8))' 2>/dev/null || echo auto)
test: $(STAMP) $(NODE_STAMP)
	@$(VENV)/bin/python -m pytest -n $(or $(PYTEST_WORKERS),$(SITE_WORKERS)) --dist loadfile $(PYTEST_ARGS)

test-fast: $(STAMP)
	@$(VENV)/bin/python -m pytest -n $(or $(PYTEST_WORKERS),auto) --dist loadfile tests/unit src $(PYTEST_ARGS)

serve: $(STAMP)
	@SITE_URL=http://127.0.0.1:8000/ $(VENV)/bin/mkdocs serve --dirty --dev-addr 127.0.0.1:8000  # served at the root, not the Pages path

bench: $(STAMP) $(NODE_STAMP)
	@$(VENV)/bin/python -m tools.bench

# The references generated from the code (tests/unit/test_repository_text.py fails when one is stale).
reference: $(STAMP)
	@$(VENV)/bin/python -m tools.reference

compare-aic: $(STAMP)
	@$(VENV)/bin/python -m tools.compare_aic

numbers-diff: $(STAMP)
	@test -n "$(REF)" || { echo "usage: make numbers-diff REF=<git ref>"; exit 2; }
	@$(VENV)/bin/python -m roofline_site.release.numbers_diff "$(REF)"

changelog: $(STAMP)
	@$(VENV)/bin/python -m roofline_site.release.numbers_diff --unreleased > /dev/null

screenshots: site
	@$(VENV)/bin/python -m tools.screenshots site screenshots $(if $(PAGES),--pages $(PAGES)) $(if $(FULL),--full)

clean:
	rm -rf site .cache
