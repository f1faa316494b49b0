"""Lockstep parity of the standard DAC (D4.2-D4.4, ``compiled.std_dac``) and Sensor Lock-On
(D6, ``compiled.sensors``) with the reference engine: on the shipped 32-impulse full-size
scenarios under the Chief Engineer (``damage: standard_dac`` and ``lock_on: true`` as shipped;
the standard Energy Allocation Form is another port's) and on the cadet duels flown by
full-size ships (CTH-DATA §9.2) at 8 and 16 impulses. Undamaged sensors always lock on (a
sensor of 6, [P-048]); the tests with ``left`` start every full-size ship with that many sensor
and scanner boxes (D4.33: sensor 3 / 1 / 0, scanner 3 / 5 / 9 at 3 / 2 / 1 left) so that
lock-on is rolled and lost, drones are removed and the ranges doubled and scanned."""

from __future__ import annotations

import pytest

from sfb_env.compiled import parity
from sfb_env.engine import dac, sensors
from sfb_env.engine import damage as ref_damage

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)

RULES = {"damage": "standard_dac", "lock_on": True}


def flown_by(base: str, classes: tuple[str | None, str | None], rules=RULES,
             **fields) -> dict:
    """``parity.variant(base, rules, **fields)`` with its two agent ships flown in
    ``classes`` (None: kept)."""
    doc = parity.variant(base, rules=rules, **fields)
    ships = [u for u in doc["units"] if u.get("controller") == "agent"]
    for spec, cls in zip(ships, classes, strict=True):
        if cls is not None:
            spec["class"] = cls
    doc["name"] += "," + ",".join(str(c) for c in classes)
    return doc


VARIANTS = {
    "d7-vs-fed-ca-16": flown_by("duel-klingon-vs-federation", ("klingon-d7", "fed-ca"),
                                impulses_per_turn=16),
    "kzinti-cs-vs-d7-8": flown_by("duel-klingon-vs-federation", ("kzinti-cs", "klingon-d7")),
    "isc-vs-gorn-16": flown_by("duel-klingon-vs-federation", ("isc-star-cruiser", "gorn-ca"),
                               impulses_per_turn=16),
    "romulan-cadet-vs-d7-16": flown_by("duel-romulan-vs-klingon", (None, "klingon-d7"),
                                       impulses_per_turn=16),
}
# The shipped full-size scenarios with the Chief Engineer for the standard form.
CHIEF = {"energy": "chief", "speed_choice": True}
SHIPPED = {name: parity.with_rules(name, CHIEF)
           for name in ("cth-07", "duel-full-gorn-vs-klingon", "grad-isc-full-vs-klingon",
                        "grad-lyran-full-vs-klingon")}


def _damaged_sensors(monkeypatch, left: int) -> None:
    """Every full-size ship starts with ``left`` sensor and scanner boxes (both engines build
    their battles through ``damage.init_dac_boxes``)."""
    build = ref_damage.init_dac_boxes

    def damaged(battle, classes):
        out, weapons = build(battle, classes)
        for u in range(len(out)):
            if out[u, dac.DacBox.SENSOR] > left:
                out[u, dac.DacBox.SENSOR] = left
                out[u, dac.DacBox.SCANNER] = left
        return out, weapons

    monkeypatch.setattr(ref_damage, "init_dac_boxes", damaged)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_full_size_duels_match_the_reference(name):
    """The shipped 32-impulse duels (D7, Fed CA, Gorn CA, ISC, Lyran Tiger) under the Chief
    Engineer, fighting captains, B=2 with autoreset: standard DAC, lock-on and the rest."""
    report = parity.lockstep(SHIPPED[name], num_battles=2, steps=150, seed=7,
                             policy="random-fighter")
    assert report.steps == 150 and report.events.get("Damaged", 0) > 0
    assert report.events.get("LockOn", 0) > 0


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_standard_dac_and_lock_on_match_the_reference(name):
    """Fighting captains, B=2 with autoreset: the volleys on the full-size ships' DAC boxes,
    the lock-on step (automatic at sensor 6) and the lock_on block match the reference."""
    report = parity.lockstep(VARIANTS[name], num_battles=2, steps=150, seed=5,
                             policy="random-fighter")
    assert report.steps == 150 and report.events.get("Damaged", 0) > 0
    assert report.events.get("LockOn", 0) > 0


@pytest.mark.parametrize("left", [3, 1])
def test_lock_on_lost_matches_the_reference(monkeypatch, left):
    """(D6) Sensors damaged before the battle: the die against the sensor rating, lock-on lost
    (every turn at sensor 0), drones removed, no launch, fire at twice the range plus the
    scanner rating: the same as the reference, random masked play and fighting captains."""
    _damaged_sensors(monkeypatch, left)
    lost = []
    step = sensors.lock_on_step

    def counting(battle):  # the reference's results (the harness compares the compiled ones)
        n0 = len(battle.events)
        step(battle)
        lost.extend(e.die > 0 and not e.locked for e in battle.events[n0:] if e.kind == "LockOn")

    monkeypatch.setattr(sensors, "lock_on_step", counting)
    for scenario, policy in ((SHIPPED["duel-full-gorn-vs-klingon"], "random-fighter"),
                             (VARIANTS["kzinti-cs-vs-d7-8"], "random")):
        report = parity.lockstep(scenario, num_battles=2, steps=150, seed=left,
                                 policy=policy)
        assert report.events.get("LockOn", 0) > 0
    assert sum(lost) > 0 and (left > 1 or all(lost)), (sum(lost), len(lost))


@pytest.mark.slow
@pytest.mark.parametrize("left", [6, 3, 2, 1])
@pytest.mark.parametrize("name", sorted(VARIANTS) + sorted(SHIPPED))
def test_long_standard_dac_and_lock_on_runs_match(monkeypatch, name, left):
    if left < 6:
        _damaged_sensors(monkeypatch, left)
    report = parity.lockstep({**VARIANTS, **SHIPPED}[name], num_battles=8, steps=1000,
                             seed=left, policy="random-fighter")
    print(report.line())
