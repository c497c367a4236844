# Two entry points for a fresh machine with Python 3.11+: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The locks (`make lock`): the image installs requirements.lock (runtime only); `make install` installs
# requirements-dev.lock (the same runtime pins plus the dev tools). Both carry hashes, checked by pip.
LOCK := requirements.lock
DEV_LOCK := requirements-dev.lock
PIP := $(BIN)/python -m pip --disable-pip-version-check
UV_COMPILE := $(BIN)/uv pip compile pyproject.toml --quiet --generate-hashes --universal --python-version 3.11 \
	--native-tls --custom-compile-command "make lock" $(if $(UPGRADE),--upgrade)

# pytest-xdist workers: `auto` is one per core; PYTEST_WORKERS=0 runs the suite in one process
PYTEST_WORKERS ?= auto
# pytest caches the test modules it rewrites (hash-checked .pyc files in tests/__pycache__) unless
# PYTHONDONTWRITEBYTECODE is set: with it set (as on the CI machines), every pytest process, each xdist
# worker and each `make any-day` run, rewrote every test module again (~6 s of CPU a worker). Cleared for
# pytest here and in any-day, as `make bytecode` writes Heyan's own bytecode whatever it says.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist worksteal

.PHONY: acts attacks links bytecode install lock demo test test-fast lint typecheck unit unit-fast any-day clean chromium faketime screenshots catalogs

# The browser tests drive Debian's chromium (never a downloaded browser build): installed here with
# apt-get when it is missing (as root, or through sudo), with a Chinese font so that zh pages and
# their screenshots show characters.
CHROMIUM ?= /usr/bin/chromium
CJK_FONT := /usr/share/fonts/truetype/wqy/wqy-microhei.ttc
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Exactly the locked versions, nothing resolved anew: the lock is complete, so `--no-deps` (pip 23.2,
# which Python 3.11's venv brings, otherwise re-resolves extras such as qdrant-client's httpx[http2]
# against the index and fails once a newer release appears). Then Heyan itself, editable, without
# dependencies, built with the locked setuptools; `pip check` proves the set is consistent.
$(STAMP): pyproject.toml $(DEV_LOCK)
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --no-deps --require-hashes -r $(DEV_LOCK)
	$(PIP) install --quiet --no-deps --no-build-isolation -e .
	$(PIP) check
	touch $(STAMP)

install: $(STAMP)

# The dialogue-act classifier (bot/acts): rebuild its labelled lines from the corpora, fit it on them
# with the local embedder's vectors, write bot/data/acts.npz and print held-out scores beside the rules'.
acts: $(STAMP)
	$(BIN)/python scripts/build_acts_data.py
	$(BIN)/python -m bot.acts.train --report

# the learned done links (bot/data/done_links.npz): which open promise a report of done closes; each blind
# set held out in turn, then all of them
links: $(STAMP)
	$(BIN)/python -m bot.acts.links_train --report

# the learned attack check (bot/data/attacks.npz): each blind set held out in turn, then all of them
attacks: $(STAMP)
	$(BIN)/python -m bot.guard.shapes.train --report

# Re-resolve the locks from pyproject.toml, keeping the current pins where they still fit
# (`make lock UPGRADE=1`: the newest versions pyproject.toml allows). Commit them with the change.
# It needs only uv from the venv, not an install of the current pyproject.toml (a new dependency is
# locked before it can be installed).
lock:
	@test -x $(BIN)/uv || $(MAKE) install
	$(UV_COMPILE) -o $(LOCK)
	$(UV_COMPILE) --extra dev -c $(LOCK) -o $(DEV_LOCK)

# The gettext catalogs (bot/text/locale/*/LC_MESSAGES/heyan.po) compiled to the .mo files Heyan reads;
# commit both (tests/test_text.py fails while a .mo is older than its .po).
catalogs: $(STAMP)
	$(BIN)/pybabel compile -d bot/text/locale -D heyan

demo: $(STAMP)
	$(BIN)/heyan demo

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

chromium:
	@test -x $(CHROMIUM) -a -e $(CJK_FONT) || { echo "installing Debian's chromium for the browser tests"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium fonts-wqy-microhei; }

# Heyan's own bytecode, written once before a run: with PYTHONDONTWRITEBYTECODE set (as on the CI
# machines) every `heyan` process a test starts would otherwise compile ~300 modules from source again.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 adapters bot jobs memory prompts scripts tests

unit: $(STAMP) chromium bytecode
	$(PYTEST)

# No test depends on today's date: the tests marked `dated` (they replay messages with fixed dates)
# run again with the system clock 1 and 5 years ahead (Debian's faketime), both at once.
DATED = $(shell grep -l "mark.dated" tests/*.py tests/*/*.py 2>/dev/null)
faketime:
	@command -v faketime >/dev/null || { echo "installing Debian's faketime for make any-day"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq faketime; }

any-day: $(STAMP) faketime bytecode
	PYTHONDONTWRITEBYTECODE= faketime -f +365d $(BIN)/pytest -q -n 1 -m dated $(DATED) & pid=$$!; \
	PYTHONDONTWRITEBYTECODE= faketime -f +1826d $(BIN)/pytest -q -n 1 -m dated $(DATED); five=$$?; \
	wait $$pid && test $$five = 0

# everything but the tests marked `slow` (the fault-injection suite among them): for developers
unit-fast: $(STAMP) bytecode
	$(PYTEST) -m "not slow"

# Re-take the console's screenshots shown in README (docs/img/web-*.png).
screenshots: $(STAMP) chromium
	HEYAN_WEB_SCREENSHOTS=docs/img $(BIN)/pytest -q -m browser tests/web

test: lint typecheck unit any-day

test-fast: lint typecheck unit-fast

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
