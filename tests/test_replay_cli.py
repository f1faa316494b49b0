"""``sfb play`` and ``sfb replay``: play, record, re-render; the result table; clear errors."""

from __future__ import annotations

import json

import numpy as np

from sfb_env import cli
from sfb_env.replay import load_replay
from tests.conftest import require


def test_play_prints_a_result_table_and_writes_a_replay(tmp_path, capsys):
    path = tmp_path / "cth-03.jsonl"
    assert cli.main(["play", "cth-03", "--blue", "random", "--seed", "2", "--max-turns", "2",
                     "--replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "seed 2" in out
    header, *rows = [line for line in out.splitlines() if line.split()[:1] in
                     (["side"], ["klingon"], ["convoy"])]
    assert header.split() == ["side", "policy", "ships", "result", "level", "dealt", "taken",
                              "internal"]
    assert rows[0].split()[:2] == ["klingon", "random"]
    assert rows[1].split()[:2] == ["convoy", "robots"]  # no agents: the scenario's robots
    replay = load_replay(path)
    assert replay.header["meta"]["policies"] == {"klingon": "random", "convoy": "robots"}
    assert replay.env_options == {"max_turns": 2}


def test_replay_command_rerenders_a_recorded_battle(tmp_path, capsys):
    require("PIL")
    imageio = require("imageio.v2")
    require("imageio_ffmpeg")
    replay_path, video = tmp_path / "b.jsonl", tmp_path / "b.mp4"
    assert cli.main(["play", "cth-01", "--seed", "1", "--replay", str(replay_path),
                     "--video", str(tmp_path / "a.gif"), "--size", "640x360"]) == 0
    assert (tmp_path / "a.gif").stat().st_size > 0
    capsys.readouterr()
    assert cli.main(["replay", str(replay_path), "--video", str(video), "--size", "640x360",
                     "--view", "map"]) == 0
    assert "every event as recorded" in capsys.readouterr().out
    reader = imageio.get_reader(video)
    frames = [np.asarray(f) for f in reader]
    reader.close()
    assert len(frames) == len(load_replay(replay_path).steps) + 1
    assert frames[0].shape == (360, 640, 3)


def test_unknown_policy_or_scenario_fails_with_a_clear_message(tmp_path, capsys):
    assert cli.main(["play", "cth-03", "--blue", "no-such-captain"]) == 2
    assert "unknown policy 'no-such-captain'" in capsys.readouterr().err
    assert cli.main(["play", "no-such-scenario"]) == 2
    assert "unknown scenario" in capsys.readouterr().err


def test_replay_command_refuses_a_replay_of_another_version(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    assert cli.main(["play", "cth-01", "--seed", "0", "--replay", str(path)]) == 0
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["version"] = 99
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    capsys.readouterr()
    assert cli.main(["replay", str(path)]) == 2
    assert "version 99" in capsys.readouterr().err


def test_play_binds_a_doctrine_captain_to_its_ship(tmp_path, capsys):
    replay_path = tmp_path / "doctrine.jsonl"
    assert cli.main(["play", "cth-03", "--blue", "klingon-doctrine", "--seed", "0",
                     "--replay", str(replay_path)]) == 0
    out = capsys.readouterr().out
    assert "klingon-doctrine" in out
    assert replay_path.exists()
