"""The llm agent against a real HTTP server on 127.0.0.1 that speaks the chat-completions
protocol, scripted to answer legal moves, illegal ones, malformed JSON, prose around the
move, slow replies and HTTP errors; the records' forfeits and dialogues; the journal and
``--resume``; the ratings on the command line."""

from __future__ import annotations

import dataclasses
import json
import pickle
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from tris_envs import cli
from tris_envs.agents import AgentSpec, make_agent
from tris_envs.agents.llm import LLMAgent, LLMServer, LLMSettings
from tris_envs.agents.protocol import Forfeit
from tris_envs.agents.spec import served_specs
from tris_envs.evaluation import GameRecord, play_match, play_recorded, replay
from tris_envs.games import make_game

KEY = "sk-test-4f9c2b7e"
USAGE = {"prompt_tokens": 120, "completion_tokens": 8, "total_tokens": 128}

Answer = tuple[int, Any, float]
"""What the fake server sends: the status, the body (a dict is sent as JSON, text as is)
and the seconds it waits first."""


def legal_moves(body: dict[str, Any]) -> list[str]:
    """The legal moves the position prompt (the conversation's second message) lists."""
    found = re.search(r"Legal moves[^:]*: (.*)", body["messages"][1]["content"])
    assert found, body["messages"][1]["content"]
    return found.group(1).rstrip(".").split("; ")


