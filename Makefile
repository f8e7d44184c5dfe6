# ordauc: everything runs from the project's own virtual environment (.venv).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= results

.PHONY: install test test-all quickstart bench bench-report reproduce reproduce-offline lint start-trial clean

$(BIN)/ordauc: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	@touch $@

install: $(BIN)/ordauc  ## create .venv and install ordauc with its test tools

# The fast tests in TEST_WORKERS processes (pytest-xdist); each test module runs whole in one
# of them (--dist loadfile), so a module's shared fixtures are built once.
TEST_WORKERS ?= 2

test: install  ## the fast tests (offline, a few minutes): everything but the `slow` ones
	$(BIN)/pytest -q -m "not slow" -n $(TEST_WORKERS) --dist loadfile

test-all: install  ## every test, the offline twins end to end included (CI runs this)
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile

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

# The pipeline over studies $(1) (config stems) from config folder $(2) into $(3)/<stem>, with
# fetch flags $(4): each study is fetched, run, plotted and reported; one that fails at any step
# is named and the next one goes on; then the index page over $(3); the exit status is non-zero
# when any study failed (scripts/pipeline.sh).
pipeline = ORDAUC=$(BIN)/ordauc JOBS=$(JOBS) PROFILE=$(PROFILE) SUFFIX=$(SUFFIX) \
	RUN_FLAGS="$(RUN_FLAGS)" FETCH_FLAGS="$(4)" MISSING_DATA=$(or $(5),refuse) \
	bash scripts/pipeline.sh $(2) $(3) $(1)

# The small files the offline twins read, shipped in the repository (see its MANIFEST.csv), are
# fetched from this folder. The AUC-DCD twin's dna and pendigits are not shipped (no licence
# allows it): a file the folder lacks is looked up next under its name in LIBSVM's multiclass
# folder, its host; without network the twin runs without them, their cells recorded as skipped
# with the `ordauc fetch` that gets them (MISSING_DATA=skip), and its page says so. A data folder
# that already holds them prepared (CI: .ci/devdata.py) runs the whole twin with no network.
OFFLINE_MIRROR ?= data/offline-mirror
LIBSVM_MULTICLASS := https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass

reproduce: install  ## every figure, table and claim of the four papers (days of compute; resumable)
	$(call pipeline,$(STUDIES),configs,$(OUT),$(FETCH_FLAGS))

reproduce-offline: install  ## the same pipeline on the offline twins into results/offline (no network needed; dna and pendigits fetched when it is there)
	$(call pipeline,$(STUDIES),configs/offline,$(OUT)/offline,--mirror $(OFFLINE_MIRROR) --mirror $(LIBSVM_MULTICLASS),skip)

reproduce-%: install  ## one study and the index page, e.g. make reproduce-npsvor_eps
	$(call pipeline,$*,configs,$(OUT),$(FETCH_FLAGS))

start-trial:  ## the README's Start block as typed, on a fresh clone with no network (about 30 minutes)
	scripts/start_trial.sh

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
