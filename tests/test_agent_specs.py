"""Agent specs: one table of forms, parsed once into a frozen, picklable AgentSpec where the
text enters (the command line, the web, a match), the agent built from its fields."""

from __future__ import annotations

import pickle
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from tris_envs import cli
from tris_envs.agents import AgentSpec, make_agent
from tris_envs.agents.az import shipped_network
from tris_envs.agents.spec import AGENT_HELP, AGENT_SPECS, PLUGIN_FAMILIES, SPEC_TABLE
from tris_envs.evaluation import play_match
from tris_envs.evaluation.checkpoint import checkpoint_agent, evaluate_checkpoint
from tris_envs.games import make_game

from checks import odd_file_names

DOCS = Path(__file__).resolve().parents[1] / "docs"
EXAMPLES = {"<simulations>": "300", "<plies>": "3", "<seconds>": "0.5",
            "<path>": "runs/net.npz", "<setting>=<value>": "exploration=0.6",
            "<model>": "llama3.2:1b"}


def example(form: str) -> str:
    """A spec text of ``form``: its placeholders filled in."""
    if form.startswith("llm:"):
        form = form.replace("<setting>=<value>", "retries=3")
    for placeholder, value in EXAMPLES.items():
        form = form.replace(placeholder, value)
    return form


@pytest.mark.parametrize("form", AGENT_SPECS)
def test_every_form_reads_and_writes_back_and_pickles(form: str) -> None:
    text = example(form)
    spec = AgentSpec.parse(text)
    assert str(spec) == text and AgentSpec.parse(str(spec)) == spec
    assert pickle.loads(pickle.dumps(spec)) == spec and hash(spec) == hash(AgentSpec.parse(text))
    assert spec.family == form.split(":", 1)[0]
    with pytest.raises(AttributeError):
        spec.family = "random"  # type: ignore[misc]


def test_the_fields_of_the_forms() -> None:
    assert AgentSpec.parse("mcts:0.5s:decisive") == AgentSpec("mcts", seconds=0.5, decisive=True)
    assert AgentSpec.parse("az:0") == AgentSpec("az", simulations=0)
    assert AgentSpec.parse("az:net.npz:5") == AgentSpec("az", simulations=5, path="net.npz")
    assert AgentSpec.parse("ppo:a:b.pt").path == "a:b.pt"
    assert AgentSpec.parse("alphabeta:64").plies == 64
    assert AgentSpec.parse("openspiel-minimax:2") == AgentSpec("openspiel-minimax", plies=2)
    assert AgentSpec.parse("az:net.npz:5:batch=1:decisive=true") == AgentSpec(
        "az", 5, path="net.npz", settings=(("batch", 1), ("decisive", True)))
    named = "x/az_tant_fant__repetition_draw=True.npz"    # a file's name may hold "="
    assert AgentSpec.parse(f"az:{named}:5:mix=0.5") == AgentSpec(
        "az", 5, path=named, settings=(("mix", 0.5),))
    assert str(AgentSpec("az", 9, settings=(("exploration", 1),))) == "az:9:exploration=1"
    assert str(AgentSpec("mcts", seconds=1)) == "mcts:1s"
    assert str(AgentSpec("mcts", seconds=0.1 + 0.2)) == "mcts:0.30000000000000004s"


@pytest.mark.parametrize("text", ["", "Random", "mcts:", "mcts:0", "mcts:1.5", "mcts:decisive",
                                  "mcts:300:decisive:decisive", "alphabeta:65", "alphabeta:0",
                                  "ppo:", "az:", "az:-1", "az:x:y", "openspiel-mcts",
                                  "openspiel-mcts:0", "chess:3", "mcts:\u0663", 3, None])
