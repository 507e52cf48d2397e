"""Validation of game options, with messages that list the allowed values.

Integer options take any integral number (``int``, NumPy integers, other
``numbers.Integral``) and store it as a Python ``int``; booleans are never integers here.
"""

from __future__ import annotations

import ast
import numbers
from collections.abc import Collection
from typing import Any, TypeVar

import numpy as np

from tris_envs.core.errors import brief

T = TypeVar("T")


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
