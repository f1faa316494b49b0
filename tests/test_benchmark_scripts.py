"""benchmarks/peers.py and benchmarks/batched.py: quick runs print every row and exit 0, with or
without the peers (mpe2, magent2: the ``peers`` extra, not in dev/CI) and the compiled batch
API; the masked sampler draws only allowed values, uniformly."""

from __future__ import annotations

import importlib
import importlib.util
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
SFB_ROWS = [f"| sfb-env {scenario} | {backend}"
            for scenario in ("cth-03", "duel-klingon-vs-federation")
            for backend in ("reference", "compiled")]
PEER_ROWS = {"mpe2": "| mpe2 simple_spread_v3 |", "magent2": "| magent2 battle_v4 (map_size=20) |"}


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:
        return False


def script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCHMARKS / name), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)  # cold numba cache


@pytest.fixture
def bench_modules(monkeypatch):
    """``peers`` and ``batched`` imported from benchmarks/ (as the scripts import each other)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    for name in ("peers", "batched"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module("peers"), importlib.import_module("batched")


def row_of(output: str, prefix: str) -> str:
    (line,) = [line for line in output.splitlines() if line.startswith(prefix)]
    return line


def test_peers_quick_prints_the_machine_and_a_row_per_env_and_backend():
    run = script("peers.py", "--quick")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "CPUs" in out and "numpy" in out and "numba" in out
    assert "| env | backend | env steps/s | agent-steps/s | vs mpe2 |" in out
    for module, prefix in PEER_ROWS.items():
        line = row_of(out, prefix)
        if installed(module):
            assert "not installed" not in line and "FAILED" not in line
        else:
            assert "not installed" in line
    for prefix in SFB_ROWS:
        line = row_of(out, prefix)
        assert "FAILED" not in line
    # the reference engine is always there (with or without the backend= keyword)
    reference = row_of(out, SFB_ROWS[0])
    assert "n/a" not in reference.split("|")[3]
    if installed("mpe2"):
        assert row_of(out, PEER_ROWS["mpe2"]).split("|")[5].strip() == "1.000"
    assert "sampler alone" in out
    for prefix in SFB_ROWS:
        if "compiled" in prefix and installed("mpe2"):
            env = prefix.split("|")[1].strip()
            assert f"steps/s: {env} " in out  # the target line of each compiled row


def test_peers_that_cannot_be_imported_get_not_installed_rows(bench_modules, monkeypatch):
    peers, _ = bench_modules
    for module in ("mpe2", "magent2", "magent2.environments"):
        monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    rows = [peers.measure_peer(name, 0.05, 0, 1, 10) for name in ("mpe2", "magent2")]
    assert [r.note for r in rows] == ["not installed", "not installed"]
    assert not any(r.failed for r in rows)
    sfb = peers.Row("sfb-env x", "reference", 100.0, 200.0, 0.05, 0.1)
    table = "\n".join(peers.table([*rows, sfb]))
    assert "| mpe2 simple_spread_v3 | - | not installed |" in table
    assert "| sfb-env x | reference | 100 | 200 | n/a | n/a | n/a | 5.0% | 0.1 |" in table


def test_masked_sampler_draws_each_allowed_value_uniformly(bench_modules):
    peers, _ = bench_modules
    nvec = np.array([3, 1, 5, 2, 7])
    mask = np.array([1, 0, 1,  1,  0, 0, 1, 1, 0,  0, 1,  1, 1, 1, 1, 1, 1, 1], dtype=np.int8)
    sample = peers.MaskedSampler(nvec)
    rng = np.random.default_rng(3)
    draws = np.array([sample(rng, mask) for _ in range(7000)])
    bounds = np.concatenate([[0], np.cumsum(nvec)])
    for k, n in enumerate(nvec):
        counts = np.bincount(draws[:, k], minlength=n)
        allowed = mask[bounds[k]:bounds[k + 1]].astype(bool)
        assert len(counts) == n and not counts[~allowed].any()
        expected = len(draws) / allowed.sum()
        assert np.all(np.abs(counts[allowed] - expected) < 0.1 * expected)


def test_batched_quick_exits_0_with_or_without_the_batch_api():
    run = script("batched.py", "--quick")
    assert run.returncode == 0, run.stderr
    assert "running on CPUs" in run.stdout
    if "compiled batch API not available" not in run.stdout:
        for prefix in ("| compiled B=1 |", "| compiled B=64 |", "| reference env (1 battle) |"):
            row_of(run.stdout, prefix)


class StandInBatch:
    """The compiled batch API's shapes (``sfb_env.compiled.batch.BattleBatch``), no rules."""

    ships_per_battle = 2

    def __init__(self, scenario, num_battles, seed):
        self.battles, self.nvec = num_battles, np.array([3, 4, 2])

    def reset(self):
        b = self.battles
        return np.zeros((b, 2, 5), np.float32), np.ones((b, 2, int(self.nvec.sum())), np.int8)

    def sample_actions(self, rng, out=None):
        acts = rng.integers(0, self.nvec, size=(self.battles, 2, len(self.nvec)))
        if out is not None:
            out[...] = acts
            return out
        return acts

    def step(self, actions):
        assert actions.shape == (self.battles, 2, len(self.nvec))
        obs, masks = self.reset()
        zeros = np.zeros((self.battles, 2))
        return obs, masks, zeros, zeros.astype(bool), zeros.astype(bool)


