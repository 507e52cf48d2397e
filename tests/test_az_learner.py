"""The AlphaZero learner in JAX: tiny runs of every game save networks the ``az`` agents
play; ``--resume`` continues bit for bit; two devices train the same network as one; the
configs parse and bad settings get one clear line."""

from __future__ import annotations

import csv
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mctx")

from tris_envs.agents.az_network import load
from tris_envs.alphazero.train import CONFIG_DIR, Config, config_file, load_config, train
from tris_envs.cli import main as cli_main
from tris_envs.games import GAMES
from tris_envs.machine import describe

TINY = {"envs": 4, "steps": 2, "simulations": 2, "considered": 2, "batch": 8, "width": 4,
        "blocks": 1, "iterations": 3, "checkpoint_every": 2, "eval_games": 2,
        "opponents": ["random"]}
TINY_FLAGS = ["--game", "tris1", "--envs", "4", "--steps", "2", "--simulations", "2",
              "--batch", "8", "--width", "4", "--blocks", "1", "--iterations", "3",
              "--checkpoint-every", "2", "--eval-games", "2", "--opponents", "random"]


def train_az(argv: list[str]) -> int:
    """``tris-envs train az`` with ``argv``: its exit status."""
    return cli_main(["train", "az", *argv])


def tiny(game: str, **changes) -> Config:
    return load_config(None, {"game": game, **TINY} | changes)


def arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {name: data[name] for name in data.files}


def progress(run: Path, training_only: bool = False) -> list[dict[str, str]]:
    """The rows of ``progress.csv`` without the times (and, with ``training_only``, without
    the checkpoints' evaluations)."""
    with (run / "progress.csv").open() as file:
        return [{k: v for k, v in row.items() if k != "seconds" and not (
            training_only and (k.startswith("vs ") or k == "value_kept"))}
            for row in csv.DictReader(file)]


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """Three iterations of Tris 1 in one go (the reference of the resume and device tests)."""
    out = tmp_path_factory.mktemp("straight")
    assert train_az([*TINY_FLAGS, "--out", str(out), "--quiet"]) == 0
    return out


@pytest.mark.parametrize("name", [n for n in GAMES if n != "tris1"])
def test_two_iterations_of_every_game_save_a_network_the_az_agents_play(name, tmp_path):
    from tris_envs.agents import make_agent
    from tris_envs.evaluation import play_match

    options = {"max_moves": 24} if name != "tris2" else {"max_moves": 24, "max_side": 4}
    discount = 0.9 if name == "doppia_scelta" else 1.0
    final = train(tiny(name, iterations=2, options=options, play={"simulations": 3},
                       discount=discount), tmp_path, quiet=True)
    assert {"final.npz", "net_2.npz", "resume.npz", "progress.csv", "config.json",
            "learning_curve.png"} <= {p.name for p in tmp_path.iterdir()}
    rows = progress(tmp_path)
    assert [row["iteration"] for row in rows] == ["1", "2"] and rows[1]["vs random"]
    game = GAMES[name].make(**options)
    network = load(final, game)
    assert (network.config.width, network.search.simulations, network.search.discount) == (
        4, 3, discount)
    for spec in (f"az:{final}:0", f"az:{final}"):
        assert play_match(game, make_agent(spec), "random", n_games=2, seed=0).n_games == 2


def test_the_straight_run_logs_every_iteration_and_scores_the_checkpoints(straight):
    rows = progress(straight)
    assert [row["iteration"] for row in rows] == ["1", "2", "3"]
    assert rows[0]["vs random"] == "" and rows[1]["vs random"] and rows[2]["value_kept"]
    assert {"net_2.npz", "net_3.npz", "final.npz"} <= {p.name for p in straight.iterdir()}