def test_a_text_of_no_form_is_refused_in_one_line(text: object) -> None:
    with pytest.raises(ValueError, match="unknown agent spec") as error:
        AgentSpec.parse(text)  # type: ignore[arg-type]
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("text, words", [
    ("az:exploration=0.6", "follow a budget"), ("az:net.npz:batch=1", "follow a budget"),
    ("az:5:batch=0", "batch=0 must be an integer in [1, 4096]"), ("az:5:mix=2", "mix=2.0 must be"),
    ("az:5:exploration=x", "must be a number"), ("az:5:decisive=1", "true or false"),
    ("az:5:batch=1:batch=2", "set twice"), ("az:5:simulations=3", "unknown agent spec"),
    ("az:5:speed=3", "unknown agent spec"), ("mcts:5:batch=1", "unknown agent spec")])
def test_a_bad_search_setting_in_a_spec_is_refused_in_one_line(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=re.escape(words)) as error:
        AgentSpec.parse(text)
    assert "\n" not in str(error.value)


def test_a_specs_search_settings_reach_the_search_over_the_networks() -> None:
    game = make_game("doppia_scelta")
    header = make_agent("az:7").settings_for(game)
    assert (header.exploration, header.batch, header.discount) == (1.25, 8, 0.98)
    agent = make_agent("az:7:exploration=0.6:batch=1")
    settings = agent.settings_for(game)
    assert agent.name == "az:7:exploration=0.6:batch=1"
    assert (settings.simulations, settings.exploration, settings.batch, settings.discount) \
        == (7, 0.6, 1, 0.98)


@pytest.mark.parametrize("fields", [
    {"family": "chess"}, {"family": "mcts", "plies": 3}, {"family": "mcts", "simulations": 0},
    {"family": "mcts", "simulations": True}, {"family": "mcts", "decisive": True},
    {"family": "mcts", "simulations": 5, "seconds": 1.0}, {"family": "alphabeta", "plies": 65},
    {"family": "alphabeta", "seconds": float("inf")}, {"family": "random", "path": "x"},
    {"family": "az", "simulations": -1}, {"family": "ppo", "path": ""},
    {"family": "openspiel-mcts"}, {"family": "mcts", "decisive": 1},
    {"family": "az", "settings": (("batch", 1),)}, {"family": "mcts", "simulations": 5,
                                                  "settings": (("batch", 1),)},
    {"family": "az", "simulations": 5, "settings": (("batch", True),)},
    {"family": "az", "simulations": 5, "settings": (("batch", 1.5),)},
    {"family": "az", "simulations": 5, "settings": [("batch", 1)]},
    {"family": "llm"}, {"family": "llm", "model": "two words"}, {"family": "mcts", "model": "x"},
    {"family": "llm", "model": "x", "settings": (("retries", 11),)},
    {"family": "llm", "model": "x", "settings": (("batch", 1),)},
    {"family": "llm", "model": "x", "server": "http://127.0.0.1:9/v1"}])
def test_a_spec_made_in_python_is_checked_as_the_text_is(fields: dict) -> None:
    with pytest.raises(ValueError) as error:
        AgentSpec(**fields)
    assert "\n" not in str(error.value)