def test_batched_table_counts_ship_impulses_per_batch_size(bench_modules, monkeypatch, capsys):
    _, batched = bench_modules
    module = type(sys)("sfb_env.compiled.batch")
    module.BattleBatch = StandInBatch
    monkeypatch.setitem(sys.modules, "sfb_env.compiled.batch", module)
    assert batched.main(["--sizes", "1", "8", "--seconds", "0.05", "--no-reference"]) == 0
    out = capsys.readouterr().out
    assert "2 ships per battle" in out and "obs (1, 2, 5) float32, masks (1, 2, 9) int8" in out
    for battles in (1, 8):
        cells = row_of(out, f"| compiled B={battles} |").split("|")
        steps = int(cells[2].replace(",", ""))
        battle_rate, ship_rate = (float(c.replace(",", "")) for c in cells[3:5])
        assert steps > 0 and ship_rate == pytest.approx(2 * battle_rate, rel=1e-3, abs=1)
    assert "vs reference" not in out
    target = row_of(out, "target (issue 12, on duel-klingon-vs-federation): >= 1,000,000 "
                         "ship-impulses/s")
    assert "sampler included: B=" in target and "step alone: B=" in target


def test_batched_target_line_says_met_only_at_or_above_the_target(bench_modules):
    _, batched = bench_modules

    def row(battles, steps):  # 2 ships, 1 s, the step taking 80% of it
        return batched.Row(f"compiled B={battles}", battles, steps, 1.0, 0.8, 2, 0.0)

    line = batched.target_line([row(1, 100_000), row(64, 7_000)])  # B=64: 896,000; 1,120,000
    assert "sampler included: B=64 896,000 (not met, 0.90x)" in line
    assert "step alone: B=64 1,120,000 (met)" in line


def test_batched_target_line_names_each_issue_and_the_scenarios_without_one(bench_modules):
    """Issue 14's batched target is on grad-lyran-vs-hydran; a scenario off the compiled core
    is "not met"; others (cth-13, grad-isc-full-vs-hydran) report figures only."""
    _, batched = bench_modules
    line = batched.target_line([], "grad-lyran-vs-hydran")
    assert line.startswith("target (issue 14, on grad-lyran-vs-hydran)") and "not met" in line
    assert batched.target_line([], "cth-13").startswith("no batched target for cth-13")


def test_peers_target_lines_cover_issue_fourteens_scenarios(bench_modules):
    """Issue 14: >= 10x mpe2 on grad-lyran-vs-hydran, >= 5x on grad-isc-full-vs-hydran; a row
    the compiled core cannot play says why."""
    peers, _ = bench_modules
    mpe2 = peers.Row("mpe2 simple_spread_v3", "-")
    mpe2.steps_per_s = 1000.0
    lyran = peers.Row("sfb-env grad-lyran-vs-hydran", "compiled")
    lyran.note = "not available (NotCompiledError: esg)"
    isc = peers.Row("sfb-env grad-isc-full-vs-hydran", "compiled")
    isc.steps_per_s = 6000.0
    lines = peers.target_lines([mpe2, lyran, isc])
    assert lines[0].startswith("target (issue 14): compiled single env >= 10x")
    assert lines[0].endswith("not met (not available (NotCompiledError: esg))")
    assert lines[1].endswith("grad-isc-full-vs-hydran 6.00x (met)") and ">= 5x" in lines[1]


