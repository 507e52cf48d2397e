#!/usr/bin/env bash
# The package as a pip user gets it: build the sdist and the wheel (python -m build), check
# them with twine, install the wheel with its train and jax extras into a fresh virtual
# environment outside the repository (CPU-only PyTorch chosen by tools/torch_index.py, as
# the Makefile does) and use it there: every environment created and played to the end, the
# Gymnasium ids, tris-envs eval with the shipped az and ppo agents, tiny tris-envs train ppo
# (the shipped config) and tris-envs train az runs, a shipped recipe's --check, tris-envs
# evaluate of the PPO checkpoint and eval of the az network, the train commands' --help,
# and tris-envs bench naming the extra it lacks. Last, the sdist as a tester gets it:
# installed with its dev and render extras into another fresh environment and its own
# tests run from the unpacked folder (the conformance suite, the first-use checks of
# missing extras, the plain-text rendering and the import's cost; pytest -n 2, on the
# installed package).
#
# Usage: tools/wheel_smoke.sh            (from anywhere; needs only python3 and an index)
#   PYTHON=python3.12 tools/wheel_smoke.sh   the interpreter of both virtual environments
#   KEEP=1 tools/wheel_smoke.sh              keep the work folder (printed at the start)
#   TORCH_INDEX=cpu|default|auto|<url>       as for make (tools/torch_index.py)
# Needs only package indexes: build and twine come into a virtual environment of their own.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tris_envs_wheel.XXXXXX")"
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$WORK"' EXIT; fi
echo "wheel_smoke: working in $WORK"
step() { echo "wheel_smoke: $* ($(date +%T))"; }

step "build and twine check"
"$PYTHON" -m venv "$WORK/tools"
"$WORK/tools/bin/pip" install -q build twine
"$WORK/tools/bin/python" -m build --outdir "$WORK/dist" "$ROOT" >"$WORK/build.log" 2>&1 \
    || { cat "$WORK/build.log"; exit 1; }
"$WORK/tools/bin/twine" check --strict "$WORK"/dist/*
WHEEL="$(ls "$WORK"/dist/tris_envs-*.whl)"
SDIST="$(ls "$WORK"/dist/tris_envs-*.tar.gz)"

step "install $(basename "$WHEEL")[train,jax] into a fresh environment"
"$PYTHON" -m venv "$WORK/env"
BIN="$WORK/env/bin"
"$BIN/pip" install -q --upgrade pip
TORCH_ARGS="$("$PYTHON" "$ROOT/tools/torch_index.py")"
# shellcheck disable=SC2086  # TORCH_ARGS is empty or "--index-url URL"
"$BIN/pip" install -q $TORCH_ARGS "torch==2.13.0"
"$BIN/pip" install -q "$WHEEL[train,jax]"

# everything below runs outside the checkout, on the installed package only
cd "$WORK"
export SDL_VIDEODRIVER=dummy
step "every environment created and played"
"$BIN/python" - <<'EOF'
import gymnasium
import numpy as np

import tris_envs
from tris_envs.games import GAMES

assert "site-packages" in tris_envs.__file__, tris_envs.__file__
rng = np.random.default_rng(0)
for name, spec in GAMES.items():
    env = tris_envs.make_env(name, render_mode="ansi")
    env.reset(seed=1)
    plies = 0
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        plies += 1
    assert plies > 0 and env.render(), name
    single = gymnasium.make(spec.gymnasium_id)
    single.reset(seed=2)
    print(f"{name}: a game of {plies} plies; {spec.gymnasium_id} made")
EOF
step "tris-envs eval with the shipped az and ppo agents"
"$BIN/tris-envs" eval tant_fant az solver --games 2
"$BIN/tris-envs" eval tris1 ppo random --games 4
"$BIN/tris-envs" eval tris2 ppo random --games 2    # the JAX learner's board network
step "tris-envs train ppo (a few hundred steps, the shipped config) and tris-envs evaluate"
"$BIN/tris-envs" train ppo --game tris1 --timesteps 256 --n-envs 2 --no-progress \
    --out "$WORK/run" --set ppo.n_steps=64 --set ppo.batch_size=64 --set eval.games=2 \
    --set 'eval.opponents=["random"]'
"$BIN/tris-envs" evaluate "$WORK/run/final.pt" --game tris1 --games 2 --opponents random,solver
step "tris-envs train az (two iterations of a tiny network, the shipped demo config on Tris 1)"
"$BIN/tris-envs" train az --config demo --game tris1 --envs 4 --steps 2 --simulations 2 --batch 8 \
    --width 4 --blocks 1 --iterations 2 --checkpoint-every 2 --eval-games 2 \
    --opponents random --out "$WORK/az" --quiet
"$BIN/tris-envs" eval tris1 "az:$WORK/az/final.npz:10" random --games 2
step "tris-envs train az --recipe az_tris1 --check (the shipped recipe's matches)"
"$BIN/tris-envs" train az --recipe az_tris1 --check
"$BIN/tris-envs" train ppo --help >/dev/null
"$BIN/tris-envs" train az --help >/dev/null
"$BIN/python" -m tris_envs --help >/dev/null
step "tris-envs bench without the render extra names it"
if "$BIN/tris-envs" bench --steps 10 --rounds 1 >"$WORK/bench.out" 2>&1; then
    echo "tris-envs bench ran without pygame"; exit 1
fi
grep -q "pip install 'tris_envs\[render\]'" "$WORK/bench.out" || { cat "$WORK/bench.out"; exit 1; }
step "install $(basename "$SDIST")[dev,render] into a fresh environment and run its tests"
"$PYTHON" -m venv "$WORK/sdist-env"
"$WORK/sdist-env/bin/pip" install -q --upgrade pip
"$WORK/sdist-env/bin/pip" install -q "$SDIST[dev,render]"
mkdir "$WORK/sdist" && tar -xzf "$SDIST" -C "$WORK/sdist"
# pytest (not python -m pytest) keeps the unpacked folder off sys.path: the tests import
# the installed package
(cd "$WORK"/sdist/tris_envs-*/ && "$WORK/sdist-env/bin/pytest" -x -q -n 2 -p no:cacheprovider \
    tests/conformance tests/test_first_use.py tests/test_ansi_colors_and_import_cost.py)
step "passed"
