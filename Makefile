# ordauc: everything runs from the project's own virtual environment (.venv).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= results

.PHONY: install test test-all quickstart bench bench-report reproduce reproduce-offline lint clean

$(BIN)/ordauc: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	@touch $@

install: $(BIN)/ordauc  ## create .venv and install ordauc with its test tools

test: install  ## the fast tests (offline, a few minutes): everything but the `slow` ones
	$(BIN)/pytest -q -m "not slow"

test-all: install  ## every test, the offline twins end to end included (CI runs this)
	$(BIN)/pytest -q

lint: install
	$(BIN)/ruff check ordauc tests benchmarks .ci

quickstart: install  ## the offline quickstart: run, then figures
	$(BIN)/ordauc run configs/quickstart.yaml --out $(OUT)/quickstart --n-jobs 2
	$(BIN)/ordauc plot $(OUT)/quickstart

bench: install  ## every benchmark, then benchmarks/RESULTS.md (about 45 minutes on 2 cores, up to 9 GB of temporary disk)
	$(BIN)/python benchmarks/bench_qsg.py
	$(BIN)/python benchmarks/bench_pairwise.py
	$(BIN)/python benchmarks/bench_prepare.py
	$(BIN)/python benchmarks/bench_grid.py
	$(BIN)/python benchmarks/bench_crossover.py
	$(BIN)/python benchmarks/bench_npsvor_scale.py
	$(BIN)/python benchmarks/bench_backends.py
	$(BIN)/python benchmarks/report.py

bench-report: install  ## benchmarks/RESULTS.md again from benchmarks/results/*.json (measures nothing)
	$(BIN)/python benchmarks/report.py

# Every study of the four papers (a config each; configs/offline holds their reduced twins).
STUDIES := qsg_s2auc qsg_s2auc_time qsg_s2auc_convergence qs3orao qs3orao_time \
           qs3orao_convergence npsvor npsvor_toy npsvor_eps \
           npsvor_tolerance npsvor_scale npsvor_movielens auc_dcd
JOBS    ?= $(shell nproc 2>/dev/null || echo 1)
PROFILE ?= paper
RUN_FLAGS ?=
FETCH_FLAGS ?= $(if $(MIRROR),--mirror $(MIRROR))
SUFFIX  := $(if $(filter quick,$(PROFILE)),-quick)

# One study per line of $(1) (config stems) from config folder $(2) into $(3)/<stem>: fetch its
# data, run it (a failed cell is recorded and does not stop the pipeline: exit 1; bad input or
# an interruption does), then its figures and report page; then the index page over $(3).
define pipeline
	@for s in $(1); do \
	    echo "== $(2)/$$s.yaml -> $(3)/$$s$(SUFFIX)"; \
	    $(BIN)/ordauc fetch $(2)/$$s.yaml --quiet $(FETCH_FLAGS) || exit $$?; \
	    $(BIN)/ordauc run $(2)/$$s.yaml --out $(3)/$$s$(SUFFIX) --n-jobs $(JOBS) \
	        --profile $(PROFILE) $(RUN_FLAGS); \
	    code=$$?; [ $$code -le 1 ] || exit $$code; \
	    $(BIN)/ordauc plot $(3)/$$s$(SUFFIX) > /dev/null || exit $$?; \
	    $(BIN)/ordauc report $(3)/$$s$(SUFFIX) > /dev/null || exit $$?; \
	done
	$(BIN)/ordauc report $(3)
endef

reproduce: install  ## every figure, table and claim of the four papers (days of compute; resumable)
	$(call pipeline,$(STUDIES),configs,$(OUT))

reproduce-offline: install  ## the same pipeline on the offline twins into results/offline
	$(call pipeline,$(STUDIES),configs/offline,$(OUT)/offline)

reproduce-%: install  ## one study and the index page, e.g. make reproduce-npsvor_eps
	$(call pipeline,$*,configs,$(OUT))

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
