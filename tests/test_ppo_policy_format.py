"""PPO policy files load without running code: weights and a checked JSON header read with
``torch.load(weights_only=True)``; Stable-Baselines3's pickles only behind ``trust_pickle``."""

from __future__ import annotations

import base64
import copy
import io
import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("sb3_contrib")
import torch
from sb3_contrib import MaskablePPO

from tris_envs import cli
from tris_envs.agents import AgentSpec, PolicyOpponent, PPOAgent, make_agent
from tris_envs.agents import ppo as ppo_module
from tris_envs.agents.ppo_file import (
    CheckpointError,
    PickledPolicyError,
    header_of,
    policy_shapes,
    read_policy,
    write_policy,
)
from tris_envs.core.game import resolve_chance
from tris_envs.envs import SingleAgentEnv
from tris_envs.games import make_game
from tris_envs.ppo.config import NetworkSettings
from tris_envs.ppo.train import policy_kwargs

torch.set_num_threads(1)


class WritesAMarker:
    """Unpickled, it creates the file at ``path`` (what a malicious pickle could do)."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):  # noqa: ANN204
        return (open, (self.path, "w"))


def evil_pt(path: Path, marker: Path) -> Path:
    """A ``.pt`` as ``policy.save`` writes one, whose unpickling creates ``marker``."""
    torch.save({"state_dict": {}, "data": {"observation_space": WritesAMarker(marker)}}, path)
    return path


def evil_zip(path: Path, marker: Path) -> Path:
    """A ``MaskablePPO`` zip whose ``data`` holds a pickle that creates ``marker``."""
    serialized = base64.b64encode(pickle.dumps(WritesAMarker(marker))).decode()
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps({"policy_class": {":type:": "x",
                                                              ":serialized:": serialized}}))
    return path


def model(game: str, extractor: str = "mlp") -> MaskablePPO:
    """An untrained model of ``game`` (``"cnn"``: BoardCNN, as the 9x9 configs have it)."""
    network = NetworkSettings(extractor=extractor, channels=[4, 4], features_dim=16,
                              net_arch=[16])
    return MaskablePPO("MlpPolicy", SingleAgentEnv(game, opponent="random"), n_steps=32,
                       batch_size=32, seed=0, device="cpu", policy_kwargs=policy_kwargs(network))


def probabilities(policy, game: str, n: int = 40) -> np.ndarray:
    """The policy's masked probabilities over ``n`` positions of random games."""
    rules = make_game(game)
    rng = np.random.default_rng(5)
    observations, masks = [], []
    while len(observations) < n:
        state = resolve_chance(rules, rules.initial_state(rng), rng)
        for _ in range(int(rng.integers(0, 6))):
            if not rules.is_terminal(state):
                state = resolve_chance(rules, rules.apply(
                    state, int(rng.choice(rules.legal_actions(state)))), rng)
        if rules.is_terminal(state):
            continue
        observations.append(rules.observation(state, rules.current_player(state)))
        masks.append(rules.legal_mask(state).astype(bool))
    return ppo_module.masked_probabilities(policy, np.stack(observations), np.stack(masks))


# ----- pickles are refused unless trusted --------------------------------------------------
@pytest.mark.parametrize("write", [evil_pt, evil_zip])
def test_a_pickle_that_runs_code_is_refused_without_trust(write, tmp_path):
    marker = tmp_path / "ran"
    path = write(tmp_path / ("evil.pt" if write is evil_pt else "evil.zip"), marker)
    for load in (lambda: ppo_module.load_policy(path), lambda: make_agent(f"ppo:{path}").act(
            make_game("tris1"), make_game("tris1").initial_state())):
        with pytest.raises(PickledPolicyError) as error:
            load()
        assert str(path) in str(error.value) and "--trust-pickle" in str(error.value)
        assert "\n" not in str(error.value)
    assert not marker.exists()
    # the same file with trust does run its code: the refusal above is what kept it out
    with pytest.raises(CheckpointError):
        ppo_module.load_policy(path, trust_pickle=True)
    assert marker.exists()


