"""``tris-envs bench --networks``: a row per shipped network, the figures' shape (speeds are
measured by the command, not here)."""

from __future__ import annotations

import re

import pytest

from tris_envs.agents.shipped import SHIPPED_DIR
from tris_envs.bench import networks
from tris_envs.cli import main as cli
from tris_envs.games import make_game
from tris_envs.machine import describe


def test_every_shipped_network_is_found_with_the_game_its_header_names():
    found = networks.shipped_networks()
    assert sorted(path.name for path, _ in found) == sorted(
        path.name for path in SHIPPED_DIR.glob("az_*.npz"))
    games = {path.stem: game for path, game in found}
    assert games["az_tris2__max_side=4"].options()["max_side"] == 4
    assert games["az_doppia_scelta__scheme=swap"].options()["scheme"] == "swap"


def test_positions_are_seeded_and_leave_a_choice():
    game = make_game("tritoc")
    first, again = networks.positions(game, 4, seed=3), networks.positions(game, 4, seed=3)
    assert len(first) == 4 and [repr(s) for s in first] == [repr(s) for s in again]
    assert all(len(game.legal_actions(state)) >= 2 for state in first)


def test_the_table_has_a_row_per_network_and_a_provenance_line():
    table = networks.run(moves=2, networks=["az_tris1", "az_tant_fant"]).splitlines()
    assert table[0].startswith("The default az agent with each shipped network, 2 positions")
    assert table[2] == "| network | simulations | ms per move | CPU ms per move | ≤ 100 ms |"
    rows = [line.split("|")[1:-1] for line in table[4:6]]
    assert [row[0].strip() for row in rows] == ["az_tris1", "az_tant_fant"]
    for _, simulations, wall, cpu, verdict in rows:
        assert int(simulations.replace(",", "")) == 100
        assert float(wall) > 0 and float(cpu) >= 0 and verdict.strip() in ("met", "NOT met")
    assert table[6] == "" and re.fullmatch(
        re.escape(f"*{describe()}; ") + r"\d{4}-\d\d-\d\d; \d+s wall(?: \(load [\d.]+\))?; "
        r"seed 0\.\*", table[7])
    assert len(table) == 8


def test_a_network_the_default_agent_does_not_play_is_refused():
    with pytest.raises(ValueError, match="az plays .*az_tris1.npz for tris1"):
        networks.time_network(SHIPPED_DIR / "az_tris2.npz", make_game("tris1"), moves=1)


def test_the_command_prints_the_machine_then_the_table(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(networks, "run", lambda moves: calls.append(moves) or "the table")
    cli(["bench", "--networks", "--network-moves", "3"])
    assert calls == [3] and capsys.readouterr().out == f"Machine: {describe()}\nthe table\n"
    with pytest.raises(SystemExit):
        cli(["bench", "--networks", "--network-moves", "0"])
    assert "--network-moves must be at least 1" in capsys.readouterr().err
