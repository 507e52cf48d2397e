"""Exceptions raised by the rules core and environments."""


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state.

    The message names the action, what it would do and why it is illegal. The state the
    action was tried on is left unchanged.
    """
