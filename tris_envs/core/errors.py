"""Exceptions raised by the rules core and environments, and how messages quote input."""

from __future__ import annotations

from typing import Any


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state.

    The message names the action, what it would do and why it is illegal. The state the
    action was tried on is left unchanged.
    """


QUOTE_LIMIT = 60
"""Characters of a user's input that an error message quotes at most."""


def brief(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)``, cut to ``limit`` characters (with the full length) when longer.

    Error messages quote user input through this, so a megabyte of bad input does not
    become a megabyte of message.
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"
