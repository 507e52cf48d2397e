"""Validation of game options, with messages that list the allowed values."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, TypeVar

T = TypeVar("T")


def check_choice(name: str, value: T, allowed: Collection[T]) -> T:
    """Return ``value`` if it is one of ``allowed``, else raise ``ValueError``."""
    if isinstance(value, bool) or value not in allowed:
        listed = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"option {name}={value!r} is not allowed; choose one of {listed}")
    return value


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` if it is a ``bool``, else raise ``ValueError``."""
    if not isinstance(value, bool):
        raise ValueError(f"option {name}={value!r} must be True or False")
    return value


def check_positive_int(name: str, value: Any, minimum: int = 1) -> int:
    """Return ``value`` if it is an ``int`` >= ``minimum``, else raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"option {name}={value!r} must be an integer >= {minimum}")
    return value
