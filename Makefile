# enoki-hd — `make help` lists the targets.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
SHARED ?= ../shared
export ENOKI_SHARED_DIR ?= $(abspath $(SHARED))
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export WANDB_MODE ?= offline
export PYTHONPATH := $(CURDIR)$(if $(PYTHONPATH),:$(PYTHONPATH))
BENCH ?= psiloqa_en50
EXP ?=
EXAMPLE := src/enoki_hd/examples

.DEFAULT_GOAL := help
.PHONY: help install demo test test-full test-install wheel serve loadtest lint format train-verifier distill export strip-guards int8-all bench eval compare eval-all eval-heldout calibrate carb clean

help: ## list the targets
	@grep -E '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-16s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# torch first, pinned: the local CPU build, not a multi-GB CUDA build
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e ".[train,eval,dev,llm,serve,ray]"
	touch $@

install: $(VENV)/.installed ## create .venv and install the package with its extras (from the package index, once)

demo: install ## detect hallucinations in the bundled example on the shipped default models
	$(VENV)/bin/enoki detect --context $(EXAMPLE)/suede_context.txt --answer $(EXAMPLE)/suede_answer.txt \
		--question "$$(cat $(EXAMPLE)/suede_question.txt)" --format md

test: install ## the fast test suite (well under 20 min on 2 cores)
	$(VENV)/bin/pytest -q

test-full: install ## every test, slow ones included
	$(VENV)/bin/pytest -q -m "slow or not slow"

test-install: install ## the torch-free install check alone (part of make test): a fresh venv, pip install of the wheel (base dependencies only), enoki detect, torch never imported (~1 min)
	$(VENV)/bin/pytest -q tests/test_torch_free.py

wheel: install ## build dist/enoki_hd-*.whl: the package with the shipped checkpoints as package data (pip install it anywhere, no torch)
	# setuptools copies whatever build/lib holds into the wheel, files deleted since included
	rm -rf build
	$(PIP) wheel -q --no-deps --no-build-isolation -w dist .

serve: install ## run the HTTP service on 127.0.0.1:8000 (ARGS="--host 0.0.0.0 --port 9000 ...")
	$(VENV)/bin/enoki serve $(ARGS)

lint: install ## ruff lint and format check, mypy type check of src/ (config in pyproject.toml)
	$(VENV)/bin/ruff check src scripts tests
	$(VENV)/bin/ruff format --check src scripts tests
	$(VENV)/bin/mypy

format: install ## apply ruff fixes and formatting
	$(VENV)/bin/ruff check --fix src scripts tests
	$(VENV)/bin/ruff format src scripts tests

train-verifier: install ## train, evaluate, export and ship checkpoints/verifier-minilm (about 2 h on 2 free cores; resumable); EXP=v2, EXP=l3 or EXP=l3kd for configs/experiment/<name>.yaml
	$(PY) scripts/train_verifier.py $(if $(EXP),+experiment=$(EXP)) $(ARGS)

distill: install ## distil LLM-extracted triples into the IGL tagger, export and ship checkpoints/tagger-minilm, score it on CaRB dev (about 1 h on 2 free cores, estimated; resumable); EXP=cpu_smoke (< 3 min, ships under outputs/), EXP=rules_teacher, EXP=answers_teacher or EXP=depth8
	$(PY) scripts/distill.py $(if $(EXP),+experiment=$(EXP)) $(ARGS)

export: install ## re-export a trained verifier to ONNX int8 and re-ship it (ARGS=hydra overrides)
	$(PY) scripts/export.py $(ARGS)

strip-guards: install ## remove the torch exporter's no-op NaN guards from the shipped ONNX graphs in place (outputs checked bitwise first; manifests and fusion.json updated; new exports leave them out already)
	$(PY) scripts/strip_nan_guards.py $(ARGS)

int8-all: install ## quantise every MatMul a verifier checkpoint kept float (int8), if SNLI test accuracy drops by at most half a point (ARGS="DIR [--out NEW_DIR] [--keep-float REGEX] [--against-float] [--pairs N] [--max-drop F]")
	$(PY) scripts/quantize_kept_float.py $(ARGS)

bench: install ## speed and memory numbers → bench/results.json
	$(PY) scripts/bench.py $(ARGS)

loadtest: install ## enoki serve on 127.0.0.1 under 1,000 requests: latency percentiles, errors, server RSS → bench/loadtest.json
	$(PY) scripts/loadtest.py $(ARGS)

eval: install ## evaluate on one benchmark: make eval BENCH=psiloqa_en50; a file of yours: BENCH=file ARGS="benchmark.path=… benchmark.format=…"
	$(PY) scripts/eval.py benchmark=$(BENCH) $(ARGS)

compare: install ## paired bootstrap of two eval runs of one benchmark: make compare A=outputs/eval/<set>/<run> B=outputs/eval/<set>/<other run> (ARGS="--method … --samples …")
	$(VENV)/bin/enoki compare $(A) $(B) $(ARGS)

eval-all: install ## every benchmark under ../shared → outputs/eval/summary.md
	$(PY) scripts/eval_all.py $(ARGS)

eval-heldout: install ## the held-out sets (capabilities_fresh, spans_fresh): rules with the baselines, the encoder, each with sentence_entailment=0.7, then all against rules → outputs/eval/<set>/heldout[-encoder][-se70]/
	for set in capabilities_fresh spans_fresh; do \
	  $(PY) scripts/eval.py benchmark=$$set "methods=[detector,lexical_absent,lexical_phrases,mark_all,sentence_nli]" run_name=heldout $(ARGS) || exit $$?; \
	  $(PY) scripts/eval.py benchmark=$$set "methods=[detector]" extractor=encoder run_name=heldout-encoder $(ARGS) || exit $$?; \
	  $(PY) scripts/eval.py benchmark=$$set "methods=[detector]" detector.sentence_entailment=0.7 run_name=heldout-se70 $(ARGS) || exit $$?; \
	  $(PY) scripts/eval.py benchmark=$$set "methods=[detector]" extractor=encoder detector.sentence_entailment=0.7 run_name=heldout-encoder-se70 $(ARGS) || exit $$?; \
	  for run in heldout-encoder heldout-se70 heldout-encoder-se70; do \
	    $(VENV)/bin/enoki compare outputs/eval/$$set/heldout outputs/eval/$$set/$$run || exit $$?; \
	  done; \
	done

calibrate: install ## fit the calibrated fusion leave-one-benchmark-out, ship fusion.json with the verifier (resumable)
	$(PY) scripts/calibrate.py $(ARGS)

carb: install ## fact quality on CaRB dev → outputs/carb/metrics.json (rules); ARGS="--extractor encoder --out outputs/carb_encoder" for the tagger
	$(PY) scripts/carb_eval.py $(ARGS)

clean: ## remove outputs and caches (not the shipped checkpoints)
	rm -rf outputs .cache .pytest_cache .ruff_cache
