"""Every game declares what each of its options takes, and its constructor agrees."""

from __future__ import annotations

import ast

import pytest

from tris_envs.core.options import Choice, Flag, Integer, Text
from tris_envs.games import GAMES


@pytest.mark.parametrize("name", list(GAMES))
def test_every_option_is_declared_and_the_constructor_agrees(name: str) -> None:
    cls = GAMES[name].game_class
    assert set(cls.OPTION_TYPES) == set(cls.OPTIONS)
    for option, kind in cls.OPTION_TYPES.items():
        default = cls.OPTIONS[option]
        if isinstance(kind, Choice):
            assert default in kind.values
            for value in kind.values:
                assert cls(**{option: value}).options()[option] == value
            with pytest.raises(ValueError, match=option):
                cls(**{option: "no-such-value"})
        elif isinstance(kind, Flag):
            assert isinstance(default, bool)
            for value in (False, True):
                assert cls(**{option: value}).options()[option] is value
            with pytest.raises(ValueError, match=option):
                cls(**{option: "yes"})
        elif isinstance(kind, Integer):
            assert default is None if kind.none else isinstance(default, int)
            assert cls(**{option: kind.minimum}).options()[option] == kind.minimum
            with pytest.raises(ValueError, match=option):
                cls(**{option: kind.minimum - 1})
            if not kind.none:
                with pytest.raises(ValueError, match=option):
                    cls(**{option: None})
        else:
            assert isinstance(kind, Text) and default is None and kind.none
            example = kind.example
            value = ast.literal_eval(example) if example[0] in "([" else example
            cls(**{option: value})
        assert set(kind.to_data()) >= {"type"}
