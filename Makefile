# Two entry points for a fresh machine with Python 3.11+: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# pytest-xdist workers: `auto` is one per core; PYTEST_WORKERS=0 runs the suite in one process
PYTEST_WORKERS ?= auto
PYTEST := $(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist worksteal

.PHONY: install demo test test-fast lint typecheck unit unit-fast clean

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

unit: $(STAMP)
	$(PYTEST)

# everything but the tests marked `slow` (the fault-injection suite among them): for developers
unit-fast: $(STAMP)
	$(PYTEST) -m "not slow"

test: lint typecheck unit

test-fast: lint typecheck unit-fast

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
