"""The AlphaZero network: its policy head addresses each game's action encoding; the NumPy
and JAX forward passes agree; files round-trip and bad ones are refused; the az agents."""

from __future__ import annotations

import dataclasses
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tris_envs.agents.az_network import (
    HEADER,
    NetConfig,
    Network,
    load,
    masked_softmax,
    save,
)
from tris_envs.agents.search_settings import SearchSettings
from tris_envs.games import GAMES

SPECS = [pytest.param(spec, id=spec.name) for spec in GAMES.values()]


def start(spec):
    game = spec.make()
    rng = np.random.default_rng(0)
    state = game.initial_state(rng)
    while game.current_player(state) < 0:
        state = game.apply(state, game.chance_outcomes(state)[0][0])
    return game, state


@pytest.mark.parametrize("spec", SPECS)
def test_each_actions_logit_sits_on_its_cell(spec):
    """Without residual blocks a cell's logits see only the 3x3 cells around it: changing
    one input cell moves exactly the logits of the actions slotted next to it."""
    game, state = start(spec)
    network = Network(game, NetConfig(spec.name, {}, width=8, blocks=0),
                      rng=np.random.default_rng(1))
    observation = game.observation(state, game.current_player(state))
    height, width, _ = observation.shape
    base, _ = network(observation[None])
    for r, c in [(0, 0), (height // 2, width // 2), (height - 1, width - 1)]:
        changed = observation.copy()
        changed[r, c] = 1 - changed[r, c]
        logits, _ = network(changed[None])
        moved = ~np.isclose(logits[0], base[0], rtol=0, atol=1e-6)
        for action in range(game.info.num_actions):
            slot = spec.policy.slot(action)
            if len(slot) == 3:
                near = max(abs(slot[0] - r), abs(slot[1] - c)) <= 1
                assert moved[action] == near, (action, slot, (r, c))


@pytest.mark.parametrize("spec", SPECS)
def test_numpy_and_jax_forward_passes_agree(spec):
    """The JAX learner trains the very weights the NumPy agents play: on random positions
    of every game (both players' views) the two give the same logits and values."""
    from tris_envs.alphazero.jax_net import forward, network_of, params_of, policy_index

    from checks import random_playouts

    game = spec.make()
    config = NetConfig(spec.name, {}, width=8, blocks=2)
    network = Network(game, config, rng=np.random.default_rng(2))
    states = []
    random_playouts(game, 3, seed=5, max_plies=30,
                    check=lambda g, s: g.current_player(s) >= 0 and states.append(s))
    observations = np.stack([game.observation(s, p) for s in states for p in (0, 1)])
    logits, values = network(observations)
    params = params_of(network)
    j_logits, j_values = forward(params, observations, policy_index(game), config.blocks)
    assert np.allclose(logits, np.asarray(j_logits), atol=1e-4)
    assert np.allclose(values, np.asarray(j_values), atol=1e-5)
    again = network_of(params, game, config)
    assert all(np.array_equal(again.weights[k], w) for k, w in network.weights.items())


def test_masked_softmax_gives_zero_to_illegal_actions():
    probabilities = masked_softmax(np.array([[1.0, 5.0, 2.0]]), np.array([[True, False, True]]))
    assert probabilities[0, 1] == 0 and np.isclose(probabilities.sum(), 1)
    assert probabilities[0, 2] > probabilities[0, 0]


def test_files_round_trip_and_bad_files_are_refused(tmp_path):
    game, state = start(GAMES["tant_fant"])
    network = Network(game, NetConfig("tant_fant", {"stalemate": "draw"}, 8, 1),
                      rng=np.random.default_rng(3))
    path = save(network, tmp_path / "net.npz")
    again = load(path, game)
    assert again.config == network.config
    assert np.array_equal(again.evaluate([state])[0], network.evaluate([state])[0])
    with pytest.raises(ValueError, match="cannot play 'tris1'"):
        load(path, GAMES["tris1"].make())
    (tmp_path / "net.txt").write_text("not a network")
    with pytest.raises(ValueError, match="net.txt' is not a network file"):
        load(tmp_path / "net.txt", game)
    (tmp_path / "bad.npz").write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="bad.npz. is not a network file"):
        load(tmp_path / "bad.npz", game)
    with pytest.raises(FileNotFoundError, match="missing.npz"):
        load(tmp_path / "missing.npz", game)


# ----- the az agents ------------------------------------------------------------------------
def test_az_agents_play_with_and_without_search(tmp_path):
    from tris_envs.agents import make_agent
    from tris_envs.agents.az import AZAgent
    from tris_envs.evaluation import play_match

    game, state = start(GAMES["tris1"])
    network = Network(game, NetConfig("tris1", {}, 8, 1), rng=np.random.default_rng(4))
    greedy_policy = AZAgent(network, simulations=0)
    probabilities, _ = network.evaluate([state])
    assert greedy_policy.act(game, state) == int(np.argmax(probabilities[0]))
    path = save(network, tmp_path / "tris1.npz")
    for spec in (f"az:{path}", f"az:{path}:0", f"az:{path}:8"):
        result = play_match(game, make_agent(spec), "random", n_games=2, seed=0)
        assert result.n_games == 2


@pytest.mark.parametrize("spec, error", [
    ("az:", "unknown agent spec"), ("az:x:y", "unknown agent spec"),
    ("az:-1", "unknown agent spec"), ("az:net.npz:abc", "unknown agent spec"),
    ("az:missing.npz", "not found"), ("az:missing.npz:10", "not found"),
])
def test_az_specs_refuse_bad_input(spec, error):
    from tris_envs.agents import make_agent

    with pytest.raises((ValueError, FileNotFoundError), match=error):
        make_agent(spec)


def test_a_networks_own_search_budget_plays_unless_one_is_asked_for(tmp_path):
    """``SearchSettings.simulations`` in the header: ``az:<path>`` (and ``az`` for a shipped
    network) searches with it; an explicit budget wins; a header without it means 100."""
    from tris_envs.agents import make_agent
    from tris_envs.agents.az import DEFAULT_SIMULATIONS

    game, _ = start(GAMES["tris1"])
    plain = Network(game, NetConfig("tris1", {}, 4, 1), rng=np.random.default_rng(0))
    path = save(plain, tmp_path / "plain.npz")
    with np.load(path) as data:
        assert "simulations" not in str(data["__config__"])   # old headers unchanged
    deep = Network(game, NetConfig("tris1", {}, 4, 1), plain.weights,
                   search=SearchSettings(simulations=7))
    deep_path = save(deep, tmp_path / "deep.npz")
    assert load(deep_path, game).search.simulations == 7
    asked = {f"az:{path}": DEFAULT_SIMULATIONS, f"az:{deep_path}": 7,
             f"az:{deep_path}:3": 3, f"az:{deep_path}:0": 0}
    for spec, budget in asked.items():
        agent = make_agent(spec)
        assert agent.budget(agent.network_for(game)) == budget
    assert make_agent(f"az:{deep_path}").name == f"az:{deep_path}"


def test_a_networks_discount_is_its_searchs_unless_one_is_asked_for(tmp_path, monkeypatch):
    """``SearchSettings.discount`` (the learner's ``discount``) is saved in the header when
    below 1, and the ``az`` agents' search backs up with it."""
    from tris_envs.agents import az
    from tris_envs.agents.mcts import Search

    game, state = start(GAMES["tris1"])
    plain = Network(game, NetConfig("tris1", {}, 4, 1), rng=np.random.default_rng(0))
    with np.load(save(plain, tmp_path / "plain.npz")) as data:
        assert "discount" not in str(data["__config__"])
    path = save(Network(game, NetConfig("tris1", {}, 4, 1), plain.weights,
                        search=SearchSettings(discount=0.95)), tmp_path / "discounted.npz")
    assert load(path, game).search.discount == 0.95
    used = []

    class Spy(Search):
        def run(self, *args, **kwargs):
            used.append(self.discount)
            return super().run(*args, **kwargs)

    monkeypatch.setattr(az, "Search", Spy)
    for network, discount, expected in ((tmp_path / "plain.npz", None, 1.0),
                                        (path, None, 0.95), (path, 0.5, 0.5)):
        az.AZAgent(network, simulations=4, discount=discount,
                   rng=np.random.default_rng(0)).act(game, state)
        assert used[-1] == expected


def test_az_without_a_shipped_network_says_so(monkeypatch, tmp_path):
    from tris_envs.agents import make_agent

    for module in ("az", "shipped"):                                      # none shipped
        monkeypatch.setattr(f"tris_envs.agents.{module}.SHIPPED_DIR", tmp_path)
    game, state = start(GAMES["tritoc"])
    agent = make_agent("az")
    assert agent.name == "az" and make_agent("az:0").simulations == 0
    with pytest.raises(FileNotFoundError, match="no AlphaZero network is shipped"):
        agent.act(game, state)


# ----- the shipped networks ----------------------------------------------------------
@pytest.mark.parametrize("name, options, games", [
    ("tris1", {}, 16), ("tant_fant", {}, 6), ("tant_fant", {"diagonal_only": True}, 4),
    ("tant_fant", {"diagonal_only": True, "stalemate": "loss"}, 4)])
def test_a_shipped_network_never_loses_to_the_solver(name, options, games):
    """The shipped ``az`` for Tris 1 and for Tant Fant, default and variants (docs/results.md:
    400 games each) holds the draw and keeps the solver's value in every move with a
    choice."""
    from tris_envs.agents import make_agent
    from tris_envs.alphazero import shipped_network, variant_name
    from tris_envs.evaluation import play_match
    from tris_envs.evaluation.metrics import move_quality

    game = GAMES[name].make(**options)
    assert shipped_network(game).stem in (variant_name(game), f"az_{name}")
    result = play_match(game, make_agent("az"), "solver", n_games=games, seed=11,
                        keep_records=True)
    assert result.losses == 0
    quality = move_quality(game, result.records, "az")
    assert quality.value_kept == quality.judged > 0


def test_a_format_1_network_reads_as_format_2_with_the_same_outputs(tmp_path):
    """Format 1's value head read the mean over the cells; loading spreads its first layer
    over every cell, so an old file plays exactly as before."""
    import json

    game, state = start(GAMES["tant_fant"])
    network = Network(game, NetConfig("tant_fant", {}, 8, 1), rng=np.random.default_rng(6))
    old = dict(network.weights)
    old["value.w1"] = np.random.default_rng(7).standard_normal((8, 8)).astype(np.float32)
    header = {"format": 1, "game": "tant_fant", "options": {}, "width": 8, "blocks": 1}
    np.savez(tmp_path / "old.npz", __config__=np.array(json.dumps(header)), **old)
    observation = game.observation(state, game.current_player(state))[None]
    loaded = load(tmp_path / "old.npz", game)
    from tris_envs.agents.az_network import _conv3x3, _relu

    # the format 1 value by hand: the mean over the cells of the trunk, then the old layer
    w = loaded.weights
    x = observation.astype(np.float32)
    x = _relu(_conv3x3(x, w["stem.w"], w["stem.b"]))
    y = _relu(_conv3x3(x, w["block0.w1"], w["block0.b1"]))
    x = _relu(x + _conv3x3(y, w["block0.w2"], w["block0.b2"]))
    hidden = _relu(x.mean(axis=(1, 2)) @ old["value.w1"] + w["value.b1"])
    expected = np.tanh(hidden @ w["value.w2"] + w["value.b2"])[:, 0]
    assert np.allclose(loaded(observation)[1], expected, atol=1e-5)



# ----- files that arrive: headers checked field by field, weights and outputs finite -------
def _write(path, header, weights):
    import json

    np.savez(path, __config__=np.array(header if isinstance(header, str)
                                       else json.dumps(header)), **weights)
    return path


GOOD_HEADER = {"format": 2, "game": "tris1", "options": {}, "width": 4, "blocks": 1}
NEW_HEADER = GOOD_HEADER | {"format": 3}
"""Format 3: the search settings in their own table (format 2: among the others)."""


@pytest.mark.parametrize("header, message", [
    ("[1, 2]", "its header is not a JSON object"),
    ('"tris1"', "its header is not a JSON object"),
    ("{not json", "its header is not JSON"),
    ({k: v for k, v in GOOD_HEADER.items() if k != "width"}, "its header lacks the field "
                                                               "'width'"),
    ({k: v for k, v in GOOD_HEADER.items() if k != "format"}, "lacks the field 'format'"),
    (GOOD_HEADER | {"width": "4"}, "header field width='4' must be an integer in [1, 4096]"),
    (GOOD_HEADER | {"blocks": -1}, "header field blocks=-1 must be an integer in [0, 64]"),
    (GOOD_HEADER | {"blocks": 10**6}, "header field blocks=1000000 must be an integer in "
                                      "[0, 64]"),
    (GOOD_HEADER | {"width": 10**100}, "0... (101 characters) must be an integer in "
                                       "[1, 4096]"),
    (GOOD_HEADER | {"width": 2048, "blocks": 64}, "header fields width=2048 and blocks=64 "
                                                  "make a network of 4,8"),
    (GOOD_HEADER | {"game": 7}, "header field game=7 must be a string"),
    (GOOD_HEADER | {"options": [1]}, "header field options=[1] must be a table"),
    (GOOD_HEADER | {"decisive": "yes"}, "header field decisive='yes' must be true or false"),
    (GOOD_HEADER | {"discount": float("nan")}, "header field discount=nan must be a finite "
                                                 "number"),
    (GOOD_HEADER | {"mix": 2}, "header field mix=2 must be a number in [0, 1]"),
    (GOOD_HEADER | {"format": 5}, "header field format=5 must be 1 to 4"),
    (NEW_HEADER | {"recipe": 3}, "header field recipe=3 must be a string"),
    (GOOD_HEADER | {"colour": "red"}, "header field 'colour' is not one this version knows"),
    (GOOD_HEADER | {"search": {"mix": 0.5}}, "header field 'search' is not one this version "
                                              "knows"),
    (NEW_HEADER | {"search": {"simulations": -1}}, "header field search.simulations=-1 must be "
                                                    "an integer >= 0"),
    (NEW_HEADER | {"search": {"batch": 0}}, "header field search.batch=0 must be an integer "
                                            "in [1, 4096]"),
    (NEW_HEADER | {"search": {"batch": 10**6}}, "header field search.batch=1000000 must be an "
                                                "integer in [1, 4096]"),
    (GOOD_HEADER | {"batch": 10**6}, "header field batch=1000000 must be an integer in "
                                     "[0, 4096]"),
    (NEW_HEADER | {"search": {"depth": 3}}, "header field search.depth is not a search "
                                            "setting"),
    (NEW_HEADER | {"search": [1]}, "header field search=[1] must be a table"),
    (NEW_HEADER | {"mix": 0.5}, "header field 'mix' is not one this version knows"),
])
def test_a_bad_header_is_one_line_naming_the_file_and_the_field(header, message, tmp_path,
                                                                capsys):
    from tris_envs.cli import main

    game = GAMES["tris1"].make()
    weights = Network(game, NetConfig("tris1", {}, 4, 1), rng=np.random.default_rng(0)).weights
    path = _write(tmp_path / "net.npz", header, weights)
    with pytest.raises(ValueError) as error:
        load(path, game)
    assert str(error.value).startswith(f"network {str(path)!r}") and message in str(error.value)
    assert "\n" not in str(error.value)
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "tris1", f"az:{path}:0", "random", "--games", "2"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err
    assert err.strip().count("\n") == 0


def _load_counting_reads(path, game, monkeypatch):
    """``load(path, game)``, or the error it raises, and the arrays it read meanwhile."""
    from tris_envs.agents import az_network

    reads = []
    read = az_network._read

    def counted(archive, key, name):
        reads.append(key)
        return read(archive, key, name)

    monkeypatch.setattr(az_network, "_read", counted)
    try:
        return load(path, game), reads
    except ValueError as error:
        return error, reads


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=300),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=300), inner,
                                                                max_size=3), max_leaves=10)
