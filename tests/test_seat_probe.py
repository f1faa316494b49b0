"""``training.seat_probe``: the counts of a seat's weapons, ranges and arcs over played games."""

from __future__ import annotations

import pytest

from training import seat_probe


def test_probe_counts_every_impulse_of_the_seat_and_every_game():
    report = seat_probe.probe("duel-klingon-vs-federation", "random-fighter", "random-fighter",
                              "fed-cadet", games=2)
    assert report.impulses > 0
    assert sum(report.ranges.values()) == report.impulses
    assert 0 <= report.in_fa <= report.impulses
    assert set(report.open_by_type) == {"ph-1", "photon"}  # the Federation cadet's weapons
    for kind, shots in report.shots_by_type.items():  # a shot needs its weapon's fire open
        assert shots <= report.open_by_type[kind]
    assert sum(report.shots_by_type.values()) > 0
    assert sum(report.results.values()) == 2


def test_cli_prints_the_report_and_names_a_wrong_seat(capsys):
    assert seat_probe.main(["duel-klingon-vs-federation", "random", "random", "--seat",
                            "fed-cadet", "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert "enemy ship in the FA arc" in out and "results: fed-cadet" in out
    with pytest.raises(ValueError, match="--seat 'nobody'"):
        seat_probe.probe("duel-klingon-vs-federation", "random", "random", "nobody", games=1)
    with pytest.raises(ValueError, match="a duel of two agents"):  # cth-03: the Klingon alone
        seat_probe.probe("cth-03", "random", "random", "destruction", games=1)
