"""The Makefile's choice of PyTorch index, decided without downloading anything."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "torch_index.py"
_spec = importlib.util.spec_from_file_location("torch_index", SCRIPT)
torch_index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(torch_index)


@pytest.mark.parametrize("choice, reachable, expected", [
    ("auto", True, ["--index-url", torch_index.CPU_INDEX]),
    ("auto", False, []),
    ("cpu", False, ["--index-url", torch_index.CPU_INDEX]),
    ("default", True, []),
    ("https://download.pytorch.org/whl/cu126", False,
     ["--index-url", "https://download.pytorch.org/whl/cu126"]),
])
def test_index_choice(choice, reachable, expected):
    probed = []

    def probe(url):
        probed.append(url)
        return reachable

    assert torch_index.pip_arguments(choice, probe) == expected
    assert probed == ([torch_index.CPU_INDEX] if choice == "auto" else [])


def test_unknown_choice_is_refused():
    with pytest.raises(ValueError, match="auto, cpu, default or an index URL"):
        torch_index.pip_arguments("gpu")
    result = subprocess.run([sys.executable, str(SCRIPT)], env={"TORCH_INDEX": "gpu"},
                            capture_output=True, text=True)
    assert result.returncode == 2 and "TORCH_INDEX='gpu'" in result.stderr


def test_an_unreachable_index_falls_back_quickly():
    assert not torch_index.answers("http://127.0.0.1:9", timeout=2.0)
    assert torch_index.PROBE_SECONDS <= 5


def test_the_makefile_installs_torch_through_the_choice():
    makefile = (ROOT / "Makefile").read_text()
    assert 'TORCH_ARGS="$$($(PYTHON) tools/torch_index.py)"' in makefile
    assert "pip install $$TORCH_ARGS torch==" in makefile
