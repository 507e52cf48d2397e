"""The ``tris-envs`` command line: play, eval, tournament, replay, bench, train, evaluate,
watch."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tris_envs.agents.factory import AGENT_HELP
from tris_envs.core.errors import brief
from tris_envs.core.options import parse_options
from tris_envs.games import GAMES as REGISTRY
from tris_envs.ppo.commands import add_evaluate_arguments, add_trust_pickle_argument
from tris_envs.watch import DESCRIPTION as WATCH_DESCRIPTION

if TYPE_CHECKING:
    from tris_envs.core.game import Game
    from tris_envs.evaluation.records import GameRecord

GAMES = list(REGISTRY)

__all__ = ["main", "parse_options"]


def _at_least(least: int) -> Any:
    """An argparse ``type``: an integer of at least ``least`` (argparse names the option)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < least:
            raise argparse.ArgumentTypeError(f"must be an integer >= {least}, got {brief(text)}")
        return value

    parse.__name__ = f"integer >= {least}"
    return parse


class _Version(argparse.Action):
    """``--version``: the installed package's version (read only when asked for)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        import tris_envs

        print(f"{parser.prog} {tris_envs.__version__}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tris-envs", description="Play, evaluate and benchmark the tris_envs games.",
        epilog="tris-envs COMMAND --help describes a command; make demo (in a checkout) "
               "trains an agent.")
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    game_help = f"one of {', '.join(GAMES)}"
    option_help = "game option name=value (repeatable), e.g. --option stalemate=loss"

    with_agents: dict[str, Any] = {"epilog": AGENT_HELP,
                                   "formatter_class": argparse.RawDescriptionHelpFormatter}
    play = commands.add_parser("play", help="play a game in the terminal against an agent",
                               **with_agents)
    play.add_argument("game", choices=GAMES, metavar="game", help=game_help)
    play.add_argument("--opponent", default="mcts", metavar="AGENT",
                      help="the agent you play against (default: mcts, 1000 simulations "
                           "per move); specs below")
    play.add_argument("--first", action="store_true", help="you move first (seat 0)")
    play.add_argument("--no-warn", action="store_true",
                      help="play a move that gives up the game's value (by the solver) "
                           "without the warning")
    play.add_argument("--seed", type=int, default=None, help="seed of the game's dice and "
                                                                 "the agent (default: random)")
    play.add_argument("--option", action="append", help=option_help)
    add_trust_pickle_argument(play)

    evaluate = commands.add_parser("eval", help="a match between two agents", **with_agents)
    evaluate.add_argument("game", choices=GAMES, metavar="game", help=game_help)
    evaluate.add_argument("agents", nargs=2, metavar="agent",
                          help="two agent specs (below), e.g. greedy mcts:100")
    evaluate.add_argument("--games", type=int, default=100,
                          help="games, seats alternating (default 100)")
    evaluate.add_argument("--seed", type=int, default=0, help="seed of the match (default 0)")
    evaluate.add_argument("--processes", type=int, default=1, help=PROCESSES_HELP)
    evaluate.add_argument("--ray", nargs="?", const=True, default=False, metavar="ADDRESS",
                          help=RAY_HELP)
    evaluate.add_argument("--option", action="append", help=option_help)
    evaluate.add_argument("--metrics", action="store_true", help=METRICS_HELP)
    evaluate.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    _journal_arguments(evaluate)
    add_trust_pickle_argument(evaluate)

    tournament = commands.add_parser("tournament", help="round robin between agents",
                                     **with_agents)
    tournament.add_argument("game", choices=GAMES, metavar="game", help=game_help)
    tournament.add_argument("agents", nargs="+", metavar="agent",
                            help="two or more agent specs (below)")
    tournament.add_argument("--games", type=int, default=100,
                            help="games per pair, seats alternating (default 100)")
    tournament.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    tournament.add_argument("--processes", type=int, default=1, help=PROCESSES_HELP)
    tournament.add_argument("--ray", nargs="?", const=True, default=False, metavar="ADDRESS",
                            help=RAY_HELP)
    tournament.add_argument("--heatmap", metavar="PNG", help="also write a heat map")
    tournament.add_argument("--option", action="append", help=option_help)
    tournament.add_argument("--metrics", action="store_true", help=METRICS_HELP)
    tournament.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    _journal_arguments(tournament)
    add_trust_pickle_argument(tournament)

    replay = commands.add_parser("replay", help="recorded games as one HTML page")
    replay.add_argument("records", help="a --records file of eval/tournament, or a JSON "
                                        "list of game records")
    replay.add_argument("--html", required=True, metavar="PAGE", help="the page to write")
    replay.add_argument("--title", default="", help="the page's title")

    bench = commands.add_parser("bench", help="throughput vs tictactoe_v3 and solver times")
    bench.add_argument("--steps", type=int, default=20_000, help="steps per timed round")
    bench.add_argument("--rounds", type=int, default=3, help="rounds; the best is kept")
    bench.add_argument("--env", action="append",
                       choices=[spec.env_name for spec in REGISTRY.values()],
                       help="environment to time (repeatable; default all)")
    bench.add_argument("--mcts-simulations", type=int, default=2000,
                       help="simulations per MCTS search timed (0: skip MCTS)")
    bench.add_argument("--mcts", action="store_true",
                       help="only the MCTS section: ours beside OpenSpiel's MCTSBot on the "
                            "same games and positions (needs the openspiel extra)")
    bench.add_argument("--openspiel-simulations", type=int,
                       help="simulations per search of the comparison with OpenSpiel "
                            "(default: tris_envs.benchmark.OPENSPIEL_SIMULATIONS)")
    bench.add_argument("--jax", action="store_true",
                       help="instead: the JAX games at batch 1, 64 and 1,024 beside Pgx's "
                            "tic_tac_toe and connect_four (needs the jax extra)")
    bench.add_argument("--learner", action="store_true",
                       help="instead: the AlphaZero learner's self-play search with mctx's "
                            "backups and with the batched ones (needs the jax extra)")
    train = commands.add_parser(
        "train", help="train a network: tris-envs train ppo|az|wary --help",
        description="Train a network; the arguments after the learner are its own "
                    "(tris-envs train ppo --help lists them).")
    train.add_argument("learner", choices=["ppo", "az", "wary"],
                       help="ppo: MaskablePPO with self-play (needs the train extra); az: the "
                            "AlphaZero learner in JAX (needs the jax and train extras); wary: "
                            "teach an az network the wary planes (needs the jax extra)")
    train.add_argument("arguments", nargs=argparse.REMAINDER, help="the learner's arguments")
    checkpoint = commands.add_parser(
        "evaluate", help="a PPO or AlphaZero checkpoint against the baselines, both seats",
        description="Score a MaskablePPO checkpoint (tris-envs train ppo) or an AlphaZero "
                    "network (tris-envs train az) against baselines, both seats, and judge "
                    "its moves where a solver exists.")
    add_evaluate_arguments(checkpoint)
    watch = commands.add_parser("watch", help=WATCH_DESCRIPTION, description=WATCH_DESCRIPTION)
    watch.add_argument("--games", type=_at_least(1), default=200,
                       help="games in the match (default 200)")
    watch.add_argument("--seed", type=_at_least(0), default=0, help="seed (default 0)")
    serve = commands.add_parser(
        "serve", help="play and watch every game in the browser (docs/play.md)",
        description="A local web app: play any game against any agent, or watch two agents; "
                    "hints, undo, records. Open the address it prints.")
    serve.add_argument("--port", type=_at_least(0), default=8000, help="port (default 8000)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--allow-files", metavar="DIR",
                       help="let pages name agent files (ppo:PATH, az:PATH) inside DIR, a "
                            "path taken within it (default: none, only the shipped agents); "
                            "pickled PPO files are never loaded")
    serve.add_argument("--max-simulations", type=_at_least(1), metavar="N",
                       help="the most simulations per move of mcts and az (default 20000)")
    serve.add_argument("--max-seconds", type=float, metavar="S",
                       help="the most seconds per move, and the deadline of every mcts, "
                            "alphabeta and az search (default 10)")
    serve.add_argument("--max-depth", type=_at_least(1), metavar="PLIES",
                       help="the deepest alphabeta search (default 64)")
    return parser


RAY_HELP = ("play the games on a Ray cluster: the one at ADDRESS (e.g. auto, 10.0.0.5:6379), "
            "without ADDRESS the one Ray finds or a new local one (needs "
            "tris_envs[distributed]; docs/distributed.md)")
METRICS_HELP = ("also each agent's blunder and missed-win rates, and its value-keeping moves "
                "where a solver exists, over all its games (games without dice); then its "
                "results by seat with the move each decided game ended on, and by the "
                "solved value of each start where a solver exists")
QUIET_HELP = "no progress bar (it shows only when standard error is a terminal)"
PROCESSES_HELP = ("worker processes (default 1); capped at the number of games and of CPUs, "
                  "with a note when capped")


def _journal_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--records", metavar="FILE",
                        help="write each finished game, with its moves, to FILE (JSON "
                             "lines) as it ends (tris-envs replay shows them); without it a "
                             "temporary file keeps the results and is removed at the end")
    parser.add_argument("--resume", action="store_true",
                        help="continue the interrupted run whose --records FILE is given")
    parser.add_argument("--force", action="store_true",
                        help="overwrite an existing --records FILE (without --resume or "
                             "--force an existing file is refused)")


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``tris-envs``; user errors end with a message, never a traceback.

    Returns:
        The exit status: 0 on success. A usage error exits with 2 (argparse's
        ``SystemExit``), as does a bad value, file or missing extra; Ctrl-C exits with 130.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "train" and args.learner == "ppo":
        from tris_envs.ppo.commands import train_main

        return train_main(args.arguments, prog="tris-envs train ppo")
    if args.command == "train" and args.learner == "wary":
        from tris_envs.alphazero.wary import main as train_wary

        return train_wary(args.arguments, prog="tris-envs train wary")
    if args.command == "train":
        from tris_envs.alphazero.train import main as train_az

        return train_az(args.arguments, prog=f"tris-envs train {args.learner}")
    if args.command == "evaluate":
        from tris_envs.ppo.commands import evaluate

        return evaluate(args, "tris-envs evaluate")
    if getattr(args, "trust_pickle", False):
        from tris_envs.agents.ppo import trust_pickle_specs

        trust_pickle_specs([args.opponent] if args.command == "play" else args.agents)
    from tris_envs.durable import Terminated, sigterm_as_interrupt

    with sigterm_as_interrupt():      # raised like Ctrl-C: worker pools stop on the way out
        try:
            _run(args, parser)
        except (ValueError, OSError, ImportError) as error:
            parser.exit(2, f"tris-envs {args.command}: error: {error}\n")
        except KeyboardInterrupt as interrupt:
            status = 143 if isinstance(interrupt, Terminated) else 130
            parser.exit(status,
                        f"\ntris-envs {args.command}: interrupted{_journal_note(args)}\n")
    return 0


def _journal_note(args: argparse.Namespace) -> str:
    path = getattr(args, "journal", None)
    if path is None or not _holds_header(Path(path)):
        return ""
    games = max(0, len(Path(path).read_text().splitlines()) - 1)
    resume = "" if args.records else f" --records {path}"
    return (f"; the {games} finished games are in {path}: run the same command with"
            f"{resume} --resume to continue")


def _bench(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """``tris-envs bench``: the machine's line (:func:`tris_envs.machine.describe`), then the
    report its flags ask for."""
    if (args.steps < 1 or args.rounds < 1 or args.mcts_simulations < 0
            or (args.openspiel_simulations or 1) < 1):
        parser.error("--steps, --rounds and --openspiel-simulations must be at least 1, "
                     "--mcts-simulations >= 0")
    if args.mcts and args.mcts_simulations < 1:
        parser.error("--mcts needs --mcts-simulations of at least 1")
    from tris_envs.machine import describe

    print(f"Machine: {describe()}", flush=True)
    if args.jax:
        from tris_envs.jax.bench import run as jax_run

        print(jax_run())
    elif args.learner:
        from tris_envs.alphazero.bench import run as learner_run

        print(learner_run())
    else:
        from tris_envs.benchmark import run

        print(run(steps=args.steps, rounds=args.rounds, names=args.env,
                  mcts_simulations=args.mcts_simulations, mcts_only=args.mcts,
                  openspiel_simulations=args.openspiel_simulations))


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    from tris_envs.games import make_game

    if args.command == "bench":
        _bench(args, parser)
    elif args.command == "replay":
        from tris_envs.replay import read_records, write_html

        records = read_records(args.records)
        page = write_html(records, args.html, args.title)
        print(f"{len(records)} game(s) written to {page}")
    elif args.command == "watch":
        from tris_envs.watch import main as watch

        watch(["--games", str(args.games), "--seed", str(args.seed)])
    elif args.command == "serve":
        from tris_envs.web import serve
        from tris_envs.web.session import Limits

        caps = {"simulations": args.max_simulations, "seconds": args.max_seconds,
                "depth": args.max_depth}
        serve(args.host, args.port, Limits(
            files=None if args.allow_files is None else Path(args.allow_files),
            **{name: value for name, value in caps.items() if value is not None}))
    elif args.command == "play":
        from tris_envs.play import play_session

        game = make_game(args.game, **parse_options(args.option))
        play_session(game, args.opponent, 0 if args.first else 1, args.seed,
                     warn=not args.no_warn)
    elif args.command == "eval":
        from tris_envs.evaluation import play_match
        from tris_envs.progress import Progress

        game = _game_for_metrics(args)
        with _journal(args, args.games) as journal, Progress(
                f"eval {args.game}", args.games, quiet=args.quiet) as progress:
            first, second = args.agents
            result = play_match(game, first, second, n_games=args.games, seed=args.seed,
                                processes=args.processes, ray=args.ray,
                                keep_records=args.metrics or bool(args.records),
                                records=journal, resume=args.resume, overwrite=args.force,
                                progress=progress.advance)
            progress.close(f"score {result.score:.1%}")
        print(result)
        if args.metrics:
            _print_metrics(game, result.names, result.records)
    elif args.command == "tournament":
        from tris_envs.evaluation import round_robin
        from tris_envs.progress import Progress

        game = _game_for_metrics(args)
        heatmap = _heatmap_path(args.heatmap) if args.heatmap else None
        pairs = len(args.agents) * (len(args.agents) - 1) // 2
        with _journal(args, args.games * pairs) as journal, Progress(
                f"tournament {args.game}", args.games * pairs, quiet=args.quiet) as progress:
            table = round_robin(game, args.agents, n_games=args.games, seed=args.seed,
                                processes=args.processes, ray=args.ray,
                                keep_records=args.metrics or bool(args.records),
                                records=journal, resume=args.resume, overwrite=args.force,
                                progress=progress.advance)
        print(table.to_markdown())
        if args.metrics:
            _print_metrics(game, table.names,
                           [record for match in table.matches.values()
                            for record in match.records])
        if heatmap is not None:
            print(f"heat map written to {table.heatmap(heatmap)}", file=sys.stderr)


def _heatmap_path(text: str) -> Path:
    """The file ``--heatmap`` writes (``.png`` added to a name without a suffix), checked
    before the tournament is played: a format matplotlib writes, in an existing folder."""
    path = Path(text)
    if path.name in ("", ".", "..") or path.is_dir():
        raise ValueError(f"--heatmap {brief(text)}: a folder; name the picture file")
    if not path.suffix:
        path = path.with_name(path.name + ".png")
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        formats = {"png": ""}
    else:
        formats = FigureCanvasBase.get_supported_filetypes()
    if path.suffix[1:].lower() not in formats:
        raise ValueError(f"--heatmap {brief(text)}: writes {', '.join(sorted(formats))} "
                         "files, by the name's suffix")
    if not path.parent.is_dir():
        raise ValueError(f"--heatmap {brief(text)}: no folder {str(path.parent)!r}")
    return path


def _game_for_metrics(args: argparse.Namespace) -> Game:
    """The game of an ``eval`` / ``tournament`` run; ``--metrics`` refuses games with dice."""
    from tris_envs.games import make_game

    game = make_game(args.game, **parse_options(args.option))
    if args.metrics and not game.info.deterministic:
        raise ValueError(f"--metrics: {args.game} has dice; blunders and missed wins are "
                         "defined for games without dice")
    return game


def _print_metrics(game: Game, names: Sequence[str], records: Sequence[GameRecord]) -> None:
    """One line per agent: :func:`~tris_envs.evaluation.metrics.move_quality` over
    ``records`` (each agent judged on the games it played); then each agent's
    :func:`~tris_envs.evaluation.metrics.outcomes`."""
    from tris_envs.evaluation.metrics import move_qualities, outcomes

    for name, quality in move_qualities(game, records, names).items():
        print(f"{name}: {quality}")
    for name in names:
        for line in outcomes(game, records, name).lines(name):
            print(line)


@contextlib.contextmanager
def _journal(args: argparse.Namespace, games: int) -> Iterator[Path]:
    """The journal file of an ``eval`` / ``tournament`` run (a temporary one unless
    ``--records`` names one, removed unless the run was interrupted); notes a capped pool."""
    from tris_envs.evaluation import pool_size
    from tris_envs.evaluation.journal import JournalWriteError
    from tris_envs.machine import usable_cpus

    if args.resume and not args.records:
        raise ValueError("--resume needs --records FILE (the file the interrupted run named)")
    if args.resume and args.force:
        raise ValueError("--resume continues --records FILE and --force overwrites it: "
                         "give one of them")
    pool = pool_size(args.processes, games)
    if args.processes > 1 and pool < args.processes:
        print(f"note: --processes {args.processes} capped at {pool} (games: {games}, "
              f"CPUs: {usable_cpus()})", file=sys.stderr)
    if args.records:
        args.journal = Path(args.records)
    else:
        handle, name = tempfile.mkstemp(prefix=f"tris-envs-{args.command}-", suffix=".jsonl")
        os.close(handle)
        args.journal = Path(name)
    interrupted = False
    try:
        yield args.journal
    except (KeyboardInterrupt, JournalWriteError):
        # the note on stderr (the error) tells where the finished games are; a temporary
        # journal without even its header line holds nothing to resume
        interrupted = bool(args.records) or _holds_header(args.journal)
        raise
    finally:
        if not args.records and not interrupted:
            args.journal.unlink(missing_ok=True)


def _holds_header(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.readline().endswith(b"\n")
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main())
