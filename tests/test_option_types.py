"""Every game declares what each of its options takes, and its constructor agrees."""

from __future__ import annotations

import ast

import pytest

from tris_envs.core.options import Choice, Digits, Flag, Integer, Text
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


@pytest.mark.parametrize("name", list(GAMES))
def test_every_option_set_goes_through_its_parameter_form_and_back(name: str) -> None:
    """Each option's declaration writes its value as a plain parameter (``bool``, ``int``
    or ``str``, what OpenSpiel takes) and reads it back to the same game."""
    spec = GAMES[name]
    types = spec.game_class.OPTION_TYPES
    for options in spec.option_sets:
        given = spec.make(**options).options()
        written = {option: types[option].to_parameter(value) for option, value in given.items()}
        assert all(type(p) in (bool, int, str) for p in written.values()), written
        read = {option: types[option].from_parameter(p) for option, p in written.items()}
        assert spec.make(**read).options() == given


def test_the_parameter_forms_of_none_words_and_digits() -> None:
    assert Integer(3, none="no limit").to_parameter(None) == 0
    assert Integer(3, none="no limit").from_parameter(0) is None
    assert Integer(1).from_parameter(0) == 0           # no None: 0 is 0 (the core refuses it)
    with pytest.raises(ValueError, match="must lie outside 0..9"):
        Integer(0, 9, none="off")
    words = Text("none", "('a', 'b')", words=True)
    assert words.to_parameter(("4,1,S", "0,2,N")) == "4,1,S 0,2,N"
    assert words.from_parameter("4,1,S 0,2,N") == ["4,1,S", "0,2,N"]
    assert words.from_parameter("") is None and Text("x", "y").to_parameter(None) == ""
    layout = Choice(("ordered",), "numbers", Digits("3456789ab", 3))
    assert layout.to_parameter((3, 11, 10)) == "3ba"
    assert layout.from_parameter("3ba") == (3, 11, 10)
    assert layout.from_parameter("ordered") == "ordered"
    assert layout.from_parameter("spiral") == "spiral"   # the core says what it takes
    with pytest.raises(ValueError, match="numbers 3-11"):
        layout.to_parameter((2, 3))
    with pytest.raises(ValueError, match="no parameter form"):
        Choice(("a",)).to_parameter((1, 2))
