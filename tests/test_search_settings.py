"""The ``az`` agents' search settings: one table from the learner's ``[play]`` through a
network file's ``"search"`` header table to the search, merged once by the agent."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tris_envs.agents import AgentSpec, az
from tris_envs.agents.az_network import FORMAT, NetConfig, Network, load, save
from tris_envs.agents.search_settings import SearchSettings
from tris_envs.agents.shipped import SHIPPED_DIR
from tris_envs.games import make_game


def header_of(path) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["__config__"]))


def tris1_network(search: SearchSettings | None = None) -> Network:
    game = make_game("tris1")
    return Network(game, NetConfig("tris1", {}, 4, 1), rng=np.random.default_rng(0),
                   search=search)


@pytest.mark.parametrize("search", [
    SearchSettings(),
    SearchSettings(simulations=7),
    SearchSettings(simulations=0, batch=1, mix=0.5, decisive=True, traps=0.0, discount=0.9,
                   exploration=2.0),
])
def test_search_settings_round_trip_through_the_header(search, tmp_path):
    path = save(tris1_network(search), tmp_path / "net.npz")
    header = header_of(path)
    assert header["format"] == FORMAT
    assert header.get("search", {}) == search.changed()     # only what differs from defaults
    assert not set(header) & {"simulations", "batch", "mix", "decisive", "traps", "discount"}
    assert load(path, make_game("tris1")).search == search


def test_a_format_2_header_reads_its_play_fields_as_search_settings(tmp_path):
    network = tris1_network()
    path = tmp_path / "old.npz"
    header = {"format": 2, "game": "tris1", "options": {}, "width": 4, "blocks": 1,
              "simulations": 7, "batch": 0, "mix": 0.5, "discount": 0.9, "decisive": True}
    np.savez(path, __config__=np.array(json.dumps(header)), **network.weights)
    assert load(path, make_game("tris1")).search == SearchSettings(
        simulations=7, mix=0.5, discount=0.9, decisive=True)     # batch 0: the default
    header["simulations"] = 0
    np.savez(path, __config__=np.array(json.dumps(header)), **network.weights)
    assert load(path, make_game("tris1")).search.simulations == SearchSettings().simulations


def test_the_shipped_headers_keep_the_search_settings_in_their_own_table():
    shipped = sorted(SHIPPED_DIR.glob("az_*.npz"))
    assert len(shipped) == 15
    for path in shipped:
        header = header_of(path)
        assert header["format"] in (1, FORMAT), path.name   # format 1: tris1's value head
        assert not set(header) & {"simulations", "batch", "mix", "decisive", "traps",
                                  "discount"}, path.name
    assert header_of(SHIPPED_DIR / "az_tritoc.npz")["search"] == {
        "simulations": 1000, "batch": 1, "mix": 0.5}


@pytest.mark.parametrize("changes, problem", [
    ({"simulations": -1}, "simulations=-1 must be an integer >= 0"),
    ({"batch": 0}, "batch=0 must be an integer in [1, 4096]"),
    ({"batch": 10**6}, "batch=1000000 must be an integer in [1, 4096]"),
    ({"mix": 1.5}, "mix=1.5 must be a number in [0, 1]"),
    ({"discount": 0}, "discount=0 must be"),
    ({"decisive": "yes"}, "decisive='yes' must be true or false"),
])
def test_bad_search_settings_are_refused_in_one_line(changes, problem):
    with pytest.raises(ValueError) as error:
        SearchSettings(**changes)
    assert problem in str(error.value) and "\n" not in str(error.value)


def test_a_spec_with_a_huge_batch_is_refused_in_one_line(capsys):
    from tris_envs.cli import main

    with pytest.raises(ValueError, match=r"search setting batch=1000000 must be an integer in "
                                         r"\[1, 4096\]"):
        AgentSpec.parse("az:10:batch=1000000")
    with pytest.raises(SystemExit):
        main(["eval", "tris1", "az:10:batch=1000000", "random", "--games", "1"])
    last = capsys.readouterr().err.splitlines()[-1]
    assert last == ("tris-envs eval: error: argument agent: search setting batch=1000000 must "
                    "be an integer in [1, 4096]")


def test_the_az_agent_merges_its_settings_once_and_builds_one_search(monkeypatch):
    """Arguments over the network's header, merged at the first move; the same search for
    every move after."""
    built = []

    class Spy(az.Search):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(az, "Search", Spy)
    game = make_game("tris1")
    network = tris1_network(SearchSettings(simulations=7, mix=0.5, batch=1))
    agent = az.AZAgent(network, 5, rng=np.random.default_rng(0), batch=2)
    state = game.initial_state(np.random.default_rng(0))
    for _ in range(3):
        state = game.apply(state, agent.act(game, state))
    assert agent.settings_for(game) == SearchSettings(simulations=5, mix=0.5, batch=2)
    assert len(built) == 1 and built[0].batch_size == 2
    explicit = az.AZAgent(network, search=SearchSettings(simulations=3))
    assert explicit.settings_for(game) == SearchSettings(simulations=3)   # not the header's


# ----- the learner's [play] table --------------------------------------------------------
train = pytest.importorskip("tris_envs.alphazero.train")


def test_a_play_table_parses_into_search_settings(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('game = "tris2"\ndecisive = true\ndiscount = 0.9\n'
                    "[play]\nsimulations = 7\nmix = 0.25\ntraps = 0.5\n")
    config = train.load_config(path, {})
    # decisive and discount: the training's unless the table says otherwise
    assert config.play == SearchSettings(simulations=7, mix=0.25, traps=0.5, decisive=True,
                                         discount=0.9)
    path.write_text('game = "tris2"\ndecisive = true\n[play]\ndecisive = false\n')
    assert train.load_config(path, {}).play == SearchSettings()
    path.write_text('game = "tris1"\n[play]\nsimulation = 7\n')
    with pytest.raises(ValueError, match="unknown config key 'play.simulation'"):
        train.load_config(path, {})


@pytest.mark.parametrize("key, new", [("play_simulations", "simulations"),
                                      ("play_traps", "traps"), ("play_mix", "mix"),
                                      ("play_batch", "batch")])
def test_the_old_flat_play_keys_are_refused_in_one_line_naming_the_new_one(key, new, tmp_path):
    path = tmp_path / "old.toml"
    path.write_text(f'game = "tris2"\n{key} = 1\n')
    for source, overrides in ((path, {}), (None, {"game": "tris2", key: 1})):
        with pytest.raises(ValueError) as error:
            train.load_config(source, overrides)
        message = str(error.value)
        assert f"{key} is now {new!r} in the [play] table: write [play] {new} = 1" in message
        assert "\n" not in message


def test_play_simulations_flag_sets_the_play_table_over_the_configs(monkeypatch, tmp_path):
    from tris_envs.cli import main

    path = tmp_path / "run.toml"
    path.write_text('game = "tris1"\n[play]\nbatch = 1\nmix = 0.25\n')
    seen = []
    monkeypatch.setattr(train, "train", lambda config, out, **kw: seen.append(config) or out)
    assert main(["train", "az", "--config", str(path), "--play-simulations", "7",
                 "--out", str(tmp_path / "run")]) == 0
    assert seen[0].play == SearchSettings(simulations=7, batch=1, mix=0.25)
    assert main(["train", "az", "--config", str(path), "--out", str(tmp_path / "run")]) == 0
    assert seen[1].play == SearchSettings(batch=1, mix=0.25)
