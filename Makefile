# Two entry points for a fresh machine with Python 3.11+: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# pytest-xdist workers: `auto` is one per core; PYTEST_WORKERS=0 runs the suite in one process
PYTEST_WORKERS ?= auto
PYTEST := $(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist worksteal

.PHONY: install demo test test-fast lint typecheck unit unit-fast clean chromium screenshots

# The browser tests drive Debian's chromium (never a downloaded browser build): installed here with
# apt-get when it is missing (as root, or through sudo), with a Chinese font so that zh pages and
# their screenshots show characters.
CHROMIUM ?= /usr/bin/chromium
CJK_FONT := /usr/share/fonts/truetype/wqy/wqy-microhei.ttc
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/heyan demo

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

chromium:
	@test -x $(CHROMIUM) -a -e $(CJK_FONT) || { echo "installing Debian's chromium for the browser tests"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium fonts-wqy-microhei; }

unit: $(STAMP) chromium
	$(PYTEST)

# everything but the tests marked `slow` (the fault-injection suite among them): for developers
unit-fast: $(STAMP)
	$(PYTEST) -m "not slow"

# Re-take the console's screenshots shown in README (docs/img/web-*.png).
screenshots: $(STAMP) chromium
	HEYAN_WEB_SCREENSHOTS=docs/img $(BIN)/pytest -q -m browser tests/web

test: lint typecheck unit

test-fast: lint typecheck unit-fast

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
