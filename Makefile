# gpumatch: `make run` serves the dashboard, `make test` runs the whole suite. Both set up what they need.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
SHARED ?= ../shared

.PHONY: install run run-multi test test-fast test-postgres lint fuzz bench calibrate validate accuracy load screenshots clean

# README: Python >= 3.11 and make are all a fresh machine needs (Debian's python3 keeps venv in python3-venv).
$(PY):
	@python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "gpumatch needs Python >= 3.11 as python3 (found $$(python3 --version 2>&1))" >&2; exit 1; }
	python3 -m venv $(VENV) || \
	  { echo "python3 -m venv failed: on Debian/Ubuntu, apt-get install python3-venv" >&2; exit 1; }
	$(PIP) install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/gpumatch serve

run-multi: $(STAMP)
	bash scripts/system_deps.sh postgres
	PY=$(PY) bash scripts/run_multi.sh

test: $(STAMP) lint
	bash scripts/system_deps.sh
	PY=$(PY) bash scripts/test.sh

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not browser and not slow"

# A long random fuzz of the JSON API and the pages (CI runs a short, fixed one): FUZZ_EXAMPLES per API operation
# and page queries, a new seed each run. Not part of `make test`.
FUZZ_EXAMPLES ?= 300
fuzz: $(STAMP)
	seed=$$(date +%s); echo "page fuzz seed $$seed (GPUMATCH_FUZZ_SEED=$$seed reruns it)"; \
	GPUMATCH_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) GPUMATCH_FUZZ_SEED=$$seed $(PY) -m pytest -q tests/test_fuzz_api.py tests/test_fuzz_pages.py

lint: $(STAMP)
	$(VENV)/bin/ruff check app tests scripts benchmarks
	$(VENV)/bin/ruff format --check app tests scripts benchmarks
	$(VENV)/bin/mypy app

bench: $(STAMP)
	$(PY) -m benchmarks.bench

# Prints the fitted constants (commit them to app/scoring/efficiency/*.py), stores the inference LOSO folds keyed to
# them, and regenerates the bands from the LOSO residuals: after committing changed constants, run it again.
calibrate: $(STAMP)
	$(PY) -m app.calibration.inference.calibrate_inference $(SHARED)/validation/inference_cases.csv
	$(PY) -m app.calibration.held_out.folds $(SHARED)/validation/inference_cases.csv
	$(PY) -m app.calibration.training.calibrate_training $(SHARED)/validation/training_cases.csv
	$(PY) -m app.calibration.held_out.bands $(SHARED)/validation

validate: $(STAMP)
	$(VENV)/bin/gpumatch validate $(SHARED)/validation/inference_cases.csv
	$(VENV)/bin/gpumatch validate $(SHARED)/validation/training_cases.csv

accuracy: $(STAMP)
	$(VENV)/bin/gpumatch accuracy-report $(SHARED)/validation --out docs/ACCURACY.md

load: $(STAMP)
	bash scripts/system_deps.sh postgres
	PY=$(PY) bash scripts/load.sh

screenshots: $(STAMP)
	bash scripts/system_deps.sh chromium
	$(PY) scripts/screenshots.py

clean:
	rm -rf var .pytest_cache .mypy_cache .ruff_cache
