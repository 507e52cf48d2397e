"""Game options: their declared types, and validation with messages that list the allowed
values.

Each game declares beside its options what each one takes (``Game.OPTION_TYPES``: a
:class:`Choice`, :class:`Flag`, :class:`Integer` or :class:`Text`), so that a form (the
browser app's setup) can offer the right control; the game's constructor still validates
every value. Integer options take any integral number (``int``, NumPy integers, other
``numbers.Integral``) and store it as a Python ``int``; booleans are never integers here.
"""

from __future__ import annotations

import ast
import numbers
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from tris_envs.core.errors import brief

T = TypeVar("T")


@dataclass(frozen=True)
class Choice:
    """An option taking one of ``values``; ``other`` says in words what else it takes, given
    as text (Tritoc's layout: ``"81 numbers 3-11"``), empty when nothing else."""

    values: tuple[Any, ...]
    other: str = ""

    def to_data(self) -> dict[str, Any]:
        """The declaration as JSON data."""
        return {"type": "choice", "values": list(self.values), "other": self.other}


@dataclass(frozen=True)
class Flag:
    """An option that is ``True`` or ``False``."""

    def to_data(self) -> dict[str, Any]:
        """The declaration as JSON data."""
        return {"type": "flag"}


@dataclass(frozen=True)
class Integer:
    """An integer option from ``minimum`` to ``maximum`` (``None``: no upper bound);
    ``none``, when not empty, says what the value ``None`` means (Tris 2's ``max_side``:
    ``"no limit"``)."""

    minimum: int
    maximum: int | None = None
    none: str = ""

    def to_data(self) -> dict[str, Any]:
        """The declaration as JSON data."""
        return {"type": "integer", "minimum": self.minimum, "maximum": self.maximum,
                "none": self.none}


@dataclass(frozen=True)
class Text:
    """An option written as text (a Python literal where it is not a plain string), whose
    default ``None`` means ``none``; ``example`` is a value it takes."""

    none: str
    example: str

    def to_data(self) -> dict[str, Any]:
        """The declaration as JSON data."""
        return {"type": "text", "none": self.none, "example": self.example}


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
