"""The registry is the one place that knows the games: everything else derives from it."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import pettingzoo
import pytest

import tris_envs
from tris_envs import cli
from tris_envs.games import GAMES, game_spec, make_game

from cases import SPECS, module_of


def test_importing_the_rules_imports_no_framework():
    code = ("import sys, tris_envs.games as g; g.make_game('tris2'); "
            "import tris_envs, tris_envs.core, tris_envs.agents, tris_envs.cli; "
            "loaded = {'pettingzoo', 'gymnasium', 'torch', 'jax', 'ray'} & set(sys.modules); "
            "assert not loaded, loaded")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("spec", SPECS)
def test_every_entry_is_wired_everywhere(spec):
    module = module_of(spec)
    game = spec.make()
    assert game.info.name == spec.name and isinstance(game, spec.game_class)
    assert module.raw_env.game_class is spec.game_class
    assert module.raw_env.metadata["name"] == spec.env_name
    assert getattr(tris_envs, spec.env_name) is module
    assert pettingzoo.make("aec", spec.pettingzoo_id).unwrapped.game.info.name == spec.name
    assert gymnasium.make(spec.gymnasium_id).unwrapped.game.info.name == spec.name
    assert tris_envs.make_env(spec.name).unwrapped.game.info.name == spec.name
    for alias in (spec.name, spec.env_name, f"{spec.name}-v{spec.version}"):
        assert game_spec(alias) is spec
        assert make_game(alias).options() == game.options()
    assert any(spec.make(**options).options() == game.options()
               for options in spec.option_sets), "the defaults are among the option sets"


def test_cli_offers_exactly_the_registered_games():
    assert cli.GAMES == list(GAMES)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["eval", "chess", "random", "random"])
    assert exit_.value.code == 2


def test_cli_main_returns_zero_on_success(capsys):
    assert cli.main(["eval", "tris1", "random", "random", "--games", "2"]) == 0
    assert "random" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["chess", "", "tris2_v1", None, "x" * 10_000])
def test_unknown_games_are_refused_with_the_list(name):
    with pytest.raises(ValueError, match="unknown game .*; choose one of tris2, tris1") as error:
        game_spec(name)
    assert len(str(error.value)) < 300