FIELDS = [*HEADER, *(f"search.{field.name}" for field in dataclasses.fields(SearchSettings)),
          "colour", "x" * 500]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["width", "blocks", "search.batch"]),
       value=st.integers(min_value=5000, max_value=10**40))
def test_a_size_beyond_its_bound_is_refused_naming_it_before_any_weight_is_read(
        tmp_path, monkeypatch, key, value):
    game = GAMES["tris1"].make()
    weights = Network(game, NetConfig("tris1", {}, 4, 1), rng=np.random.default_rng(0)).weights
    header = NEW_HEADER | ({"search": {"batch": value}} if key == "search.batch"
                           else {key: value})
    path = _write(tmp_path / "net.npz", header, weights)
    with monkeypatch.context() as patch:
        result, reads = _load_counting_reads(path, game, patch)
    assert isinstance(result, ValueError) and reads == ["__config__"]
    assert f"header field {key}=" in str(result) and "\n" not in str(result)
    assert len(str(result)) < len(str(path)) + 200, result


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(FIELDS), value=JSON_VALUES)
def test_any_header_value_loads_or_is_one_short_line(tmp_path, monkeypatch, key, value):
    game = GAMES["tris1"].make()
    weights = Network(game, NetConfig("tris1", {}, 4, 1), rng=np.random.default_rng(0)).weights
    table, _, name = key.rpartition(".")
    header = dict(NEW_HEADER)
    if table:
        header["search"] = {name: value}
    else:
        header[key] = value
    path = _write(tmp_path / "net.npz", header, weights)
    with monkeypatch.context() as patch:
        result, reads = _load_counting_reads(path, game, patch)
    if isinstance(result, ValueError):
        message = str(result)
        assert message.startswith(f"network {str(path)!r}") and "\n" not in message
        assert len(message) < len(str(path)) + 300, message
        if key in ("width", "blocks"):          # the weights are read only where they fit
            assert reads == ["__config__"]