def test_perf_kernel_names_a_kernel_by_module_and_function(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.delitem(sys.modules, "perf_kernel", raising=False)
    perf_kernel = importlib.import_module("perf_kernel")
    mangled = ("_ZN7sfb_env8compiled4fire18fire_direct_fire_aB4v397B46c8tJTIeFIjxB2IKSgI4Crv"
               "SCKg1MMbCQQPKkLTj8NAE_3dE2107FireArrays_28array")
    assert perf_kernel._short(mangled) == "fire.fire_direct_fire_a"
    assert perf_kernel._short("numba_list_base_ptr") == "numba_list_base_ptr"
    assert perf_kernel._short("_ZN12") == "_ZN12"  # (a name cut short: no IndexError)


def test_perf_kernel_hot_windows_rank_a_functions_code_by_its_samples(monkeypatch, tmp_path,
                                                                     capsys):
    """``--hot``: the samples of one mapped function (``perf script``) summed by 256-byte
    window, hottest first, each with its instructions (``objdump`` of the saved object) and
    the samples of each; samples of other functions count only in the total."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.delitem(sys.modules, "perf_kernel", raising=False)
    perf_kernel = importlib.import_module("perf_kernel")
    pid = 999_999_901
    mangled = "_ZN7sfb_env8compiled5batch11_step_batchB2v1"
    Path(f"/tmp/perf-{pid}.map").write_text("7f0000001000 400 batch._step_batch\n")
    obj = Path(f"/tmp/perf-kernel-{pid}-batch._step_batch.o")
    obj.write_bytes(b"")
    outputs = {
        "perf": "7f0000001010 batch._step_batch\n" * 3 + "7f0000001210 batch._step_batch\n"
                + "7f0000009000 other\n",
        "readelf": f"  5: 0000000000000040  1024 FUNC GLOBAL DEFAULT 1 {mangled}\n",
        "objdump": "  50:\tmov    %rax,%rcx\n  250:\tvmovups %ymm0,(%rdx)\n",
    }

    def run(argv, **_):
        return subprocess.CompletedProcess(argv, 0, stdout=outputs[argv[0]], stderr="")

    monkeypatch.setattr(perf_kernel.subprocess, "run", run)
    try:
        perf_kernel.hot_windows("step.data", pid, "batch._step_batch", windows=2)
    finally:
        Path(f"/tmp/perf-{pid}.map").unlink()
        obj.unlink()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "batch._step_batch: 4 of 5 samples"
    assert lines[1] == "--- 0x0: 75.0% of batch._step_batch"
    assert lines[2].split() == ["3", "0x10", "mov", "%rax,%rcx"]
    assert lines[3] == "--- 0x200: 25.0% of batch._step_batch"
    assert lines[4].split() == ["1", "0x210", "vmovups", "%ymm0,(%rdx)"]


def test_compile_time_takes_a_callees_compile_out_of_its_callers_own_time(monkeypatch):
    """benchmarks/compile_time.py: numba's compile events nest (a callee compiles while its
    caller types); each function's own time excludes its callees'."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    monkeypatch.delitem(sys.modules, "compile_time", raising=False)
    compile_time = importlib.import_module("compile_time")
    clock = compile_time.CompileClock()
    clock.start("batch._play_batch", 0.0)
    clock.start("energy.energy_allocation", 1.0)
    clock.start("shields.shield_bits", 2.0)
    clock.end(2.5)
    clock.end(7.0)
    clock.start("shields.shield_bits", 8.0)  # compiled again (another signature)
    clock.end(9.0)
    clock.end(20.0)
    assert clock.slowest(2) == [("batch._play_batch", 13.0, 20.0),
                                ("energy.energy_allocation", 5.5, 6.0)]
    assert clock.own["shields.shield_bits"] == clock.total["shields.shield_bits"] == 1.5


def test_perf_kernel_reads_the_running_overloads_object_not_a_newer_file_beside_it(
        monkeypatch, tmp_path):
    """numba's cache may hold, newer than the overload this process runs, another overload of
    the same kernel and the Python entry point that ``compiled.dispatch`` saves beside it (a
    ``(key, library)`` tuple): the map is made from the object that defines the running
    overload's symbol."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.delitem(sys.modules, "perf_kernel", raising=False)
    perf_kernel = importlib.import_module("perf_kernel")
    files = [
        ("1", (("lib", "object", (b"..._ZN5batch11_step_batchB2v1...", b"")), "more")),
        ("2", (("lib", "object", (b"..._ZN5batch11_step_batchB2v7...", b"")), "more")),
        ("3", (("python entry", "_ZN5batch11_step_batchB2v1", ()),
               ("lib", "object", (b"..._ZN5batch11_step_batchB2v1.entry", b"")))),
    ]
    for when, (index, data) in enumerate(files):  # written in this order, the entry newest
        path = tmp_path / f"batch._step_batch-100.py311.{index}.nbc"
        path.write_bytes(pickle.dumps(data))
        os.utime(path, (when + 1, when + 1))
    got = perf_kernel._cached_object(tmp_path, "batch._step_batch", "_ZN5batch11_step_batchB2v1")
    assert got == b"..._ZN5batch11_step_batchB2v1..."
    with pytest.raises(FileNotFoundError, match="batch._play_batch"):
        perf_kernel._cached_object(tmp_path, "batch._play_batch", "_ZN5batch")


def test_captains_quick_prints_both_helms_and_random_fighter_side_by_side():
    """benchmarks/captains.py: one row per captain and helm on the same battles, and the
    compiled helm's speed-up over the numpy one."""
    run = script("captains.py", "--quick")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "CPUs" in out and "numba" in out
    rows = [line for line in out.splitlines() if line.startswith("| duel-klingon-vs-federation")]
    assert [line.split("|")[2:4] for line in rows] == [
        [" doctrine ", " numpy "], [" doctrine ", " compiled "], [" random-fighter ", " - "]]
    decisions = {int(line.split("|")[4]) for line in rows}
    assert decisions == {80}  # 40 steps of two ships, the same battles for every captain
    assert "compiled helm: " in out and "x the numpy helm's decisions/s" in out