def test_trust_is_each_calls_own_never_the_environments_nor_an_earlier_calls(tmp_path,
                                                                          monkeypatch):
    marker = tmp_path / "ran"
    path = evil_pt(tmp_path / "evil.pt", marker)
    monkeypatch.setenv("TRIS_ENVS_TRUST_PICKLE", str(path))    # what --trust-pickle once set
    for load in (lambda: ppo_module.load_policy(path), lambda: make_agent(f"ppo:{path}").act(
            make_game("tris1"), make_game("tris1").initial_state())):
        with pytest.raises(PickledPolicyError):
            load()
    with pytest.raises(SystemExit):
        cli.main(["eval", "tris1", f"ppo:{path}", "random", "--games", "2"])
    assert not marker.exists()
    with pytest.raises(CheckpointError):                         # trusted: its code runs
        ppo_module.load_policy(path, trust_pickle=True)
    assert marker.exists()
    marker.unlink()
    with pytest.raises(PickledPolicyError):                      # and the next call's own
        ppo_module.load_policy(path, trust_pickle=False)
    assert not marker.exists()


def test_a_spec_carries_trust_to_its_agent_and_never_in_its_text():
    spec = AgentSpec.parse("ppo:old.zip")
    trusted, = ppo_module.trusted_specs([spec])
    assert trusted.trust_pickle and not spec.trust_pickle
    assert str(trusted) == "ppo:old.zip" and not AgentSpec.parse(str(trusted)).trust_pickle
    assert ppo_module.trusted_specs([AgentSpec("mcts")]) == [AgentSpec("mcts")]
    with pytest.raises(ValueError, match="trust_pickle=True must be False here"):
        AgentSpec("mcts", trust_pickle=True)


