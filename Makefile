# ordauc: everything runs from the project's own virtual environment (.venv).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= results

.PHONY: install test quickstart bench reproduce lint clean

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

bench: install  ## speed and memory benchmarks (about 15 minutes); figures go to benchmarks/
	$(BIN)/python benchmarks/bench_qsg.py
	$(BIN)/python benchmarks/bench_pairwise.py
	$(BIN)/python benchmarks/bench_prepare.py

reproduce: install  ## the QSG papers' experiments: fetch the data, run, plot (days of compute)
	$(BIN)/ordauc fetch codrna ijcnn1 susy covtype higgs skin dota2 unclonable \
	    road3d sgemm year yolanda baby beauty clothes pet
	$(BIN)/ordauc run configs/qsg_s2auc.yaml --out $(OUT)/qsg_s2auc
	$(BIN)/ordauc plot $(OUT)/qsg_s2auc
	$(BIN)/ordauc run configs/qs3orao.yaml --out $(OUT)/qs3orao
	$(BIN)/ordauc plot $(OUT)/qs3orao

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
