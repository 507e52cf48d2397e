# Every target creates .venv and installs what it needs: a fresh machine needs only Python and make.
# demo installs the jax extra and matplotlib only (no PyTorch); test, lint, docs and bench every
# extra the tests use (after make demo, make test adds the rest). A stamp is remade when
# pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CREATED := $(VENV)/.created
BASE := $(VENV)/.torch
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo
SEED ?= 0

.PHONY: demo test bench lint clean

# the virtual environment, pip up to date
$(CREATED):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	touch $(CREATED)

# with PyTorch
$(BASE): $(CREATED)
	# CPU-only PyTorch: see tools/torch_index.py (TORCH_INDEX=auto|cpu|default|<url>)
	TORCH_ARGS="$$($(PYTHON) tools/torch_index.py)" && $(BIN)/pip install $$TORCH_ARGS torch==2.13.0
	touch $(BASE)

$(STAMP): pyproject.toml $(BASE)
	$(BIN)/pip install -e ".[train,render,dev,docs,distributed,rllib,jax,openspiel,tianshou,torchrl]"
	touch $(STAMP)

$(DEMO_STAMP): pyproject.toml $(CREATED)
	$(BIN)/pip install -e ".[jax]" "matplotlib>=3.7"
	touch $(DEMO_STAMP)

DEMO_RUN := runs/demo

# Trains the AlphaZero learner on Tant Fant (the shipped config
# tris_envs/alphazero/configs/demo.toml, seed SEED: make demo SEED=1), then scores it against
# the baselines and the exact solver.
demo: $(DEMO_STAMP)
	rm -rf $(DEMO_RUN)
	$(BIN)/tris-envs train az --config demo --seed $(SEED) --out $(DEMO_RUN)
	$(BIN)/tris-envs evaluate $(DEMO_RUN)/final.npz --game tant_fant --games 200 \
		--opponents solver,greedy,random --seed $(SEED) --processes 2
	@echo "learning curve: $(DEMO_RUN)/learning_curve.png"
	@echo "next: source $(BIN)/activate, then"
	@echo "  tris-envs play tant_fant --opponent az:$(DEMO_RUN)/final.npz    # play your agent"
	@echo "  tris-envs eval tant_fant az:$(DEMO_RUN)/final.npz:0 solver --metrics    # the network alone"
	@echo "  more in README.md (Next: play, evaluate, train) and docs/index.md"

test: $(STAMP)
	# the recipes' libraries (tests/test_recipes.py), not part of make demo
	$(BIN)/pip install -q -e ".[tianshou,torchrl]"
	SDL_VIDEODRIVER=dummy $(BIN)/python -m pytest -n 2 -q

bench: $(STAMP)
	$(BIN)/pip install -e ".[bench]"
	$(BIN)/tris-envs bench

# ruff, mypy, and the layers: no upward import, no circle, no private path of a dependency
lint: $(STAMP)
	$(BIN)/ruff check tris_envs tests benchmarks training examples tools
	$(BIN)/mypy
	$(BIN)/python tools/import_graph.py --check

clean:
	rm -rf $(VENV) build *.egg-info docs/_build

# AgileRL's self-play DQN recipe (examples/agilerl_dqn.py) in .venv-agilerl, an environment of
# its own: AgileRL pins tensordict==0.13.0 and pettingzoo<1.27 (docs/integrations.md).
.PHONY: agilerl
AGILE_VENV := .venv-agilerl
AGILE_STAMP := $(AGILE_VENV)/.installed
AGILE_REQUIREMENTS := examples/requirements-agilerl.txt

$(AGILE_STAMP): $(AGILE_REQUIREMENTS) pyproject.toml
	$(PYTHON) -m venv $(AGILE_VENV)
	$(AGILE_VENV)/bin/pip install --upgrade pip
	TORCH_ARGS="$$($(PYTHON) tools/torch_index.py)" && \
		$(AGILE_VENV)/bin/pip install $$TORCH_ARGS "$$(grep '^torch==' $(AGILE_REQUIREMENTS))"
	$(AGILE_VENV)/bin/pip install -r $(AGILE_REQUIREMENTS) -e .
	touch $(AGILE_STAMP)

agilerl: $(AGILE_STAMP)
	$(AGILE_VENV)/bin/python examples/agilerl_dqn.py --seed $(SEED)

# Documentation: Sphinx + MyST + furo into docs/_build/html, warnings are errors (as in CI).
.PHONY: docs
SPHINXOPTS ?= -W --keep-going

docs: $(STAMP)
	SDL_VIDEODRIVER=dummy $(BIN)/sphinx-build $(SPHINXOPTS) -b html docs docs/_build/html
	@echo "documentation: docs/_build/html/index.html"