def test_make_agent_builds_from_the_fields_without_parsing(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")    # llm: asks nothing yet
    texts = [example(form) for form in AGENT_SPECS
             if "<path>" not in form and form.split(":", 1)[0] not in PLUGIN_FAMILIES | {"ppo"}]
    specs = [AgentSpec.parse(text) for text in texts]

    def refuse(cls, text):
        raise AssertionError(f"parsed {text!r} again")

    monkeypatch.setattr(AgentSpec, "parse", classmethod(refuse))
    for text, spec in zip(texts, specs):
        agent = make_agent(spec, np.random.default_rng(0))
        assert agent.name.split(":", 1)[0] == spec.family, (text, agent.name)
    assert make_agent(AgentSpec("mcts", simulations=7)).simulations == 7
    assert make_agent(AgentSpec("alphabeta", seconds=2.0)).time_budget == 2.0


def test_the_help_and_the_docs_list_the_table() -> None:
    for row in SPEC_TABLE:
        assert f"\n  {row.label}" in AGENT_HELP
    page = (DOCS / "agents.md").read_text()
    table = page[page.index("| spec (`make_agent"):]
    table = table[:table.index("\n\n")]
    documented = [form for line in table.splitlines()[2:]
                  for form in re.findall(r"`([^`]+)`", line.split(" | ")[0])]
    assert documented == [form for form in AGENT_SPECS
                          if form.split(":", 1)[0] not in PLUGIN_FAMILIES]
    openspiel = (DOCS / "openspiel.md").read_text()
    assert all(f"`{form}`" in openspiel for form in AGENT_SPECS
               if form.split(":", 1)[0] in PLUGIN_FAMILIES)


def counting_parse(monkeypatch) -> list[str]:
    """Record every text :meth:`AgentSpec.parse` reads."""
    original = AgentSpec.parse.__func__  # type: ignore[attr-defined]
    seen: list[str] = []

    def parse(cls, text):
        seen.append(text)
        return original(cls, text)

    monkeypatch.setattr(AgentSpec, "parse", classmethod(parse))
    return seen


def test_a_spec_on_the_command_line_is_parsed_once(monkeypatch, capsys) -> None:
    seen = counting_parse(monkeypatch)
    assert cli.main(["eval", "tris1", "az:100", "random", "--games", "2", "--quiet"]) in (0, None)
    assert capsys.readouterr().out.startswith("az")
    assert seen.count("az:100") == 1 and seen.count("random") == 1, seen


def test_a_match_parses_its_texts_once_and_sends_specs_to_its_workers(monkeypatch) -> None:
    seen = counting_parse(monkeypatch)
    game = make_game("tris1")
    result = play_match(game, "mcts:5", AgentSpec("greedy"), 4, seed=0, processes=2)
    assert result.n_games == 4 and seen == ["mcts:5"]


def test_a_checkpoint_is_played_from_a_spec_not_a_text(monkeypatch) -> None:
    game = make_game("tris1")
    network = shipped_network(game)
    assert checkpoint_agent(network, game, simulations=3) == AgentSpec("az", 3, path=str(network))
    assert checkpoint_agent(network, game) == AgentSpec("az", path=str(network))
    seen = counting_parse(monkeypatch)
    results = evaluate_checkpoint(network, game, ["random"], 2, seed=0, judge_moves=False,
                                  simulations=2)
    assert seen == ["random"] and results[0].opponent == "random"
    assert results[0].match.names[0] == f"az:{network}:2"


def test_a_text_cannot_name_an_az_file_holding_a_colon() -> None:
    with pytest.raises(ValueError, match="the file 'a:b.npz' cannot be named in an az spec"):
        AgentSpec.parse("az:a:b.npz:5")
    assert AgentSpec.parse("az:100") == AgentSpec("az", 100)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(folder=odd_file_names(), name=odd_file_names())
def test_a_network_file_is_played_from_its_path_whatever_its_name(tmp_path, folder, name):
    """A file is never spec text: ``evaluate FILE`` plays any path, ``:`` and all."""
    game = make_game("tris1")
    path = tmp_path / folder / f"{name}.npz"
    path.parent.mkdir(exist_ok=True)
    shutil.copyfile(shipped_network(game), path)
    assert checkpoint_agent(path, game, simulations=0) == AgentSpec("az", 0, path=str(path))
    results = evaluate_checkpoint(path, game, ["random"], 2, seed=0, judge_moves=False,
                                  simulations=0)
    assert results[0].match.n_games == 2 and results[0].match.names[0] == f"az:{path}:0"
    assert cli.main(["evaluate", str(path), "--game", "tris1", "--games", "2", "--opponents",
                     "random", "--simulations", "0", "--no-judge", "--quiet"]) == 0


def test_a_training_pool_parses_its_members_once_not_per_episode(monkeypatch) -> None:
    from tris_envs.envs.turns import OpponentPlayer
    from tris_envs.ppo.pool import OpponentPool

    expected = {"random": AgentSpec("random"), "mcts:5": AgentSpec("mcts", simulations=5)}
    seen = counting_parse(monkeypatch)
    pool = OpponentPool({"random": 1.0, "mcts:5": 1.0, "self": 1.0}, seed=0)
    for _ in range(20):
        label, member = pool.draw()
        assert member == expected[label]
        OpponentPlayer(member, np.random.default_rng(0))
    assert sorted(seen) == ["mcts:5", "random"]
