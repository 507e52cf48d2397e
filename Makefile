# Every target creates .venv and installs what it needs: a fresh machine needs only Python and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install torch==2.13.0
	$(BIN)/pip install -e ".[train,render,dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m tris_envs.demo

test: $(STAMP)
	SDL_VIDEODRIVER=dummy $(BIN)/python -m pytest -n 2 -q

bench: $(STAMP)
	$(BIN)/pip install -e ".[bench]"
	$(BIN)/tris-envs bench

lint: $(STAMP)
	$(BIN)/ruff check tris_envs tests benchmarks training

clean:
	rm -rf $(VENV) build *.egg-info
