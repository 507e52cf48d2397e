"""The machine line that ``tris-envs bench`` prints and training runs keep."""

import platform

from tris_envs.machine import cpu_facts, describe, usable_cpus

INTEL = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 106
model name\t: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz
cpu MHz\t\t: 2899.998
flags\t\t: fpu sse2 avx avx2 fma avx512f avx512dq
power management:

processor\t: 1
model name\t: Another CPU
flags\t\t: fpu
"""

AMD = """processor\t: 0
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC
cpu MHz\t\t: 2445.432
flags\t\t: fpu sse2 avx avx2 fma
"""


def test_cpuinfo_gives_the_first_processors_model_and_vector_instructions():
    assert cpu_facts(INTEL) == (
        "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz (family 6, model 106, 2900 MHz)",
        ["AVX2", "AVX-512"])
    assert cpu_facts(AMD) == ("AMD EPYC (family 25, model 1, 2445 MHz)",
                              ["AVX2", "no AVX-512"])
    assert cpu_facts("") == ("", [])
    assert cpu_facts("processor\t: 0\nmodel name\t: Some ARM\n") == ("Some ARM", [])


def test_the_line_names_the_usable_cpus_the_system_and_python(monkeypatch, tmp_path):
    import tris_envs.machine as machine

    info = tmp_path / "cpuinfo"
    info.write_text(AMD)
    monkeypatch.setattr(machine, "CPUINFO", info)
    line = describe()
    assert line.startswith(f"AMD EPYC (family 25, model 1, 2445 MHz), {usable_cpus()} CPUs "
                           "(AVX2, no AVX-512), ")
    assert f"{platform.system()} {platform.machine()}" in line
    assert f"Python {platform.python_version()}" in line
    monkeypatch.setattr(machine, "CPUINFO", tmp_path / "missing")
    assert f", {usable_cpus()} CPUs, " in describe()
