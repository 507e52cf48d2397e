"""Each game's capabilities are declared on its ``GameSpec`` and agree with its classes;
code that needs a capability reads the declaration and refuses a game without it in one
line."""

from __future__ import annotations

import importlib
from dataclasses import replace

import pytest

from tris_envs.core.capabilities import CAPABILITIES, Tactical
from tris_envs.games import GAMES, make_game, require, tactics_of

TACTICAL_METHODS = {method for capability in CAPABILITIES.values()
                    for method in capability.tactics}


def _class(path: str) -> type:
    module, _, attribute = path.partition(":")
    cls: type = getattr(importlib.import_module(module), attribute)
    return cls


@pytest.mark.parametrize("name", list(GAMES))
def test_the_declared_capabilities_agree_with_the_classes(name: str) -> None:
    spec = GAMES[name]
    assert spec.capabilities <= set(CAPABILITIES)
    assert not TACTICAL_METHODS & set(dir(spec.game_class))     # the rules carry no tactics
    if spec.tactics:
        tactics = tactics_of(spec.make())
        assert isinstance(tactics, Tactical)
    for capability, promised in CAPABILITIES.items():
        if capability in spec.capabilities:
            assert all(callable(getattr(tactics, m, None)) for m in promised.tactics)
        else:
            with pytest.raises(ValueError, match=f"needs the {capability} capability"):
                spec.require(capability, "it")
    jax_class = _jax_class(spec.jax)
    if jax_class is not None:
        for capability, promised in CAPABILITIES.items():
            has = {m for m in promised.jax if callable(getattr(jax_class, m, None))}
            assert has == (set(promised.jax) if capability in spec.capabilities else set()), \
                capability


def _jax_class(path: str) -> type | None:
    try:
        return _class(path)
    except ImportError:            # the jax extra is not installed
        return None


def test_a_spec_declares_only_known_capabilities_with_its_tactics_class() -> None:
    tris2 = GAMES["tris2"]
    with pytest.raises(ValueError, match="unknown capabilities \\['psychic'\\]"):
        replace(tris2, capabilities=tris2.capabilities | {"psychic"})
    with pytest.raises(ValueError, match="go together"):
        replace(tris2, tactics="")
    with pytest.raises(ValueError, match="need the tactics capability"):
        replace(tris2, capabilities=frozenset({"traps"}), tactics="")


@pytest.mark.parametrize("name", [n for n in GAMES if "tactics" not in GAMES[n].capabilities])
def test_a_game_without_tactics_is_refused_in_one_line(name: str) -> None:
    with pytest.raises(ValueError) as refused:
        tactics_of(make_game(name), "the trap rule")
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("the trap rule needs the tactics capability")
    assert f"which {name!r} does not have; games with it: tris2" in message
    with pytest.raises(ValueError, match="^play_traps = 0.5 needs the tactics capability"):
        require(name, "tactics", "play_traps = 0.5")


def test_the_learner_config_reads_the_declarations() -> None:
    """``load_config`` refuses settings a game cannot honour from the registry's
    declarations, before building any JAX game."""
    train = pytest.importorskip("tris_envs.alphazero.train")
    with pytest.raises(ValueError, match=r"^\[play\] traps = 0.5 needs the tactics capability"):
        train.load_config(None, {"game": "tant_fant", "play": {"traps": 0.5}})
    for key, value, capability in (("decisive", True, "tactics"),
                                   ("tactics", True, "tactics"), ("greedy", 0.5, "tactics")):
        shown = "true" if value is True else value
        with pytest.raises(ValueError, match=f"^{key} = {shown} needs the {capability} "
                                             "capability .*'tant_fant' does not have"):
            train.load_config(None, {"game": "tant_fant", key: value})
    train.load_config(None, {"game": "tris2", "decisive": True, "tactics": True,
                             "play": {"traps": 0.5}})
