"""Probes (G5.0; CTH-DATA §5.4, §9.2), compiled: the arming orders, their energy and the mask.

Mirrors ``engine.probes`` but the launch (``compiled.planet_killer.probe_fire_step``: it fires
an anti-matter probe as a weapon, so it lives beside the damage kernels; this module stays a
leaf that the energy form may import). ``probe_tables(setup)`` builds ``ProbeTables`` (``on``
with rule ``probes`` on the standard form). Each as the reference:

* ``allocate`` (priority 5d of the standard form, ``rule_tables._probes``): ``ARM_INFORMATION``
  pays 1 energy (any source), ``ARM_ANTIMATTER`` 2 warp, for the turn now starting; two
  consecutive paid turns arm the probe (G5.2, G5.32); any other order lets the arming go; an
  armed information probe rolls (paying 1 keeps it armed, G5.2); a shortfall logs
  ``EnergyShortfall`` "probe" and lets it go;
* ``order_open``: the ``probe`` component's mask (``probes.order_blockers``): arming only at
  Energy Allocation, launching in an impulse's Direct-Fire step with a probe armed this turn;
  an anti-matter probe only where G5.31 allows it and with a target on the centre row (G5.33);
* ``end_of_turn``: an anti-matter probe armed and not fired is lost (G5.32, PROPOSAL [P-059]:
  its energy only).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env.compiled import event_codes
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.purse import log_shortfall, pay
from sfb_env.engine import probes as ref
from sfb_env.engine.dac import DacBox
from sfb_env.engine.types import ACTIVE, K_FREIGHTER, K_MONSTER, K_PLANET, K_SHIP

NONE, INFORMATION, ANTIMATTER = (int(ref.ProbeKind.NONE), int(ref.ProbeKind.INFORMATION),
                                 int(ref.ProbeKind.ANTIMATTER))
ARM_INFORMATION = int(ref.ProbeOrder.ARM_INFORMATION)
ARM_ANTIMATTER = int(ref.ProbeOrder.ARM_ANTIMATTER)
LAUNCH = int(ref.ProbeOrder.LAUNCH)
ORDERS = ref.PROBE_ORDERS  # the ``probe`` component's size
ARMING_TURNS = ref.ARMING_TURNS  # (G5.2, G5.32)
PROBE_RANGE = ref.PROBE_RANGE  # (G5.12)
ITEM_PROBE = event_codes.word("item", "probe")
_DAC_PROBE = int(DacBox.PROBE)
_DX = np.array([0, 1, 1, 0, -1, -1], dtype=np.int64)  # hexmap.DIR_TO_AXIAL, directions A..F
_DZ = np.array([-1, -1, 0, 1, 1, 0], dtype=np.int64)

ProbeTables = namedtuple("ProbeTables", (
    "on",  # bool: rule probes on the standard form (a ``probe`` component, priority 5d)
    "has_probes",  # (U,) bool probes.has_probes: governed, a launcher on the sheet, probes
    "launcher",  # (U,) bool a probe launcher on the sheet
    "std_dac",  # bool: the launcher's box is the standard DAC's ``Probe`` (D4.21)
    "antimatter_rule",  # bool rules.antimatter_probes (G5.31)
    "init_internal",  # (U,) int64 the internal boxes at the start (G5.31 crippled)
    "work",  # (1,) int64 scratch: the centre-row target's range
))


def probe_tables(setup) -> ProbeTables:
    """``ProbeTables`` of ``setup``."""
    rules = setup.rules
    st = setup.start_state
    n = len(setup.unit_ids)
    on = bool(rules.probes and rules.standard_energy)
    launcher = np.zeros(n, np.bool_)
    has = np.zeros(n, np.bool_)
    for u, ship in enumerate(setup.ship_classes):
        launcher[u] = ship is not None and bool(ship.systems.get("probe_launcher", 0))
        governed = (bool(rules.energy_form) and st.controllers[u] == "agent"
                    and int(st.kind[u]) == K_SHIP)  # (energy_switches.governed)
        has[u] = on and governed and launcher[u] and bool(ship.probes)
    return ProbeTables(on=on, has_probes=has, launcher=launcher,
                       std_dac=rules.damage == "standard_dac",
                       antimatter_rule=bool(rules.antimatter_probes),
                       init_internal=np.asarray(setup.initial.internal_boxes, np.int64).copy(),
                       work=np.zeros(1, np.int64))


@nb.njit(cache=True, inline="always")
def launcher_working(pt, dac_boxes, b: int, u: int) -> bool:
    """(probes.launcher_working) The launcher box undestroyed (standard DAC ``Probe``)."""
    if not pt.launcher[u]:
        return False
    if pt.std_dac:
        return dac_boxes[b, u, _DAC_PROBE] > 0
    return True


@nb.njit(cache=True, inline="always")
def armed(s, b: int, u: int) -> bool:
    """(probes.armed) The second arming turn paid this turn (G5.2, G5.32)."""
    return s.probe_stage[b, u] >= ARMING_TURNS and s.probe_paid_turn[b, u] == s.turn[b]


@kernel(_nrt=False, error_model="numpy")
def _crippled(pt, boxes, w_owner, w_destroyed, b: int, u: int) -> bool:
    """(probes.crippled, G5.31) half or more of the internal boxes gone."""
    start = pt.init_internal[u]
    left = 0
    for k in range(boxes.shape[2]):
        left += boxes[b, u, k]
    for w in range(w_owner.shape[1]):
        if w_owner[b, w] == u and not w_destroyed[b, w]:
            left += 1
    return start > 0 and 2 * left <= start


@kernel(_nrt=False, error_model="numpy")
def _outnumbered(status, kind, side, b: int, u: int) -> bool:
    """(probes.outnumbered, G5.31) one ship of the side in play against two or more."""
    own = 0
    other = 0
    for t in range(kind.shape[1]):
        if status[b, t] == ACTIVE and kind[b, t] == K_SHIP:
            if side[b, t] == side[b, u]:
                own += 1
            else:
                other += 1
    return own == 1 and other >= 2


@nb.njit(cache=True, inline="always")
def antimatter_allowed(s, pt, b: int, u: int) -> bool:
    """(probes.antimatter_blocker is None, G5.31) the scenario allows it, or the ship is
    crippled, or alone against two or more."""
    return (pt.antimatter_rule or _crippled(pt, s.boxes, s.w_owner, s.w_destroyed, b, u)
            or _outnumbered(s.status, s.kind, s.side, b, u))


@kernel(_nrt=False, error_model="numpy")
def centre_row_target(status, kind, side, x, z, facing, b: int, u: int, rng_out) -> int:
    """(probes.centre_row_target, G5.33) The nearest enemy ship, freighter or monster straight
    ahead along the centre row within range 6 (the lowest row in a hex), -1 if none (a planet
    on the row blocks the line, P2.0); its range goes to ``rng_out[0]``."""
    cx, cz = x[b, u], z[b, u]
    f = facing[b, u]
    n = kind.shape[1]
    for rng in range(PROBE_RANGE + 1):
        if rng:
            cx += _DX[f]
            cz += _DZ[f]
            for t in range(n):
                if (status[b, t] == ACTIVE and kind[b, t] == K_PLANET and x[b, t] == cx
                        and z[b, t] == cz):
                    return -1
        for t in range(n):
            k = kind[b, t]
            if (status[b, t] == ACTIVE and k != K_PLANET and side[b, t] != side[b, u]
                    and k in (K_SHIP, K_FREIGHTER, K_MONSTER)
                    and x[b, t] == cx and z[b, t] == cz):
                rng_out[0] = rng
                return t
    return -1


@nb.njit(cache=True, inline="always")
def order_open(s, pt, b: int, u: int, v: int, ipt: int, rng_out) -> bool:
    """(probes.order_blockers) ``ProbeOrder`` value ``v`` (1..3) open for ``u`` now."""
    if not pt.has_probes[u]:
        return False
    if not launcher_working(pt, s.dac_boxes, b, u) or s.probes_left[b, u] <= 0:
        return False
    imp = s.impulse[b]
    if v in (ARM_INFORMATION, ARM_ANTIMATTER):
        if not (imp == 0 or imp == ipt):  # (B3.0) only at Energy Allocation
            return False
        return v == ARM_INFORMATION or antimatter_allowed(s, pt, b, u)
    if imp < 1 or not armed(s, b, u):  # (G5.12, G5.2)
        return False
    if s.probe_kind[b, u] == ANTIMATTER:  # (G5.31, G5.33)
        if not antimatter_allowed(s, pt, b, u):
            return False
        return centre_row_target(s.status, s.kind, s.side, s.x, s.z, s.facing, b, u,
                                 rng_out) >= 0
    return True


@nb.njit(cache=True, inline="always")
def reset(s, b: int, u: int) -> None:
    """(probes._reset) Nothing being armed."""
    s.probe_kind[b, u] = NONE
    s.probe_stage[b, u] = 0
    s.probe_paid_turn[b, u] = 0


@nb.njit(cache=True, inline="always")
def allocate(s, et, pt, b: int, u: int, order: int, p) -> int:
    """(probes.allocate, priority 5d) Pay this turn's probe arming (G5.2, G5.32); returns the
    energy short."""
    if not pt.has_probes[u]:
        return 0
    kind = NONE
    if order == ARM_INFORMATION:
        kind = INFORMATION
    elif order == ARM_ANTIMATTER:
        kind = ANTIMATTER
    if (kind == NONE or not launcher_working(pt, s.dac_boxes, b, u)
            or s.probes_left[b, u] <= 0):
        reset(s, b, u)
        return 0
    turn = s.turn[b]
    continuing = (s.probe_kind[b, u] == kind and s.probe_paid_turn[b, u] == turn - 1
                  and s.probe_stage[b, u] >= 1
                  and not (kind == ANTIMATTER and s.probe_stage[b, u] >= ARMING_TURNS))
    cost = 2 if kind == ANTIMATTER else 1  # (G5.32 warp, G5.2 any source)
    if not pay(p, cost, kind == ANTIMATTER, True):
        log_shortfall(s, et, b, u, ITEM_PROBE, cost)
        reset(s, b, u)
        return cost
    s.probe_kind[b, u] = kind
    # (G5.2) a rolling information probe stays armed; a new cycle starts at 1
    s.probe_stage[b, u] = min(ARMING_TURNS, s.probe_stage[b, u] + 1) if continuing else 1
    s.probe_paid_turn[b, u] = turn
    return 0


@kernel(_nrt=False, error_model="numpy")
def end_of_turn(probe_kind, probe_stage, probe_paid_turn, b: int) -> None:
    """(probes.end_of_turn, G5.32) An anti-matter probe armed this turn and not fired is lost
    (PROPOSAL [P-059]: the energy only)."""
    for u in range(probe_kind.shape[1]):
        if probe_kind[b, u] == ANTIMATTER and probe_stage[b, u] >= ARMING_TURNS:
            probe_kind[b, u] = NONE
            probe_stage[b, u] = 0
            probe_paid_turn[b, u] = 0
