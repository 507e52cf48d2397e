"""Doppia scelta's text without escape codes unless colors are asked for, and what
``import tris_envs`` imports (the Gymnasium ids and their documented cost)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from tris_envs import doppia_scelta_v0
from tris_envs.games.doppia_scelta.drawing import color_wanted, render_text

ESC = "\x1b"


@pytest.fixture
def plain_stdout(monkeypatch):
    """Standard output that is not a terminal, and no color variables set."""
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    return monkeypatch


def _rendered() -> str:
    env = doppia_scelta_v0.env(render_mode="ansi")
    env.reset(seed=3)
    for _ in range(12):                        # color some cells, robots on the board
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            break
        env.step(int(obs["action_mask"].nonzero()[0][0]))
    return env.render()


def test_ansi_render_is_plain_text_by_default(plain_stdout):
    text = _rendered()
    assert ESC not in text
    assert any(letter in text for letter in "YGR")      # the colors as letters
    assert "White △▷▽◁" in text


def test_colors_when_asked_for(plain_stdout):
    plain = _rendered()
    plain_stdout.setenv("FORCE_COLOR", "1")
    colored = _rendered()
    assert "\x1b[30;" in colored and colored.count("\x1b[0m") >= 1
    # the same text once the escape codes are taken out
    stripped = colored
    for code in ("\x1b[30;43m", "\x1b[30;47m", "\x1b[30;41m", "\x1b[0m"):
        stripped = stripped.replace(code, "")
    assert [line.rstrip() for line in stripped.splitlines()] == plain.splitlines()
    plain_stdout.setenv("NO_COLOR", "1")          # NO_COLOR wins, as in Python's own
    assert ESC not in _rendered()


@pytest.mark.parametrize(("env", "tty", "wanted"), [
    ({}, False, False),
    ({}, True, True),
    ({"FORCE_COLOR": "1"}, False, True),
    ({"FORCE_COLOR": ""}, False, False),            # empty means unset
    ({"NO_COLOR": "1"}, True, False),
    ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),
    ({"TERM": "dumb"}, True, False),
])
def test_color_wanted_follows_pythons_rules(plain_stdout, env, tty, wanted):
    for name, value in env.items():
        plain_stdout.setenv(name, value)

    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return tty

    plain_stdout.setattr(sys, "stdout", Stream())
    assert color_wanted() is wanted


def test_explicit_color_argument_overrides_the_environment(plain_stdout):
    plain_stdout.setenv("FORCE_COLOR", "1")
    env = doppia_scelta_v0.env()
    env.reset(seed=1)
    game, state = env.unwrapped.game, env.unwrapped.game_state
    state = game.apply(state, game.legal_actions(state)[0])
    assert ESC not in render_text(game, state, color=False)
    plain_stdout.delenv("FORCE_COLOR")
    assert ESC in render_text(game, state, color=True)


def test_import_tris_envs_stays_free_of_gymnasium_and_pettingzoo():
    """``import tris_envs`` registers Gymnasium's ids only where Gymnasium is imported
    (tests/test_gym_registration.py); alone it imports neither library."""
    code = ("import sys, tris_envs\n"
            "print(sorted(m for m in ('gymnasium', 'pettingzoo', 'torch') if m in sys.modules))\n"
            "import tris_envs.envs, gymnasium\n"
            "print('tris_envs/TantFant-v0' in gymnasium.registry)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "True"]
