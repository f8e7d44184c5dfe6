# ordauc: everything runs from the project's own virtual environment (.venv).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= results

.PHONY: install test quickstart twins bench reproduce reproduce-npsvor reproduce-auc-dcd lint clean

$(BIN)/ordauc: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	@touch $@

install: $(BIN)/ordauc  ## create .venv and install ordauc with its test tools

test: install  ## the whole test suite (offline)
	$(BIN)/pytest -q

lint: install
	$(BIN)/ruff check ordauc tests benchmarks

quickstart: install  ## the offline quickstart: run, then figures
	$(BIN)/ordauc run configs/quickstart.yaml --out $(OUT)/quickstart --n-jobs 2
	$(BIN)/ordauc plot $(OUT)/quickstart

twins: install  ## the QSG papers' offline twins (configs/offline), run and plotted
	for study in qsg_s2auc qs3orao qsg_s2auc_time qs3orao_time; do \
	    $(BIN)/ordauc run configs/offline/$$study.yaml --out $(OUT)/offline/$$study && \
	    $(BIN)/ordauc plot $(OUT)/offline/$$study || exit 1; done

bench: install  ## speed and memory benchmarks (about 90 minutes); figures go to benchmarks/
	$(BIN)/python benchmarks/bench_qsg.py
	$(BIN)/python benchmarks/bench_pairwise.py
	$(BIN)/python benchmarks/bench_prepare.py
	$(BIN)/python benchmarks/bench_grid.py
	$(BIN)/python benchmarks/bench_crossover.py
	$(BIN)/python benchmarks/bench_npsvor_scale.py

reproduce: install  ## the QSG papers' experiments: fetch the data, run, plot (days of compute)
	$(BIN)/ordauc fetch codrna ijcnn1 susy covtype higgs skin dota2 unclonable \
	    road3d sgemm year yolanda baby beauty clothes pet
	for study in qsg_s2auc_time qs3orao_time qsg_s2auc qs3orao; do \
	    $(BIN)/ordauc run configs/$$study.yaml --out $(OUT)/$$study && \
	    $(BIN)/ordauc plot $(OUT)/$$study || exit 1; done

reproduce-npsvor: install  ## the NPSVOR paper: comparison (Tables II-V, Figs. 5-6), Figs. 2, 3, 4, 7 and 8
	$(BIN)/ordauc fetch contact-lenses pasture squash-stored squash-unstored tae newthyroid \
	    balance-scale swd car bondrate toy eucalyptus lev automobile winequality-red esl era \
	    boston abalone bank computer california census movielens
	for study in npsvor npsvor_toy npsvor_eps npsvor_tolerance npsvor_scale npsvor_movielens; do \
	    $(BIN)/ordauc run configs/$$study.yaml --out $(OUT)/$$study && \
	    $(BIN)/ordauc report $(OUT)/$$study && \
	    $(BIN)/ordauc plot $(OUT)/$$study || exit 1; done

reproduce-auc-dcd: install  ## the AUC-DCD paper: Table 2 beside the published values, Figure 2
	$(BIN)/ordauc fetch sonar fourclass german svmguide3 dna svmguide4 pendigits vowel letter sector
	$(BIN)/ordauc run configs/auc_dcd.yaml --out $(OUT)/auc_dcd
	$(BIN)/ordauc report $(OUT)/auc_dcd --metric auc
	$(BIN)/ordauc plot $(OUT)/auc_dcd

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
