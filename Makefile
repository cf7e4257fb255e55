# The README's quick start: `make test` and `make demo`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo lint format typecheck bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check bundletui tests bench sample_bundles
	$(BIN)/ruff format --check bundletui tests bench sample_bundles

format: $(STAMP)
	$(BIN)/ruff format bundletui tests bench sample_bundles
	$(BIN)/ruff check --fix bundletui tests bench sample_bundles

typecheck: $(STAMP)
	$(BIN)/mypy

# the suite starts bundletui in a few thousand subprocesses: compiled once here, not in each
# one (PYTHONDONTWRITEBYTECODE, when set, would have every process compile ~100 modules)
test: $(STAMP) lint
	$(BIN)/python -m compileall -q bundletui
	$(BIN)/pytest -n auto -q

demo: $(STAMP)
	$(BIN)/bundletui console --demo

BENCH_STAMP := $(VENV)/.installed-bench

$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[test,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	@for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
