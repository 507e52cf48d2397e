"""A whole match of an ``llm`` agent against llama.cpp's server, through llama-cpp-python
(the ``llama`` extra). The model is a tiny llama with random weights that the test writes
itself with the ``gguf`` package, so nothing is downloaded: its replies are gibberish, and
the match shows the plumbing (requests, refusals, retries, random moves, the journal and
the metrics) against a real server, not a rating. Slow; skipped where llama-cpp-python or
gguf is not installed."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tris_envs import cli
from tris_envs.evaluation import GameRecord

pytestmark = pytest.mark.slow

CHAT_TEMPLATE = ("{% for message in messages %}<|{{ message['role'] }}|>\n"
                 "{{ message['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
"""The model's chat template: each message after its role, then the assistant's turn."""

CONTEXT = 4096
"""The server's context in tokens: the byte-level vocabulary spends a token on each byte,
and a retry's conversation (rules, position, reply, refusal) comes to about 1,700."""


def write_tiny_model(path: Path, seed: int = 0) -> None:
    """A llama model in GGUF with random F32 weights: two blocks of width 32, four heads,
    and a vocabulary of the three special tokens and the 256 bytes (SentencePiece's byte
    fallback reads any text as bytes)."""
    import gguf  # the llama extra's; the server fixture skips the test without it

    n_embd, n_head, n_ff, n_layer = 32, 4, 64, 2
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{byte:02X}>" for byte in range(256)]
    kinds = ([gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
             + [gguf.TokenType.BYTE] * 256)
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("tris_envs random test model")
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(n_layer)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head)
    writer.add_rope_dimension_count(n_embd // n_head)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * len(tokens))
    writer.add_token_types(kinds)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_chat_template(CHAT_TEMPLATE)
    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:
        """Random weights; numpy's shape is ggml's reversed ((out, in) for a matrix)."""
        return rng.normal(0.0, shape[-1] ** -0.5, shape).astype(np.float32)

    ones = np.ones(n_embd, dtype=np.float32)
    writer.add_tensor("token_embd.weight", weight(len(tokens), n_embd))
    writer.add_tensor("output_norm.weight", ones)
    writer.add_tensor("output.weight", weight(len(tokens), n_embd))
    for block in range(n_layer):
        for name, shape in [("attn_q", (n_embd, n_embd)), ("attn_k", (n_embd, n_embd)),
                            ("attn_v", (n_embd, n_embd)), ("attn_output", (n_embd, n_embd)),
                            ("ffn_gate", (n_ff, n_embd)), ("ffn_up", (n_ff, n_embd)),
                            ("ffn_down", (n_embd, n_ff))]:
            writer.add_tensor(f"blk.{block}.{name}.weight", weight(*shape))
        writer.add_tensor(f"blk.{block}.attn_norm.weight", ones)
        writer.add_tensor(f"blk.{block}.ffn_norm.weight", ones)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    """``python -m llama_cpp.server`` serving ``model`` as ``tiny`` on 127.0.0.1, offline
    (``HF_HUB_OFFLINE=1``, its Hugging Face cache in ``home``); ``log`` holds its output."""

    def __init__(self, model: Path, home: Path, log: Path) -> None:
        self.port, self.log = free_port(), log
        self.url = f"http://127.0.0.1:{self.port}/v1"
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(home)}
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
                 "--model_alias", "tiny", "--host", "127.0.0.1", "--port", str(self.port),
                 "--n_ctx", str(CONTEXT)],
                stdout=out, stderr=subprocess.STDOUT, env=env)

    def wait(self, seconds: float = 120.0) -> dict[str, Any]:
        """The server's ``/models`` answer, once it answers."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"the server exited ({self.process.returncode}):\n"
                            f"{self.log.read_text(errors='replace')[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=5) as response:
                    return json.loads(response.read())
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        pytest.fail(f"the server did not answer in {seconds:g} s:\n"
                    f"{self.log.read_text(errors='replace')[-3000:]}")

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def server(tmp_path, monkeypatch) -> Iterator[LlamaServer]:
    # skipped here, not at collection: a run without slow tests deselects the test
    pytest.importorskip("gguf", reason="needs the gguf package (the llama extra)")
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server] (the "
                                                   "llama extra)")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = tmp_path / "tiny.gguf"
    write_tiny_model(model)
    running = LlamaServer(model, tmp_path / "hf", tmp_path / "server.log")
    yield running
    running.close()


def test_a_match_against_llama_cpp_server_plays_through_and_journals_every_request(
        server, tmp_path, capsys) -> None:
    models = server.wait()
    assert [entry["id"] for entry in models["data"]] == ["tiny"]
    spec = "llm:tiny:retries=1:max_tokens=16:on_illegal=random"
    journal = tmp_path / "games.jsonl"
    assert cli.main(["eval", "tris1", spec, "random", "--games", "2", "--metrics", "--quiet",
                     "--records", str(journal), "--llm-url", server.url]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"^{re.escape(spec)} vs random: .* score \d+\.\d% \[", out,
                     re.MULTILINE), out
    records = [GameRecord.from_json(json.loads(line)["record"])
               for line in journal.read_text().splitlines()[1:]]
    assert len(records) == 2
    for record in records:
        # played to its end, and each of the model's moves has its dialogue
        seat = record.players.index(spec)
        assert not record.truncated
        assert [dialogue.ply for dialogue in record.dialogues] \
            == [ply for ply, (player, _) in enumerate(record.moves) if player == seat]
    dialogues = [dialogue for record in records for dialogue in record.dialogues]
    tries = [exchange for dialogue in dialogues for exchange in dialogue.tries]
    # the random weights name no legal move: each move is two refused replies, then a
    # random legal move, and the game goes on to its end
    assert dialogues and all(dialogue.outcome == "random" and len(dialogue.tries) == 2
                             for dialogue in dialogues)
    assert all(record.forfeit is None for record in records)
    for exchange in tries:
        assert exchange.verdict == "illegal" and exchange.reply is not None
        assert "Legal moves: " in exchange.reason
        assert exchange.messages[0]["role"] == "system"
        assert "Tris 1" in exchange.messages[0]["content"]
        assert exchange.prompt_tokens and exchange.prompt_tokens > 500
        assert exchange.completion_tokens and exchange.completion_tokens > 0
    # a retry is shown its reply and the refusal's reason
    for dialogue in dialogues:
        first, second = dialogue.tries
        assert second.messages[:2] == first.messages[:2]
        assert second.messages[2:] == ({"role": "assistant", "content": first.reply},
                                       {"role": "user", "content": first.reason})
    # every request the server answered is in the journal, and the metrics count them all
    served = server.log.read_text(errors="replace").count('"POST /v1/chat/completions '
                                                          'HTTP/1.1" 200')
    assert served == len(tries) == 2 * len(dialogues)
    usage = re.search(rf"^{re.escape(spec)} requests: (\d+) moves asked in (\d+) requests "
                      rf"\((\d+) retries\); illegal replies 100\.00% \((\d+) of (\d+)\); "
                      rf"0 forfeits, (\d+) random moves; \d+ tokens a move", out,
                      re.MULTILINE)
    assert usage, out
    moves, requests, retries, illegal, replies, random_moves = map(int, usage.groups())
    assert moves == retries == random_moves == len(dialogues)
    assert requests == illegal == replies == len(tries)
    # nothing was downloaded: the server had no model but the file, and its cache is empty
    assert not (tmp_path / "hf").exists()
