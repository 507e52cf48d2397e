"""The play-time search settings of the ``az`` agents, one table from the learner's config
(its ``[play]`` table) through a network file's header (its ``"search"`` table) to the
search (:class:`~tris_envs.agents.az.AZAgent`).

Each setting has one name and one default, declared here; a header or a ``[play]`` table
holds only the settings that differ from these defaults.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

from tris_envs.core.errors import brief
from tris_envs.settings import LIMITS, flag, integer, number, setting


def _discount(value: Any) -> str | None:
    """A number in (0, 1]."""
    return "must be a number in (0, 1]" if number(0, 1)(value) or value == 0 else None


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """How the ``az`` agents search with a network.

    Attributes:
        simulations: Simulations per move; 0 plays the network's likeliest move without
            search.
        batch: New leaves evaluated per network call (with virtual losses), at most
            ``LIMITS["batch"]`` (4096, :data:`~tris_envs.settings.LIMITS`); a search never
            gathers more than its simulations in one call. 1: the plain sequential search,
            where a batch's virtual losses cost a network strength (Tritoc's).
        mix: The share of each new leaf's value taken from one random playout (AlphaGo's
            mixing parameter; 0: the network's value alone), for a network whose values
            are worth less than its priors (Tritoc's).
        decisive: See wins in one: a move that wins at once is played without search, and
            a new node whose player to move can win at once is proven (for a network
            trained with the same check).
        traps: The trap rule's share (0: off): among the root moves the search rates alike,
            play the one that leaves the opponent the largest share of moves handing a win
            in one back (:func:`~tris_envs.agents.az.trap_move`; needs the game's
            ``tactical_moves``); played only on the variant the network was trained on.
        discount: Worth of a return one move later in the search's backups (a network
            trained with the learner's ``discount`` plays with the same).
        exploration: The PUCT constant.
        reuse: Keep the searched tree from move to move: a search starts from the node of
            the previous tree that holds the position (under the move played, then the
            opponent's), its visits kept, and adds its ``simulations`` to them.

    Raises:
        ValueError: a value out of its range (the setting named, one line).
    """

    simulations: int = setting(100, integer(0))
    batch: int = setting(8, integer(1, LIMITS["batch"]))
    mix: float = setting(0.0, number(0, 1))
    decisive: bool = setting(False, flag)
    traps: float = setting(0.0, number(0, 1))
    discount: float = setting(1.0, _discount)
    exploration: float = setting(1.25, number(0))
    reuse: bool = setting(False, flag)

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            problem = field.metadata["check"](value)
            if problem:
                raise ValueError(f"search setting {field.name}={brief(value, 60)} {problem}")
            if field.type == "float":
                object.__setattr__(self, field.name, float(value))

    def changed(self) -> dict[str, Any]:
        """The settings that differ from the defaults (what a header or a table holds)."""
        default = SearchSettings()
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name) != getattr(default, f.name)}

    @classmethod
    def from_table(cls, table: dict[str, Any], where: str) -> SearchSettings:
        """The settings of a table (a header's ``"search"``, a config's ``[play]``), the
        others at their defaults; ``where`` starts every error (``"network 'x.npz': header
        field search."``).

        Raises:
            ValueError: an unknown key or a bad value, in one line naming it.
        """
        known = [f.name for f in dataclasses.fields(cls)]
        for key in table:
            if key not in known:
                shown = (key if isinstance(key, str) and key.isidentifier() and len(key) <= 60
                         else brief(key, 60))
                raise ValueError(f"{where}{shown} is not a search setting ({', '.join(known)})")
        checks = {f.name: f.metadata["check"] for f in dataclasses.fields(cls)}
        for key, value in table.items():
            problem = checks[key](value)
            if problem:
                raise ValueError(f"{where}{key}={brief(value, 60)} {problem}")
        return cls(**table)


SPEC_SETTINGS = tuple(f.name for f in dataclasses.fields(SearchSettings)
                      if f.name != "simulations")
"""The settings an ``az`` agent spec sets after its budget (``az:1600:exploration=0.6``);
the budget is the spec's simulations."""

_TYPES = {f.name: str(f.type) for f in dataclasses.fields(SearchSettings)}


def check_setting(name: Any, value: Any) -> None:
    """Refuse a pair that is not a setting of :data:`SPEC_SETTINGS` and one of its values.

    Raises:
        ValueError: an unknown name, or a value :class:`SearchSettings` refuses (of another
            type, out of range); one line naming the setting.
    """
    _known(name)
    SearchSettings.from_table({name: value}, "search setting ")


def _known(name: Any) -> None:
    """``ValueError`` unless ``name`` is one of :data:`SPEC_SETTINGS`."""
    if name not in SPEC_SETTINGS:
        raise ValueError(f"{brief(name)} is not a search setting a spec sets "
                         f"({', '.join(SPEC_SETTINGS)})")


def read_setting(name: str, text: str) -> Any:
    """The value of search setting ``name`` written as ``text`` (``"0.6"``, ``"1"``,
    ``"true"``), checked by :func:`check_setting`.

    Raises:
        ValueError: a name not of :data:`SPEC_SETTINGS`, a text of no value of the setting's
            type, or a value out of its range; one line naming the setting.
    """
    _known(name)
    kind = _TYPES[name]
    value: Any = None
    if kind == "bool":
        value = {"true": True, "false": False}.get(text)
    elif kind == "int":
        value = int(text) if text.isascii() and text.isdigit() else None
    else:
        with contextlib.suppress(ValueError):
            value = float(text)
    if value is None:
        what = {"bool": "true or false", "int": "an integer"}.get(kind, "a number")
        raise ValueError(f"search setting {name}={brief(text, 60)} must be {what}")
    check_setting(name, value)
    return value


def setting_text(value: Any) -> str:
    """``value`` as :func:`read_setting` reads it back: ``true``, ``8``, ``0.6``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    short = f"{value:g}" if isinstance(value, float) else str(value)
    return short if isinstance(value, int) or float(short) == value else repr(value)