def test_the_commands_refuse_a_pickle_in_one_line(tmp_path, capsys):
    marker = tmp_path / "ran"
    path = evil_pt(tmp_path / "evil.pt", marker)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["eval", "tris1", f"ppo:{path}", "random", "--games", "2"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1
    assert str(path) in err and "--trust-pickle" in err and "runs code" in err
    assert cli.main(["evaluate", str(path), "--game", "tris1", "--games", "2",
                     "--opponents", "random"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "--trust-pickle" in err
    assert not marker.exists()
    for command in ("play", "eval", "tournament", "evaluate"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        assert "--trust-pickle" in capsys.readouterr().out


def test_trust_pickle_loads_stable_baselines3_files(tmp_path, capsys):
    learner = model("tris1")
    legacy, archive = tmp_path / "legacy.pt", tmp_path / "model.zip"
    learner.policy.save(str(legacy))
    learner.save(archive)
    expected = probabilities(learner.policy, "tris1")
    for path in (legacy, archive):
        with pytest.raises(PickledPolicyError):
            PPOAgent(path).policy_for(make_game("tris1"))
        agent = PPOAgent(path, trust_pickle=True)
        np.testing.assert_array_equal(probabilities(agent.policy_for(make_game("tris1")),
                                                    "tris1"), expected)
    # the flag trusts the files named on the command line, in the workers too
    for args in (["eval", "tris1", f"ppo:{archive}", f"ppo:{legacy}", "--games", "2"],
                 ["evaluate", str(archive), "--game", "tris1", "--games", "2",
                  "--opponents", f"random,ppo:{legacy}"]):
        assert cli.main([*args, "--trust-pickle"]) == 0, capsys.readouterr().err
    capsys.readouterr()
    for path in (legacy, archive):          # the commands' trust ended with them
        with pytest.raises(PickledPolicyError):
            ppo_module.load_policy(path)
    done = subprocess.run([sys.executable, "-m", "tris_envs.cli", "eval", "tris1",
                           f"ppo:{legacy}", "random", "--games", "2", "--processes", "2",
                           "--trust-pickle"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ppo:legacy vs random: ")


# ----- the weights-only format -------------------------------------------------------------
@pytest.mark.parametrize("game, extractor", [("tris1", "mlp"), ("tris2", "cnn")])
def test_a_policy_file_loads_with_weights_only_and_plays_the_same(game, extractor, tmp_path):
    learner = model(game, extractor)
    path = ppo_module.export_policy(learner, tmp_path / "policy.pt", game, {"max_moves": 90})
    saved = torch.load(path, weights_only=True)
    assert set(saved) == {"header", "state_dict"}
    header = json.loads(saved["header"])
    assert header["format"] == "tris_envs-ppo-policy" and header["version"] == 1
    assert header["game"] == game and header["game_options"] == {"max_moves": 90}
    assert header["network"]["extractor"] == extractor
    assert header["actions"] == make_game(game).info.num_actions
    assert tuple(header["observation"]["shape"]) == make_game(game).info.observation_shape
    loaded = ppo_module.load_policy(path)
    np.testing.assert_array_equal(probabilities(loaded, game), probabilities(learner.policy,
                                                                             game))
    # an opponent built on a model travels to a worker as the bytes of such a file
    opponent = PolicyOpponent(learner, deterministic=True)
    copy = pickle.loads(pickle.dumps(opponent))
    np.testing.assert_array_equal(probabilities(copy.policy, game),
                                  probabilities(learner.policy, game))


def _rewritten(path: Path, target: Path, change) -> Path:
    saved = torch.load(path, weights_only=True)
    header = json.loads(saved["header"])
    change(header, saved["state_dict"])
    torch.save({"header": header if isinstance(header, str) else json.dumps(header),
                "state_dict": saved["state_dict"]}, target)
    return target


def _set(key: str, value):
    def change(header, state_dict):
        *tables, last = key.split(".")
        place = header
        for table in tables:
            place = place[table]
        if value is KeyError:
            del place[last]
        else:
            place[last] = value
    return change


@pytest.mark.parametrize("change, message", [
    (_set("version", 2), "header field 'version' is 2; this version of tris_envs reads "
                         "version 1"),
    (_set("game", "chess"), "header field 'game' must be null or one of"),
    (_set("actions", KeyError), "header field 'actions' is missing"),
    (_set("actions", 0), "header field 'actions' must be an integer in [1, 65536], got 0"),
    (_set("comment", "hi"), "header field 'comment' is not one this version reads"),
    (_set("observation.dtype", "object"), "header field 'observation.dtype' must be one of"),
    (_set("observation.high", "1"), "header field 'observation.high' must be a finite"),
    (_set("network.activation", "gelu"), "header field 'network.activation' must be one of"),
    (_set("network.pi", [16, -1]), "header field 'network.pi' must be a list"),
    (_set("network.pi", [32]), "its weights do not fit the network its header describes"),
    (_set("format", "other"), "its header is not a tris_envs-ppo-policy header"),
    (lambda header, weights: weights.update(extra=torch.zeros(2)),
     "its weights do not fit the network"),
    (lambda header, weights: weights[next(iter(weights))].fill_(float("nan")),
     "is not finite (NaN or infinite)"),
])
def test_a_bad_header_or_weight_is_named_in_one_line(change, message, tmp_path):
    good = ppo_module.export_policy(model("tris1"), tmp_path / "good.pt", "tris1")
    bad = _rewritten(good, tmp_path / "bad.pt", change)
    with pytest.raises(CheckpointError) as error:
        ppo_module.load_policy(bad)
    assert message in str(error.value) and "bad.pt" in str(error.value)
    assert "\n" not in str(error.value)


def test_a_header_that_is_not_json_or_holds_nan_is_refused(tmp_path):
    good = ppo_module.export_policy(model("tris1"), tmp_path / "good.pt", "tris1")
    saved = torch.load(good, weights_only=True)
    for text, message in (("{", "its header is not JSON"),
                          (saved["header"].replace('"high": 1', '"high": NaN'),
                           "NaN is not a number a header may hold")):
        torch.save({"header": text, "state_dict": saved["state_dict"]}, tmp_path / "bad.pt")
        with pytest.raises(CheckpointError, match=message):
            read_policy(tmp_path / "bad.pt", "bad.pt")


# ----- sizes in a header: bounded, and compared with the weights before anything is built ---
@pytest.fixture(scope="module")
def cnn_payload() -> dict:
    """A policy file's header (a dict) and state dict: BoardCNN, so that every size field
    is there."""
    buffer = io.BytesIO()
    write_policy(model("tris2", "cnn").policy, buffer, "tris2")
    buffer.seek(0)
    saved = torch.load(buffer, weights_only=True)
    return {"header": json.loads(saved["header"]), "state_dict": saved["state_dict"]}


def _read_with(payload: dict, key: str, value) -> tuple[object, int]:
    """Read the payload's file with header field ``key`` set to ``value``: what it gives
    (a policy or the error) and how many networks were built meanwhile."""
    from sb3_contrib.common.maskable import policies

    header = copy.deepcopy(payload["header"])
    *tables, last = key.split(".")
    place = header
    for table in tables:
        place = place[table]
    place[last] = value
    buffer = io.BytesIO()
    torch.save({"header": json.dumps(header), "state_dict": payload["state_dict"]}, buffer)
    buffer.seek(0)
    built = []
    build = policies.MaskableActorCriticPolicy

    def counted(*args, **kwargs):
        built.append(1)
        return build(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(policies, "MaskableActorCriticPolicy", counted)
        try:
            return read_policy(buffer, "big.pt"), len(built)
        except CheckpointError as error:
            return error, len(built)


SIZE_FIELDS = ("actions", "observation.shape", "network.pi", "network.vf", "network.channels",
               "network.features_dim", "network.kernel_size")
HUGE = st.integers(min_value=70_000, max_value=10**40)
TOO_BIG = {
    "actions": HUGE, "network.features_dim": HUGE, "network.kernel_size": HUGE,
    "observation.shape": st.one_of(st.lists(st.integers(300, 10**12), min_size=2, max_size=8),
                                   st.lists(st.just(1), min_size=9, max_size=100)),
    "network.pi": st.one_of(st.lists(HUGE, min_size=1, max_size=3),
                            st.lists(st.just(8), min_size=65, max_size=200)),
}
TOO_BIG |= {"network.vf": TOO_BIG["network.pi"], "network.channels": TOO_BIG["network.pi"]}
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=300),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=300), inner,
                                                                max_size=3), max_leaves=10)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), key=st.sampled_from(SIZE_FIELDS))
def test_a_size_beyond_its_bound_is_refused_naming_it_before_any_network_is_built(
        cnn_payload, data, key):
    value = data.draw(TOO_BIG[key])
    result, built = _read_with(cnn_payload, key, value)
    assert isinstance(result, CheckpointError) and built == 0
    message = str(result)
    assert f"header field {key!r}" in message or "header field 'network' makes" in message
    assert "\n" not in message and len(message) < 300, message


@settings(max_examples=150, deadline=None)
@given(key=st.sampled_from(SIZE_FIELDS + ("observation.low", "network.extractor",
                                          "network.share_features_extractor")),
       value=JSON_VALUES)
def test_any_header_value_loads_or_is_one_short_line_and_no_network_is_built_in_vain(
        cnn_payload, key, value):
    result, built = _read_with(cnn_payload, key, value)
    if isinstance(result, CheckpointError):
        assert built == 0 and "\n" not in str(result) and len(str(result)) < 300, result
    else:
        assert built == 1


@pytest.mark.parametrize("extractor, share, pi, vf", [
    ("mlp", True, [16], [16]), ("mlp", False, [], [8, 8]), ("cnn", True, [16], []),
    ("cnn", False, [4, 4], [16]),
])
def test_the_shapes_a_header_names_are_those_of_the_policy_it_builds(extractor, share, pi, vf):
    network = NetworkSettings(extractor=extractor, channels=[4, 4], features_dim=16,
                              net_arch=[16])
    kwargs = policy_kwargs(network) | {"net_arch": {"pi": pi, "vf": vf},
                                       "share_features_extractor": share}
    learner = MaskablePPO("MlpPolicy", SingleAgentEnv("tris2", opponent="random"), n_steps=32,
                          batch_size=32, seed=0, device="cpu", policy_kwargs=kwargs)
    header = header_of(learner.policy, "tris2", {})
    assert policy_shapes(header) == {name: tuple(tensor.shape) for name, tensor
                                     in learner.policy.state_dict().items()}


def test_a_file_whose_records_are_compressed_is_refused_before_torch_reads_it(tmp_path):
    good = ppo_module.export_policy(model("tris1"), tmp_path / "good.pt", "tris1")
    packed = tmp_path / "packed.pt"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(packed, "w",
                                                          zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info.filename))
    with pytest.raises(CheckpointError, match="its records are compressed or larger than the "
                                              "file"):
        ppo_module.load_policy(packed)


def test_convert_rewrites_a_pickle_that_plays_the_same(tmp_path):
    learner = model("tris2", "cnn")
    archive = tmp_path / "old.zip"
    learner.save(archive)
    converted = ppo_module.convert(archive, tmp_path / "new.pt", game="tris2")
    assert json.loads(torch.load(converted, weights_only=True)["header"])["game"] == "tris2"
    np.testing.assert_array_equal(probabilities(ppo_module.load_policy(converted), "tris2"),
                                  probabilities(learner.policy, "tris2"))
    with pytest.raises(ValueError, match=r"expects observations of shape \(9, 9, 11\)"):
        ppo_module.convert(archive, tmp_path / "other.pt", game="tris1")
    assert not (tmp_path / "other.pt").exists()
