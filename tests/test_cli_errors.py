"""Issue 13: bad CLI arguments and bad replays end in one line on stderr and exit code 2,
checked before any game is played or anything trained (no traceback, no silent wrong)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sfb_env.data import load_data_file
from sfb_env.engine import load_scenario
from sfb_env.engine.rules import ScenarioError
from sfb_env.engine.scenario import SCENARIO_DIR

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = ROOT / "checkpoints"
CTH03 = CHECKPOINTS / "klingon-cth03.zip"
DUEL = "duel-klingon-vs-federation"


def sfb(*args: str, env: dict[str, str] | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m sfb_env.cli ARGS`` from the repository root."""
    return subprocess.run([sys.executable, "-m", "sfb_env.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def sfb_here(*args: str) -> subprocess.CompletedProcess[str]:
    """``sfb_env.cli.main(ARGS)`` in this process (no interpreter start, a second at a
    time), its exit code and its stdout and stderr as the subprocess's."""
    import contextlib
    import io

    from sfb_env.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def refused(*args: str, needle: str, env: dict[str, str] | None = None) -> str:
    """Run ``sfb ARGS`` (in this process unless ``env`` is given: an uncaught exception
    fails the test as a traceback would); assert exit 2, one line on stderr containing
    ``needle``, nothing on stdout (no game was played); return that line."""
    proc = sfb(*args, env=env) if env else sfb_here(*args)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert needle in lines[0], lines[0]
    assert proc.stdout == "", proc.stdout
    return lines[0]


def _checkpoint_needs_train_extra() -> None:
    from conftest import require

    require("sb3_contrib")


# --------------------------------------------------------------------------- sfb play


@pytest.mark.parametrize(("args", "needle"), [
    (["--seed", "-1"], "--seed must be >= 0"),
    (["--fps", "0"], "--fps must be positive"),
    (["--fps", "-2"], "--fps must be positive"),
    (["--size", "10x10"], "at least 480x120"),
    (["--video", "x.avi"], "supported: .mp4, .gif"),
    (["--max-turns", "0"], "--max-turns must be at least 1"),
    (["--max-turns", "-3"], "--max-turns must be at least 1"),
])
def test_play_refuses_bad_arguments(args, needle):
    refused("play", "cth-03", *args, needle=needle)


@pytest.mark.parametrize("flag", ["--video", "--replay"])
def test_play_refuses_an_output_under_a_file(tmp_path, flag):
    blocker = tmp_path / "file"
    blocker.write_text("")
    name = "out.gif" if flag == "--video" else "out.jsonl"
    refused("play", "cth-03", "--max-turns", "1", flag, str(blocker / "sub" / name),
            needle="is a file, not a folder")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes into read-only folders")
@pytest.mark.parametrize("flag", ["--video", "--replay"])
def test_play_refuses_a_read_only_output_folder(tmp_path, flag):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        refused("play", "cth-03", flag, str(folder / "out.gif"), needle="is not writable")
    finally:
        folder.chmod(0o755)


def test_check_writable_names_a_folder_that_refuses_a_file(tmp_path, monkeypatch):
    """What a read-only folder does for a non-root user (root writes anywhere)."""
    import tempfile

    from sfb_env.commands.play import check_writable

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    with pytest.raises(ValueError, match=r"--out .*: folder .* is not writable \(Permission"):
        check_writable(tmp_path / "new" / "deeper", "--out", folder=True)


def test_play_refuses_robot_on_a_side_with_agents():
    refused("play", DUEL, "--blue", "robot", needle="--blue robot cannot fly klingon")


def test_play_refuses_an_unknown_module_policy():
    refused("play", "cth-03", "--blue", "no_such_module:Captain", needle="no_such_module")


def test_play_flies_a_module_policy(tmp_path):
    proc = sfb("play", "cth-03", "--max-turns", "1", "--seed", "0",
               "--blue", "agents.base:RandomMaskedPolicy")
    assert proc.returncode == 0, proc.stderr
    assert "agents.base:RandomMaskedPolicy" in proc.stdout


def test_play_flies_a_checkpoint_and_its_replay_reruns(tmp_path):
    _checkpoint_needs_train_extra()
    replay = tmp_path / "x.jsonl"
    proc = sfb("play", "cth-03", "--blue", str(CTH03), "--max-turns", "1", "--seed", "0",
               "--replay", str(replay))
    assert proc.returncode == 0, proc.stderr
    assert "klingon-cth03.zip" in proc.stdout
    again = sfb("replay", str(replay))
    assert again.returncode == 0, again.stderr
    assert "every event as recorded" in again.stdout


def test_play_refuses_a_checkpoint_of_another_scenario():
    line = refused("play", DUEL, "--blue", str(CTH03), needle="trained for scenario 'cth-03'")
    assert DUEL in line


def test_play_refuses_a_checkpoint_without_its_sidecar(tmp_path):
    bare = tmp_path / "captain.zip"
    bare.write_bytes(CTH03.read_bytes())
    line = refused("play", "cth-03", "--blue", str(bare), needle="has no sidecar")
    assert "captain.json" in line and "cth-03" in line


def test_play_refuses_a_missing_checkpoint(tmp_path):
    refused("play", "cth-03", "--blue", str(tmp_path / "nope.zip"), needle="does not exist")


# --------------------------------------------------------------------------- sfb bench


@pytest.mark.parametrize("workers", ["0", "-1"])
def test_bench_refuses_workers_below_one(workers):
    refused("bench", "cth-03", "--workers", workers, "--games", "1",
            needle="--workers must be at least 1")


def test_bench_refuses_an_out_folder_under_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    refused("bench", "cth-03", "--games", "1", "--out", str(blocker / "results"),
            needle="is a file, not a folder")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes into read-only folders")
def test_bench_refuses_a_read_only_out_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        refused("bench", "cth-03", "--games", "1", "--out", str(folder),
                needle="is not writable")
    finally:
        folder.chmod(0o755)


def test_bench_refuses_without_the_bench_extra(tmp_path):
    shadow = tmp_path / "shadow" / "openskill"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('openskill hidden by the test')\n")
    pythonpath = os.pathsep.join([str(tmp_path / "shadow"), os.environ.get("PYTHONPATH", "")])
    refused("bench", "cth-03", "--games", "1", needle="bench extra is missing (openskill",
            env={"PYTHONPATH": pythonpath})


def test_bench_refuses_a_checkpoint_of_another_scenario():
    refused("bench", DUEL, "--blue", str(CTH03), "--games", "1",
            needle=f"trained for scenario 'cth-03', not '{DUEL}'")


def test_bench_refuses_a_checkpoint_without_its_sidecar(tmp_path):
    bare = tmp_path / "captain.zip"
    bare.write_bytes(CTH03.read_bytes())
    refused("bench", "cth-03", "--blue", str(bare), "--games", "1", needle="has no sidecar")


# --------------------------------------------------------------------------- sfb train


def test_train_refuses_to_resume_a_missing_checkpoint():
    line = refused("train", "configs/training/smoke.yaml", "--resume", "nope.zip",
                   needle="--resume nope.zip: no such checkpoint")
    assert "zip.zip" not in line


def test_train_refuses_to_resume_another_configs_checkpoint():
    refused("train", "configs/training/klingon-cth03.yaml", "--resume",
            str(CHECKPOINTS / "duel-klingon-vs-federation.zip"),
            needle="run 'duel-self-play', not of this config's 'klingon-cth03'")


# --------------------------------------------------------------------------- sfb replay


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> list[str]:
    """The lines of a one-turn cth-03 replay."""
    path = tmp_path_factory.mktemp("replay") / "cth-03.jsonl"
    proc = sfb("play", "cth-03", "--max-turns", "1", "--seed", "1", "--replay", str(path))
    assert proc.returncode == 0, proc.stderr
    return path.read_text().splitlines()


def _write(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_replay_as_recorded_passes(tmp_path, recorded):
    proc = sfb("replay", _write(tmp_path, recorded))
    assert proc.returncode == 0, proc.stderr
    assert "every event as recorded" in proc.stdout


@pytest.mark.parametrize(("value", "needle"), [
    (999, "do not play"),
    ("x", "do not play"),
])
def test_replay_refuses_edited_actions(tmp_path, recorded, value, needle):
    step = json.loads(recorded[2])
    agent = next(iter(step["actions"]))
    step["actions"][agent] = [value] * len(step["actions"][agent])
    refused("replay", _write(tmp_path, [*recorded[:2], json.dumps(step), *recorded[3:]]),
            needle=needle)


def test_replay_refuses_malformed_actions(tmp_path, recorded):
    step = json.loads(recorded[2])
    step["actions"] = [1, 2]
    refused("replay", _write(tmp_path, [*recorded[:2], json.dumps(step), *recorded[3:]]),
            needle="line 3: malformed replay line")


def test_replay_refuses_a_truncated_replay(tmp_path, recorded):
    assert json.loads(recorded[-1])["type"] == "end"
    refused("replay", _write(tmp_path, recorded[:-1]), needle="no end line")


@pytest.mark.parametrize(("key", "value"), [
    ("steps", 999), ("turn", 99), ("impulse", 31), ("done", None),
    ("outcome", {"klingon": {"result": "win", "level": "edited"}}), ("reason", "edited"),
])
def test_replay_refuses_an_edited_end_line(tmp_path, recorded, key, value):
    end = json.loads(recorded[-1])
    end[key] = (not end["done"]) if key == "done" else value
    refused("replay", _write(tmp_path, [*recorded[:-1], json.dumps(end)]),
            needle=f"end line differs from the re-run: {key} recorded")


def test_replay_refuses_a_bad_video_argument(tmp_path, recorded):
    refused("replay", _write(tmp_path, recorded), "--video", "x.avi",
            needle="unsupported format '.avi'")


# --------------------------------------------------------------------------- scenarios


def _empty_scenario() -> dict:
    doc = load_data_file(SCENARIO_DIR / "cth-03.yaml")
    doc["units"] = []
    return doc


def test_an_empty_scenario_is_refused_naming_units():
    with pytest.raises(ScenarioError, match="field 'units': a scenario needs at least one"):
        load_scenario(_empty_scenario())


def test_play_refuses_an_empty_scenario_file(tmp_path):
    import yaml

    doc = _empty_scenario()
    path = tmp_path / "empty.yaml"
    path.write_text(yaml.safe_dump(doc))
    refused("play", str(path), "--max-turns", "1", needle="field 'units'")
