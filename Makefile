# Every target creates .venv and installs what it needs: a fresh machine needs only Python and make.
# demo installs the train extra only; test, lint, docs and bench every extra the tests use
# (after make demo, make test adds the rest). A stamp is remade when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
BASE := $(VENV)/.torch
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: demo test bench lint clean

# the virtual environment with PyTorch
$(BASE):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	# CPU-only PyTorch: see tools/torch_index.py (TORCH_INDEX=auto|cpu|default|<url>)
	TORCH_ARGS="$$($(PYTHON) tools/torch_index.py)" && $(BIN)/pip install $$TORCH_ARGS torch==2.13.0
	touch $(BASE)

$(STAMP): pyproject.toml $(BASE)
	$(BIN)/pip install -e ".[train,render,dev,docs,distributed,rllib,jax,openspiel,tianshou,torchrl]"
	touch $(STAMP)

$(DEMO_STAMP): pyproject.toml $(BASE)
	$(BIN)/pip install -e ".[train]"
	touch $(DEMO_STAMP)

DEMO_RUN := runs/demo

# Trains MaskablePPO on Tant Fant for a few minutes, then scores it against the baselines.
demo: $(DEMO_STAMP)
	$(BIN)/tris-envs train ppo --game tant_fant --timesteps 500000 --out $(DEMO_RUN) \
		--set eval.every=250000 --set eval.games=50
	$(BIN)/tris-envs evaluate $(DEMO_RUN)/final.zip --game tant_fant --games 200 \
		--opponents random,greedy,solver
	@echo "learning curve: $(DEMO_RUN)/learning_curve.png"
	@echo "next: source $(BIN)/activate, then"
	@echo "  tris-envs play tant_fant --opponent ppo:$(DEMO_RUN)/final.zip    # play your agent"
	@echo "  tris-envs eval tant_fant ppo:$(DEMO_RUN)/final.zip mcts:100 --games 20"
	@echo "  more in README.md (Next: play, evaluate, train) and docs/index.md"

test: $(STAMP)
	# the recipes' libraries (tests/test_recipes.py), not part of make demo
	$(BIN)/pip install -q -e ".[tianshou,torchrl]"
	SDL_VIDEODRIVER=dummy $(BIN)/python -m pytest -n 2 -q

bench: $(STAMP)
	$(BIN)/pip install -e ".[bench]"
	$(BIN)/tris-envs bench

lint: $(STAMP)
	$(BIN)/ruff check tris_envs tests benchmarks training examples tools
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info docs/_build

# Documentation: Sphinx + MyST + furo into docs/_build/html, warnings are errors (as in CI).
.PHONY: docs
SPHINXOPTS ?= -W --keep-going

docs: $(STAMP)
	SDL_VIDEODRIVER=dummy $(BIN)/sphinx-build $(SPHINXOPTS) -b html docs docs/_build/html
	@echo "documentation: docs/_build/html/index.html"
