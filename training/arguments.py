"""The training scripts' command line: one dataclass's fields as flags (CleanRL's style).

``run(main, Args)`` gives each field ``name`` of the dataclass ``Args`` a flag ``--name``
(underscores as dashes) of the field's type and default, its help the ``help`` of the
field's metadata, then calls ``main(args)``; a bad value (``ValueError``) or file
(``OSError``) ends it with one line and exit status 2, as the ``tris-envs`` commands do.
"""

import argparse
import dataclasses
import typing
from collections.abc import Callable
from typing import Any


def run(main: Callable[[Any], None], cls: type, argv: list[str] | None = None) -> None:
    """``main`` called with an instance of the dataclass ``cls`` read from ``argv``
    (default: ``sys.argv``)."""
    parser = argparse.ArgumentParser(description=(cls.__doc__ or "").split("\n")[0])
    types = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        kind = types[field.name]
        flag = f"--{field.name.replace('_', '-')}"
        helped = f"{field.metadata.get('help', '')} (default {field.default})".lstrip()
        if kind is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction,
                                default=field.default, help=helped)
        else:
            parser.add_argument(flag, type=kind, default=field.default, help=helped)
    args = cls(**vars(parser.parse_args(argv)))
    try:
        main(args)
    except (ValueError, OSError, ImportError) as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
