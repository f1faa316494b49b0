"""Sensor and scanner ratings (D6): whether the lock-on rules are in force and what a ship's
tracks rate now; read by the cloak's effective range and by lock-on (``engine.sensors``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sfb_env.engine import dac

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle


def _track_value(battle: Battle, unit: int, track: tuple[int, ...], box: int) -> int:
    """Best undestroyed value of a track (D4.33): the first box without the standard DAC."""
    if battle.rules.damage != "standard_dac":
        return int(track[0])
    return dac.track_rating(track, int(battle.state.dac_boxes[unit, box]))


def sensor(battle: Battle, unit: int) -> int | None:
    """The ship's sensor rating (D6), or None where it has no track (always locked on)."""
    ship = battle.ship_classes[unit]
    if ship is None or not getattr(ship, "sensor_track", ()):
        return None
    return _track_value(battle, unit, ship.sensor_track, int(dac.DacBox.SENSOR))


def scanner(battle: Battle, unit: int) -> int:
    """The ship's scanner adjustment (D6), 0 where it has no track or the rule is off."""
    ship = battle.ship_classes[unit]
    if not battle.rules.lock_on or ship is None or not getattr(ship, "scanner_track", ()):
        return 0
    return _track_value(battle, unit, ship.scanner_track, int(dac.DacBox.SCANNER))