def test_an_array_whose_header_claims_a_huge_shape_is_refused_before_it_is_read(tmp_path):
    """An ``.npy`` member whose own header says it holds 10**12 numbers (it holds none):
    NumPy would allocate them before finding out; the loader compares the shape first."""
    import zipfile

    game = GAMES["tris1"].make()
    network = Network(game, NetConfig("tris1", {}, 4, 1), rng=np.random.default_rng(0))
    path = save(network, tmp_path / "net.npz")
    forged = tmp_path / "forged.npz"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(forged, "w") as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "stem.w.npy":
                member = io.BytesIO()
                np.lib.format.write_array_header_1_0(member, {
                    "descr": "<f4", "fortran_order": False, "shape": (10**12,)})
                data = member.getvalue()
            target.writestr(info.filename, data)
    with pytest.raises(ValueError, match=r"its weights do not fit the network its header "
                                         r"describes: weights 'stem.w' of shape "
                                         r"\(1000000000000,\), not \(3, 3, 2, 4\)"):
        load(forged, game)


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning",
                            "ignore:invalid value:RuntimeWarning")
def test_a_network_whose_outputs_are_not_numbers_refuses_to_play(tmp_path):
    from tris_envs.agents import make_agent
    from tris_envs.agents.az_network import NonFiniteOutputs
    from tris_envs.evaluation import play_match

    game = GAMES["tris1"].make()
    network = Network(game, NetConfig("tris1", {}, 4, 1), rng=np.random.default_rng(0))
    nan = dict(network.weights, **{"stem.b": np.full(4, np.nan, np.float32)})
    path = _write(tmp_path / "nan.npz", GOOD_HEADER, nan)
    with pytest.raises(ValueError, match=r"nan.npz': weights 'stem.b' hold values that are "
                                         r"not finite numbers"):
        load(path, game)
    # finite weights whose products overflow: the outputs are NaN, caught at each call
    huge = {k: np.full_like(v, 3e38) for k, v in network.weights.items()}
    path = _write(tmp_path / "huge.npz", GOOD_HEADER, huge)
    for spec in (f"az:{path}:0", f"az:{path}:5"):
        with pytest.raises(NonFiniteOutputs, match=r"network '.*huge.npz' gives outputs that "
                                                   r"are not finite numbers"):
            play_match(game, make_agent(spec), "random", n_games=2, seed=0)


def test_a_network_with_weights_that_are_not_numbers_is_never_saved(tmp_path):
    game = GAMES["tris1"].make()
    network = Network(game, NetConfig("tris1", {}, 4, 1), rng=np.random.default_rng(0))
    network.weights["value.w2"][0, 0] = np.inf
    with pytest.raises(ValueError, match=r"network not saved to .*net.npz': its weights "
                                         r"'value.w2' hold values that are not finite"):
        save(network, tmp_path / "net.npz")
    assert list(tmp_path.iterdir()) == []