def reply(content: str) -> Answer:
    """A chat completion whose reply is ``content``."""
    return 200, {"id": "x", "object": "chat.completion", "usage": USAGE,
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": content}}]}, 0.0


def first_legal(body: dict[str, Any]) -> Answer:
    """The first legal move, as JSON in prose."""
    move = legal_moves(body)[0]
    return reply(f'I weigh the options.\n{{"move": "{move}"}}\nThat is my move.')


class FakeServer:
    """A chat-completions server on 127.0.0.1 in a thread; ``script(body)`` answers each
    request, and ``requests`` keeps them (their headers and bodies); ``trickle``: seconds
    between two bytes of the first answer's body."""

    def __init__(self) -> None:
        self.script: Callable[[dict[str, Any]], Answer] = first_legal
        self.trickle = 0.0
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append((dict(self.headers), body))
                status, payload, delay = ((404, {"error": "no such path"}, 0.0)
                                          if self.path != "/v1/chat/completions"
                                          else fake.script(body))
                time.sleep(delay)
                data = (json.dumps(payload) if isinstance(payload, dict) else payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if fake.trickle and len(fake.requests) == 1:
                    for byte in data:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(fake.trickle)
                else:
                    self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.handle_error = lambda *args: None  # type: ignore[method-assign]
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,),
                                       daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fake(monkeypatch) -> Iterator[FakeServer]:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = FakeServer()
    yield server
    server.close()


def agent(fake: FakeServer, key: str | None = None, **settings: Any) -> LLMAgent:
    return LLMAgent("tiny", LLMServer(fake.url, key), LLMSettings(**settings),
                    rng=np.random.default_rng(0))


def play(fake: FakeServer, llm: LLMAgent, game: str = "tris1") -> GameRecord:
    """One game, the llm agent in seat 0 against a random player."""
    rules = make_game(game)
    return play_recorded(rules, [llm, make_agent("random", np.random.default_rng(1))],
                         np.random.default_rng(2))


# ----- the spec ---------------------------------------------------------------------------
def test_a_model_name_may_hold_colons_and_trailing_settings_are_read() -> None:
    spec = AgentSpec.parse("llm:llama3.2:1b")
    assert (spec.family, spec.model, spec.settings) == ("llm", "llama3.2:1b", ())
    text = "llm:hf.co/org/model:Q4_K_M:retries=3:on_illegal=random:temperature=0.2:timeout=5"
    spec = AgentSpec.parse(text)
    assert spec.model == "hf.co/org/model:Q4_K_M"
    assert spec.settings == (("retries", 3), ("on_illegal", "random"), ("temperature", 0.2),
                             ("timeout", 5.0))
    assert str(spec) == text and AgentSpec.parse(str(spec)) == spec
    assert pickle.loads(pickle.dumps(spec)) == spec


@pytest.mark.parametrize("text, words", [
    ("llm:x:retries=11", "retries=11 must be an integer in [0, 10]"),
    ("llm:x:retries=two", "retries='two' must be an integer"),
    ("llm:x:on_illegal=pass", "must be one of 'forfeit', 'random'"),
    ("llm:x:temperature=3", "temperature=3.0 must be a number in [0, 2]"),
    ("llm:x:timeout=0", "timeout=0.0 must be a number in (0, 3600]"),
    ("llm:x:max_tokens=0", "max_tokens=0 must be an integer in [1, 1048576]"),
    ("llm:x:retires=3", "'retires' is not a setting of an llm agent"),
    ("llm:x:retries=1:retries=2", "set twice"),
    ("llm:retries=2", "reads as a setting"),
    ("llm:x:url=http://elsewhere.example:9/v1", "never names the server"),
    ("llm:", "unknown agent spec"), ("llm", "unknown agent spec")])
def test_a_bad_llm_spec_is_refused_in_one_line(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=re.escape(words)) as error:
        AgentSpec.parse(text)
    assert "\n" not in str(error.value)


def test_a_spec_names_no_server_and_the_key_stays_out_of_its_text() -> None:
    # a URL in a spec is only a model's name: the requests go to the operator's server
    spec = AgentSpec.parse("llm:http://elsewhere.example/v1")
    assert spec.model == "http://elsewhere.example/v1" and spec.server is None
    server = LLMServer("http://127.0.0.1:9/v1/", KEY)
    served = served_specs([spec, AgentSpec("random")], server)
    assert served[0].server == server and served[0].server.url == "http://127.0.0.1:9/v1"
    assert served[1] == AgentSpec("random")
    assert KEY not in repr(served[0]) and KEY not in str(served[0])
    assert pickle.loads(pickle.dumps(served[0])).server.key == KEY
    with pytest.raises(ValueError, match="server must be None"):
        AgentSpec("mcts", server=server)


def test_without_a_url_an_llm_agent_is_refused_naming_the_flag_and_the_variable(
        fake, capsys) -> None:
    with pytest.raises(ValueError, match="--llm-url URL or set OPENAI_BASE_URL"):
        make_agent("llm:tiny")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["eval", "tris1", "llm:tiny", "random", "--games", "2", "--quiet"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--llm-url" in err and "OPENAI_BASE_URL" in err and len(err.splitlines()) == 1
    with pytest.raises(SystemExit):
        cli.main(["eval", "tris1", "llm:tiny", "random", "--llm-url", "ftp://x", "--quiet"])
    assert "must be an http:// or https:// URL" in capsys.readouterr().err
    assert not fake.requests


def test_the_environment_names_the_server_and_the_key(fake, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    llm = make_agent("llm:tiny:retries=0")
    assert isinstance(llm, LLMAgent) and llm.name == "llm:tiny:retries=0"
    assert not fake.requests                      # making the agent asks nothing
    play(fake, llm)
    headers, body = fake.requests[0]
    assert headers["Authorization"] == f"Bearer {KEY}" and body["model"] == "tiny"


# ----- the moves --------------------------------------------------------------------------
def test_a_legal_move_in_prose_is_played_and_its_dialogue_kept(fake) -> None:
    record = play(fake, agent(fake, max_tokens=64))
    assert record.dialogues and all(d.outcome == "move" and len(d.tries) == 1
                                    for d in record.dialogues)
    body = fake.requests[0][1]
    assert (body["model"], body["temperature"], body["max_tokens"]) == ("tiny", 0.0, 64)
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    first = record.dialogues[0]
    assert (first.seat, first.ply) == (0, 0) and record.moves[0][0] == 0
    exchange = first.tries[0]
    assert exchange.messages == tuple(body["messages"])
    assert exchange.verdict == "legal" and exchange.reason == ""
    assert '"move"' in str(exchange.reply) and exchange.prompt_tokens == 120
    assert exchange.completion_tokens == 8 and exchange.seconds >= 0
    assert len(fake.requests) == len(record.dialogues) == sum(a == 0 for a, _ in record.moves)
    replay(make_game("tris1"), record)


def test_an_illegal_reply_is_retried_with_the_reason_shown(fake) -> None:
    def illegal_first(body: dict[str, Any]) -> Answer:
        return reply('{"move": "7,7"}') if len(body["messages"]) == 2 else first_legal(body)

    fake.script = illegal_first
    record = play(fake, agent(fake))
    first = record.dialogues[0]
    assert [t.verdict for t in first.tries] == ["illegal", "legal"]
    assert first.outcome == "move"
    retry = fake.requests[1][1]["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[2]["content"] == '{"move": "7,7"}'
    assert retry[3]["content"] == first.tries[0].reason and "7,7" in retry[3]["content"]
    assert "Legal moves" in retry[3]["content"]


@pytest.mark.parametrize("content", ["no idea", "{'move': '1,1'}", '{"move": 11}', ""])
def test_illegal_replies_then_a_forfeit_end_the_game_lost(fake, content) -> None:
    fake.script = lambda body: reply(content)
    record = play(fake, agent(fake, retries=2))
    assert record.forfeit == 0 and record.returns == (-1.0, 1.0) and not record.truncated
    assert record.moves == [] and len(fake.requests) == 3
    (dialogue,) = record.dialogues
    assert dialogue.outcome == "forfeit" and dialogue.ply == 0
    assert [t.verdict for t in dialogue.tries] == ["illegal"] * 3
    game = make_game("tris1")
    assert replay(game, record) == game.initial_state(np.random.default_rng(0))
    again = GameRecord.from_json(record.to_json())
    assert again == record


def test_a_forfeit_raises_for_whoever_asks_the_agent_directly(fake) -> None:
    fake.script = lambda body: reply("pass")
    game = make_game("tris1")
    with pytest.raises(Forfeit, match=r"llm:tiny forfeits: no legal move in 1 try"):
        agent(fake, retries=0).act(game, game.initial_state(np.random.default_rng(0)))


def test_on_illegal_random_plays_a_random_legal_move_and_counts_it(fake) -> None:
    fake.script = lambda body: reply("{move: 1,1")                 # malformed JSON
    record = play(fake, agent(fake, retries=1, on_illegal="random"))
    assert record.forfeit is None and record.dialogues
    assert all(d.outcome == "random" and len(d.tries) == 2 for d in record.dialogues)
    assert {t.verdict for d in record.dialogues for t in d.tries} == {"illegal"}
    assert "JSON" in record.dialogues[0].tries[0].reason
    replay(make_game("tris1"), record)


@pytest.mark.parametrize("answer, words", [
    ((500, {"error": {"message": "model crashed"}}, 0.0), "HTTP 500 Internal Server Error: "
                                                          "model crashed"),
    ((401, {"error": "bad key"}, 0.0), "--llm-key or OPENAI_API_KEY"),
    ((200, "<html>not json</html>", 0.0), "the response is not JSON"),
    ((200, {"choices": []}, 0.0), "the response has no choices"),
    ((200, {"choices": [{"message": {"content": None}}]}, 0.0), "holds no message text"),
    ((200, {"choices": [{}]}, 0.0), "holds no message text"),
])
def test_a_failed_request_is_a_try_with_its_reason(fake, answer, words) -> None:
    def fail_first(body: dict[str, Any]) -> Answer:
        return answer if len(fake.requests) == 1 else first_legal(body)

    fake.script = fail_first
    record = play(fake, agent(fake, KEY))
    first = record.dialogues[0]
    assert [t.verdict for t in first.tries] == ["error", "legal"]
    failed = first.tries[0]
    assert failed.reply is None and words in failed.reason and "\n" not in failed.reason
    # a failure sends the same conversation again: no reply to show
    assert fake.requests[1][1]["messages"] == fake.requests[0][1]["messages"]
    assert KEY not in record.to_json()


def test_a_slow_reply_times_out_as_a_failed_try(fake) -> None:
    def slow_first(body: dict[str, Any]) -> Answer:
        status, payload, _ = first_legal(body)
        return status, payload, 1.5 if len(fake.requests) == 1 else 0.0

    fake.script = slow_first
    start = time.monotonic()
    record = play(fake, agent(fake, timeout=0.3))
    first = record.dialogues[0]
    assert [t.verdict for t in first.tries] == ["error", "legal"]
    assert first.tries[0].reason == "no response within the timeout (0.3 s)"
    assert 0.3 <= first.tries[0].seconds < 1.2 and time.monotonic() - start < 5


def test_a_reply_trickled_a_byte_at_a_time_times_out_in_all(fake) -> None:
    # each byte came within the socket's timeout, so the request ran on for a minute
    fake.trickle = 0.2
    start = time.monotonic()
    record = play(fake, agent(fake, timeout=0.5))
    first = record.dialogues[0]
    assert [t.verdict for t in first.tries] == ["error", "legal"]
    assert first.tries[0].reason == "no response within the timeout (0.5 s)"
    assert first.tries[0].seconds < 1.0 and time.monotonic() - start < 5


def test_an_unreachable_server_is_a_failed_try() -> None:
    llm = LLMAgent("tiny", LLMServer("http://127.0.0.1:9/v1"), LLMSettings(retries=0),
                   rng=np.random.default_rng(0))
    game = make_game("tris1")
    with pytest.raises(Forfeit, match="cannot reach the llm server"):
        llm.act(game, game.initial_state(np.random.default_rng(0)))
    dialogue = llm.take_dialogue(0, 0)
    assert dialogue is not None and dialogue.tries[0].verdict == "error"
    assert llm.take_dialogue(0, 1) is None


# ----- records ----------------------------------------------------------------------------
def test_a_record_without_the_new_fields_reads_as_before() -> None:
    old = ('{"game": "tris1", "options": {"max_moves": 9}, "players": ["a", "b"], '
           '"start": ".../.../...", "moves": [[0, 4]], "positions": ["..././.x./..."], '
           '"returns": [0.0, 0.0], "truncated": true}')
    record = GameRecord.from_json(old)
    assert record.forfeit is None and record.dialogues == []
    assert "forfeit" not in record.to_json() and "dialogues" not in record.to_json()


def forged(record: GameRecord, **changes: Any) -> dict[str, Any]:
    data = json.loads(record.to_json())
    data.update(changes)
    return data


def test_a_forged_forfeit_or_dialogue_is_refused(fake) -> None:
    fake.script = lambda body: (first_legal(body) if len(fake.requests) <= 2
                                else reply("resign"))
    record = play(fake, agent(fake, retries=0))
    game = make_game("tris1")
    assert record.forfeit == 0 and len(record.moves) == 4
    replay(game, record)
    # the shape: a forfeit's returns, the outcome, the fields of a try
    cases: list[tuple[dict[str, Any], str]] = [
        ({"forfeit": 1}, "its returns must be [1, -1]"),
        ({"forfeit": 2}, "'forfeit' must be the seat 0 or 1"),
        ({"truncated": True}, "cannot be truncated"),
        ({"forfeit": None}, "a forfeit must be the last dialogue")]
    for changes, words in cases:
        with pytest.raises(ValueError, match=re.escape(words)):
            GameRecord.from_data(forged(record, **changes))
    data = forged(record)
    data["dialogues"][0]["tries"][0]["prompt_tokens"] = -1
    with pytest.raises(ValueError, match="dialogue 0, try 0: token counts"):
        GameRecord.from_data(data)
    data = forged(record)
    data["dialogues"][0]["outcome"] = "resign"
    with pytest.raises(ValueError, match="outcome must be one of move, random, forfeit"):
        GameRecord.from_data(data)
    # against the moves: the forfeiting seat must be the one to move
    shifted = dataclasses.replace(record, moves=record.moves[:-1],
                                  positions=record.positions[:-1])
    with pytest.raises(ValueError, match="seat 0 forfeited after move 2, but player 1 is "
                                         "to act"):
        replay(game, shifted)
    moved = dataclasses.replace(record, dialogues=[dataclasses.replace(
        record.dialogues[0], ply=1)] + record.dialogues[1:])
    with pytest.raises(ValueError, match="dialogue 0 of the record is of seat 0's move 1"):
        replay(game, moved)


# ----- matches, the journal, --resume -----------------------------------------------------
def test_a_match_keeps_the_dialogues_in_its_journal_without_records(fake, tmp_path) -> None:
    path = tmp_path / "games.jsonl"
    spec = served_specs([AgentSpec.parse("llm:tiny")], LLMServer(fake.url, KEY))[0]
    result = play_match(make_game("tris1"), spec, "random", 4, seed=0, records=path)
    assert result.n_games == 4 and result.records == []
    text = path.read_text()
    assert KEY not in text
    games = [GameRecord.from_json(json.loads(line)["record"])
             for line in text.splitlines()[1:]]
    assert [record.moves for record in games] == [[]] * 4      # not kept, but the dialogues:
    assert sum(len(d.tries) for record in games for d in record.dialogues) \
        == len(fake.requests) > 0
    assert all(headers["Authorization"] == f"Bearer {KEY}" for headers, _ in fake.requests)


def test_resume_asks_no_finished_game_again(fake, tmp_path, capsys) -> None:
    path = tmp_path / "games.jsonl"
    argv = ["eval", "tris1", "llm:tiny", "random", "--games", "4", "--quiet",
            "--records", str(path), "--llm-url", fake.url]
    assert cli.main(argv) == 0
    whole = capsys.readouterr().out
    lines = path.read_text().splitlines()
    kept = [GameRecord.from_json(json.loads(line)["record"]) for line in lines[1:]]
    asked = [sum(len(d.tries) for d in record.dialogues) for record in kept]
    assert len(fake.requests) == sum(asked) > 0
    # interrupted after two games: the resume asks for the other two only
    path.write_text("\n".join(lines[:3]) + "\n")
    fake.requests.clear()
    assert cli.main([*argv, "--resume"]) == 0
    assert capsys.readouterr().out == whole
    assert len(fake.requests) == sum(asked[2:])
    fake.requests.clear()
    assert cli.main([*argv, "--resume"]) == 0
    assert capsys.readouterr().out == whole and fake.requests == []


# ----- ratings on the command line --------------------------------------------------------
def test_eval_metrics_report_the_requests_beside_the_move_quality(fake, capsys) -> None:
    def mostly_legal(body: dict[str, Any]) -> Answer:
        return reply("e9-e8") if len(fake.requests) % 4 == 1 else first_legal(body)

    fake.script = mostly_legal
    assert cli.main(["eval", "tant_fant", "llm:tiny", "solver", "--games", "2", "--metrics",
                     "--quiet", "--llm-url", fake.url]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^llm:tiny vs solver: .* score \d+\.\d% \[", out, re.MULTILINE)
    quality = re.search(r"^llm:tiny: (\d+) moves, blunder rate .*value-keeping", out,
                        re.MULTILINE)
    usage = re.search(r"^llm:tiny requests: (\d+) moves asked in (\d+) requests \((\d+) "
                      r"retries\); illegal replies \d+\.\d+% \((\d+) of \d+\); 0 forfeits, "
                      r"0 random moves; (\d+) tokens a move \(\d+ sent, \d+ replied\); "
                      r"\d+\.\d+ s a move$", out, re.MULTILINE)
    assert quality and usage, out
    moves, requests, retries, illegal, tokens = map(int, usage.groups())
    assert moves == int(quality.group(1)) and requests == len(fake.requests)
    assert tokens == round(requests * 128 / moves)
    assert retries == illegal == requests - moves > 0
    assert "solver requests" not in out


def test_metrics_on_a_game_with_dice_count_the_requests(fake, capsys) -> None:
    assert cli.main(["eval", "tritoc", "llm:tiny", "random", "--games", "1", "--metrics",
                     "--quiet", "--option", "max_moves=6", "--llm-url", fake.url]) == 0
    out = capsys.readouterr().out
    assert "move quality: tritoc has dice" in out
    assert re.search(r"^llm:tiny requests: [1-9]\d* moves asked", out, re.MULTILINE)


def test_a_tournament_rates_models_and_the_ladder_on_one_scale(fake, capsys) -> None:
    assert cli.main(["tournament", "tris1", "llm:small", "llm:big:temperature=0.5", "random",
                     "--games", "2", "--quiet", "--llm-url", fake.url, "--llm-key", KEY]) == 0
    out = capsys.readouterr().out
    rows = {line.split(" | ")[0].lstrip("| "): line for line in out.splitlines()
            if line.startswith("| ") and "Elo" not in line}
    assert set(rows) == {"llm:small", "llm:big:temperature=0.5", "random"}
    assert all(re.match(r"\| \S+ \| [+-]\d+ \|", row) for row in rows.values())
    models = {body["model"] for _, body in fake.requests}
    assert models == {"small", "big"}
    assert {body["temperature"] for _, body in fake.requests} == {0.0, 0.5}


def test_a_forfeit_in_the_terminal_ends_the_game_won(fake, monkeypatch, capsys) -> None:
    from tris_envs.play import play_session

    fake.script = lambda body: reply("?")
    spec = served_specs([AgentSpec.parse("llm:tiny:retries=0")], LLMServer(fake.url))[0]
    lines: list[str] = []
    result = play_session(make_game("tris1"), spec, 1, 0, read=lambda prompt: "quit",
                          write=lines.append)
    assert result == 1 and "llm:tiny:retries=0 forfeits" in lines[-1]
    assert lines[-1].endswith("You win!")
