"""Game options: their declared types, and validation with messages that list the allowed
values.

Each game declares beside its options what each one takes (``Game.OPTION_TYPES``: a
:class:`Choice`, :class:`Flag`, :class:`Integer` or :class:`Text`), so that a form (the
browser app's setup) can offer the right control; the game's constructor still validates
every value. Integer options take any integral number (``int``, NumPy integers, other
``numbers.Integral``) and store it as a Python ``int``; booleans are never integers here.

Integrations whose parameters are plain values (OpenSpiel's: a ``bool``, ``int`` or ``str``
each) write and read every option through its declaration (``to_parameter`` and
``from_parameter``): ``None`` is ``""`` for a :class:`Text` and :attr:`Integer.none_as` for an
:class:`Integer`, a :class:`Text` of ``words`` is the words separated by spaces, and a
:class:`Choice`'s other values are written as its :class:`Digits`. A parameter read back is
still validated by the game's constructor.
"""

from __future__ import annotations

import ast
import numbers
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from tris_envs.core.errors import brief

T = TypeVar("T")

Parameter = bool | int | str
"""An option's value as a plain parameter of an integration (OpenSpiel's game parameters)."""


@dataclass(frozen=True)
class Digits:
    """A sequence of numbers written as text, one character each: ``characters[n - first]``
    (Tritoc's layouts: ``Digits("3456789ab", 3)``)."""

    characters: str
    first: int

    def write(self, numbers: Sequence[int]) -> str:
        """The text of ``numbers``; ``ValueError`` for a number without a character."""
        last = self.first + len(self.characters) - 1
        if not all(isinstance(n, int) and self.first <= n <= last for n in numbers):
            raise ValueError(f"{brief(numbers)} is not a sequence of numbers "
                             f"{self.first}-{last}")
        return "".join(self.characters[n - self.first] for n in numbers)

    def reads(self, text: str) -> bool:
        """Whether ``text`` is written in these characters (and not empty)."""
        return bool(text) and set(text) <= set(self.characters)

    def read(self, text: str) -> tuple[int, ...]:
        """The numbers ``text`` stands for (its characters checked by :meth:`reads`)."""
        return tuple(self.first + self.characters.index(c) for c in text)


@dataclass(frozen=True)
class Choice:
    """An option taking one of ``values``; ``other`` says in words what else it takes, given
    as text (Tritoc's layout: ``"81 numbers 3-11"``), empty when nothing else, and
    ``written`` how those other values (sequences of numbers) are written as a parameter."""

    values: tuple[Any, ...]
    other: str = ""
    written: Digits | None = None

    def to_data(self) -> dict[str, Any]:
        """The declaration as JSON data."""
        return {"type": "choice", "values": list(self.values), "other": self.other}

    def to_parameter(self, value: Any) -> Parameter:
        """``value`` as a parameter: one of :attr:`values`, or an other value as
        :attr:`written`."""
        if isinstance(value, (bool, int, str)):
            return value
        if self.written is None:
            raise ValueError(f"{brief(value)} is none of {self.values} and has no parameter form")
        return self.written.write(value)

    def from_parameter(self, parameter: Parameter) -> Any:
        """The value ``parameter`` stands for: itself, or the numbers it writes."""
        if (self.written is not None and isinstance(parameter, str)
                and parameter not in self.values and self.written.reads(parameter)):
            return self.written.read(parameter)
        return parameter


@dataclass(frozen=True)
class Flag:
    """An option that is ``True`` or ``False``."""

    def to_data(self) -> dict[str, Any]:
        """The declaration as JSON data."""
        return {"type": "flag"}

    def to_parameter(self, value: Any) -> Parameter:
        """``value`` itself."""
        return bool(value)

    def from_parameter(self, parameter: Parameter) -> Any:
        """``parameter`` itself."""
        return parameter


@dataclass(frozen=True)
class Integer:
    """An integer option from ``minimum`` to ``maximum`` (``None``: no upper bound);
    ``none``, when not empty, says what the value ``None`` means (Tris 2's ``max_side``:
    ``"no limit"``), and ``none_as`` is the integer, outside the range, that stands for
    ``None`` as a parameter (0 unless given)."""

    minimum: int
    maximum: int | None = None
    none: str = ""
    none_as: int = 0

    def __post_init__(self) -> None:
        upper = self.none_as if self.maximum is None else self.maximum
        if self.none and self.minimum <= self.none_as <= upper:
            raise ValueError(f"Integer: none_as={self.none_as} must lie outside "
                             f"{self.minimum}..{self.maximum}, so that it stands for None")

    def to_data(self) -> dict[str, Any]:
        """The declaration as JSON data."""
        return {"type": "integer", "minimum": self.minimum, "maximum": self.maximum,
                "none": self.none}

    def to_parameter(self, value: Any) -> Parameter:
        """``value``, or :attr:`none_as` for ``None``."""
        return self.none_as if value is None and self.none else value

    def from_parameter(self, parameter: Parameter) -> Any:
        """``parameter``, or ``None`` for :attr:`none_as`."""
        return None if self.none and parameter == self.none_as else parameter


@dataclass(frozen=True)
class Text:
    """An option written as text (a Python literal where it is not a plain string), whose
    default ``None`` means ``none``; ``example`` is a value it takes. With ``words`` the
    value is a sequence of words (Doppia scelta's gates), a parameter the words separated by
    spaces."""

    none: str
    example: str
    words: bool = False

    def to_data(self) -> dict[str, Any]:
        """The declaration as JSON data."""
        return {"type": "text", "none": self.none, "example": self.example}

    def to_parameter(self, value: Any) -> Parameter:
        """``value`` as text: ``""`` for ``None``, the words joined by spaces."""
        if value is None:
            return ""
        return " ".join(value) if self.words and not isinstance(value, str) else value

    def from_parameter(self, parameter: Parameter) -> Any:
        """The value of the text ``parameter``: ``None`` for ``""``, else the text or its
        words."""
        if parameter == "":
            return None
        return parameter.split() if self.words and isinstance(parameter, str) else parameter


OptionType = Choice | Flag | Integer | Text
"""What one option takes, as a game declares it in ``OPTION_TYPES``."""


def check_choice(name: str, value: T, allowed: Collection[T]) -> T:
    """Return ``value`` if it is one of ``allowed``, else raise ``ValueError``.

    Only the values themselves pass: neither a boolean nor a non-integral number that
    compares equal to one (``True`` or ``1.0`` for ``1``)."""
    inexact = isinstance(value, numbers.Number) and not isinstance(value, numbers.Integral)
    if (isinstance(value, (bool, np.bool_)) or inexact or not _hashable(value)
            or value not in allowed):
        listed = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"option {name}={brief(value)} is not allowed; choose one of {listed}")
    return value


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` as a ``bool`` if it is one (NumPy's too), else raise ``ValueError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"option {name}={brief(value)} must be True or False")
    return bool(value)


def check_int(name: str, value: Any, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an ``int`` if it is integral and in range, else ``ValueError``."""
    number = (None if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral)
              else int(value))
    if number is None or number < minimum or (maximum is not None and number > maximum):
        bound = f"from {minimum} to {maximum}" if maximum is not None else f">= {minimum}"
        raise ValueError(f"option {name}={brief(value)} must be an integer {bound}")
    return number


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """``["stalemate=loss", "diagonal_only=True"]`` -> options (Python literals or text).

    A value that is no Python literal stays text (the game then says what it expects),
    also one nested too deeply to parse (``max_moves=------1``)."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--option {brief(pair)}: expected name=value, e.g. stalemate=loss")
        try:
            options[key] = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            options[key] = value
    return options