def test_a_run_stopped_at_its_budget_resumes_bit_for_bit(straight, tmp_path):
    out = tmp_path / "run"
    result = subprocess.run([sys.executable, "-m", "tris_envs.cli", "train", "az", *TINY_FLAGS,
                             "--out", str(out), "--minutes", "1e-6"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "stopped at the budget" in result.stdout and "iteration 2/3" not in result.stdout
    assert train_az(["--resume", str(out), "--quiet"]) == 0
    starts = (out / "machine.txt").read_text().splitlines()     # one line per start
    assert [line.split(": ", 1)[0].split(" ", 1)[1] for line in starts] == [
        "from iteration 0", "from iteration 1"]
    assert all(" CPUs" in line for line in starts)
    assert progress(out, training_only=True) == progress(straight, training_only=True)
    reference = arrays(straight / "final.npz")
    again = arrays(out / "final.npz")
    assert again.keys() == reference.keys()
    assert all(np.array_equal(again[k], v) for k, v in reference.items())


def test_two_devices_train_the_network_of_one(straight, tmp_path):
    """The games sharded over two (forced) CPU devices: the same network up to rounding."""
    environment = os.environ | {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    code = ("import jax, sys; from tris_envs.cli import main; "
            "assert jax.device_count() == 2; sys.exit(main(['train', 'az', *sys.argv[1:]]))")
    result = subprocess.run([sys.executable, "-c", code, *TINY_FLAGS, "--out",
                             str(tmp_path), "--quiet"], capture_output=True, text=True,
                            env=environment)
    assert result.returncode == 0, result.stderr
    reference = arrays(straight / "final.npz")
    sharded = arrays(tmp_path / "final.npz")
    for name, weights in reference.items():
        if name != "__config__":
            assert np.allclose(sharded[name], weights, atol=1e-4), name


def test_games_that_do_not_split_over_the_devices_are_refused(tmp_path):
    environment = os.environ | {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    code = ("import sys; from tris_envs.cli import main; "
            "sys.exit(main(['train', 'az', *sys.argv[1:]]))")
    result = subprocess.run([sys.executable, "-c", code, "--game", "tris1", "--envs", "3",
                             "--steps", "8", "--batch", "8", "--out", str(tmp_path)],
                            capture_output=True, text=True, env=environment)
    assert result.returncode == 2 and "envs=3 must be a multiple of the 2 devices" in (
        result.stderr)


def test_config_takes_a_shipped_name_or_a_path(tmp_path):
    assert config_file("demo") == CONFIG_DIR / "demo.toml"
    mine = tmp_path / "mine"            # a file of one's own, even without the suffix
    mine.write_text('game = "tris1"\n')
    assert config_file(str(mine)) == mine
    assert config_file("other/dir/run.toml") == Path("other/dir/run.toml")
    assert config_file(None) is None
    with pytest.raises(ValueError, match=r"\(have: demo\)"):
        config_file("tant_fant")


def test_a_config_lays_its_keys_over_its_base(tmp_path):
    demo = load_config(CONFIG_DIR / "demo.toml", {})
    (tmp_path / "mine.toml").write_text('base = "demo"\niterations = 3\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "more.toml").write_text('base = "../mine.toml"\ngame = "tris1"\n')
    mine = load_config(tmp_path / "mine.toml", {})
    assert mine == dataclasses.replace(demo, iterations=3)
    more = load_config(tmp_path / "sub" / "more.toml", {"seed": 5})
    assert more == dataclasses.replace(demo, iterations=3, game="tris1", seed=5)


def test_an_options_table_replaces_its_bases_whole(tmp_path):
    (tmp_path / "a.toml").write_text('options = { stalemate = "loss", diagonal_only = true }\n')
    (tmp_path / "b.toml").write_text('base = "a.toml"\noptions = { repetition_draw = true }\n')
    assert load_config(tmp_path / "b.toml", {}).options == {"repetition_draw": True}


@pytest.mark.parametrize("files, message", [
    ({"a.toml": "base = 3\n"}, "a.toml: base=3: must be a config's name or a TOML file's path"),
    ({"a.toml": 'base = "az_chess"\n'}, "no shipped config 'az_chess'"),
    ({"a.toml": 'base = "b.toml"\n', "b.toml": 'base = "a.toml"\n'},
     "b.toml: base='a.toml' leads back to itself"),
    ({"a.toml": 'base = "a.toml"\n'}, "a.toml: base='a.toml' leads back to itself"),
    ({"a.toml": 'base = "gone.toml"\n'}, "gone.toml"),
])
def test_a_bad_base_gets_one_clear_line(files, message, tmp_path, capsys):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert train_az(["--config", str(tmp_path / "a.toml"), "--out", str(tmp_path / "run")]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


@pytest.mark.parametrize("arguments, message", [
    (["--game", "chess"], "game='chess': must be one of 'tris2', 'tris1'"),
    (["--iterations", "0"], "iterations=0: must be an integer >= 1"),
    (["--opponents", "random,chess"], "unknown agent spec 'chess'"),
    (["--option", "colour=red"], "unknown option"),
    (["--config", "missing.toml"], "missing.toml"),
    (["--config", "az_chess"], "no shipped config 'az_chess' in "),
    (["--envs", "6", "--steps", "3"], "batch=1024 must divide envs * steps = 18"),
    (["--resume", "nowhere"], "nowhere holds no run (config.json missing)"),
])
def test_bad_settings_get_one_clear_line(arguments, message, tmp_path, capsys):
    if "--resume" not in arguments:
        arguments = [*arguments, "--out", str(tmp_path / "run")]
    assert train_az(arguments) == 2
    error = capsys.readouterr().err
    assert message in error and error.startswith("tris-envs train az: error: ")
    assert error.count("\n") == 1


def test_a_finished_run_is_not_overwritten(straight, capsys):
    before = arrays(straight / "final.npz")
    assert train_az([*TINY_FLAGS, "--out", str(straight)]) == 2
    assert "already holds a run: continue it with --resume" in capsys.readouterr().err
    after = arrays(straight / "final.npz")
    assert all(np.array_equal(after[k], v) for k, v in before.items())


def test_value_targets_are_the_final_rewards_of_the_movers():
    from tris_envs.alphazero.learner import value_targets

    # plies 0-4 of two columns of games: in the first a game won at ply 2 by its mover,
    # then a new game drawn at ply 4; in the second a game still going at the end
    reward = np.array([[0, 0], [0, 0], [1, 0], [0, 0], [0, 0]], np.float32)
    done = np.array([[0, 0], [0, 0], [1, 0], [0, 0], [1, 0]], bool)
    target, ended = value_targets(reward, done)
    assert np.asarray(target)[:, 0].tolist() == [1, -1, 1, 0, 0]
    assert np.asarray(ended).tolist() == [[True, False]] * 5
    # bootstrapped: the second column's plies learn the value 0.5 of the next position for
    # its mover (the ply-4 mover's opponent), the sign changing every ply back
    target, ended = value_targets(reward, done, np.array([0.3, 0.5], np.float32))
    assert np.allclose(np.asarray(target)[:, 1], [-0.5, 0.5, -0.5, 0.5, -0.5])
    assert np.asarray(target)[:, 0].tolist() == [1, -1, 1, 0, 0] and np.asarray(ended).all()
    # discounted: a result is worth `discount` times less every ply before it
    target, _ = value_targets(reward, done, np.array([0.3, 0.5], np.float32), discount=0.5)
    assert np.allclose(np.asarray(target)[:, 0], [0.25, -0.5, 1, 0, 0])
    assert np.allclose(np.asarray(target)[:, 1], [-0.015625, 0.03125, -0.0625, 0.125, -0.25])


def test_the_search_shrinks_a_later_result_by_the_discount():
    import jax

    from tris_envs.alphazero.learner import make_recurrent
    from tris_envs.jax import make

    env = make("tris1")
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 2))
    recurrent = make_recurrent(env, lambda params, x: (np.zeros((2, 9)), np.full(2, 0.5)),
                               discount=0.9)
    out, _ = recurrent(None, jax.random.PRNGKey(1), np.array([0, 4]), states)
    assert np.allclose(out.discount, -0.9) and np.allclose(out.value, 0.5)


def test_exploring_plays_a_share_of_the_moves_uniformly_among_the_legal_ones():
    import jax

    from tris_envs.alphazero.learner import explored

    mask = np.zeros((2, 9), bool)
    mask[0, [1, 3, 5]] = True
    mask[1] = True
    action = np.array([1, 0])
    keys = jax.random.split(jax.random.PRNGKey(0), 4000)
    play = jax.vmap(lambda share, key: explored(action, mask, share, key), (None, 0))
    assert np.array_equal(np.asarray(play(0.0, keys)), np.tile(action, (4000, 1)))
    moves = np.asarray(play(1.0, keys))
    assert mask[0, moves[:, 0]].all()
    assert np.allclose(np.bincount(moves[:, 0], minlength=9)[[1, 3, 5]] / 4000, 1 / 3, atol=0.03)
    assert np.allclose(np.bincount(moves[:, 1], minlength=9) / 4000, 1 / 9, atol=0.02)
    # a quarter of the moves drawn again, 1 in 9 of those the search's move again
    changed = (np.asarray(play(0.25, keys)) != action).mean(0)
    assert abs(changed[1] - 0.25 * 8 / 9) < 0.03 and abs(changed[0] - 0.25 * 2 / 3) < 0.03
    with pytest.raises(ValueError, match=r"explore=1.5: must be"):
        load_config(None, {"explore": 1.5})


def test_a_run_can_start_from_a_saved_network(straight, tmp_path):
    final = straight / "final.npz"
    config = tiny("tris1", iterations=1, eval_games=0, init=str(final))
    from tris_envs.alphazero.train import Run

    run = Run(config, tmp_path)
    assert all(np.array_equal(run.network().weights[k], v)
               for k, v in arrays(final).items() if k != "__config__")
    with pytest.raises(ValueError, match="has width 4 and 1 blocks; the config says 8 and 1"):
        tiny("tris1", width=8, init=str(final))


def test_tris_envs_train_az_is_the_learners_command(tmp_path, capsys):
    from tris_envs import cli

    assert cli.main(["train", "az", "--game", "chess", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("tris-envs train az: error: game='chess'")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["train", "az", "--help"])
    assert exit_.value.code == 0 and "usage: tris-envs train az" in capsys.readouterr().out


def test_the_memory_keeps_the_last_iterations_plies(tmp_path):
    """replay=2: the first iteration fills both slots, the next ones overwrite in turn."""
    from tris_envs.alphazero.train import Run

    run = Run(tiny("tris1", replay=2, eval_games=0), tmp_path)
    size = TINY["envs"] * TINY["steps"]
    seen = []
    for count in (1, 2, 3):
        *run.state, _ = run.step(*run.state)
        memory = run.state[4]
        observations = np.asarray(memory.samples.observation)
        assert int(memory.count) == count and len(observations) == 2 * size
        seen.append(observations.copy())
    first, second, third = seen
    assert np.array_equal(first[:size], first[size:])
    assert np.array_equal(second[:size], first[:size])
    assert np.array_equal(third[size:], second[size:]) and not np.array_equal(
        third[:size], second[:size])


def test_bench_learner_times_both_backups_and_finds_the_same_policies(monkeypatch, capsys):
    import tris_envs.bench.learner as bench
    from tris_envs.cli import main as cli

    table = bench.backups_report(simulations=(3,), envs=2, rounds=1)
    row = table[2].split("|")
    assert row[1].strip() == "3" and float(row[2]) > 0 and float(row[3]) > 0
    assert row[5].strip() == "yes" and "the shipped tritoc network" in table[-1]
    monkeypatch.setattr(bench, "run", lambda: "the table")
    cli(["bench", "--learner"])
    assert capsys.readouterr().out == f"Machine: {describe()}\nthe table\n"


def test_bench_learner_sets_the_learner_on_connect_four_beside_ours():
    import tris_envs.bench.learner as bench

    tiny = bench.Case("tris1", "tris1", 4, 1, epochs=1)
    lines = bench.throughput_report(cases=(tiny,), rounds=1, envs=2, steps=2)
    assert lines[0].startswith("| game | network | epochs | compile, s | iteration, s |")
    ours, theirs = (line.split("|")[1:-1] for line in lines[2:4])
    assert [ours[0].strip(), theirs[0].strip()] == ["tris1", "Pgx connect_four"]
    for row in (ours, theirs):
        assert row[1].strip() == "4 × 1" and row[2].strip() == "1"
        assert float(row[3]) > 0 and float(row[4]) > 0 and float(row[5].replace(",", "")) > 0
    assert float(ours[6].strip().rstrip("×")) > 0 and ours[7].strip() in (
        "≥ 0.6× met", "≥ 0.6× NOT met")
    assert theirs[6].strip() == theirs[7].strip() == "" and len(lines) == 5
    assert lines[4].startswith("\none iteration of the learner (self-play and updates): 4 plies")


@pytest.mark.slow
def test_the_batched_backups_train_the_network_of_mctxs_own(monkeypatch, tmp_path):
    import functools

    import jax

    from tris_envs.alphazero import learner
    from tris_envs.alphazero.train import Run

    def weights() -> list[np.ndarray]:
        run = Run(tiny("tritoc", simulations=24, considered=4), tmp_path)
        state = run.state
        for _ in range(2):
            *state, _ = run.step(*state)
        return [np.asarray(w) for w in jax.tree_util.tree_leaves(state[0])]

    batched = weights()
    monkeypatch.setattr(learner, "gumbel_search",
                        functools.partial(learner.gumbel_search, batched=False))
    own = weights()
    assert all(np.array_equal(a, b) for a, b in zip(batched, own)) and len(own) > 2
