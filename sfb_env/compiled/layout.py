"""The compiled state: ``BattleState``'s arrays with a leading battle axis, in one namedtuple.

A batch holds B battles of one scenario (one ``BattleSetup``), so every battle has the same
unit and weapon capacity. ``BatchState`` has one field per ndarray field of ``BattleState``
that the compiled tiers read or write (``HOT_FIELDS``: same name, same dtype, shape
``(B, *shape)``), the scalars of the course as ``(B,)`` arrays (``turn``, ``impulse``,
``done``, ``time_up``, ``outcome_code``, ``victory_mark``: what a victory kind must remember
of the course, ``compiled.ending``), the dice (``(B, 6)`` uint64, ``compiled.dice``) and
the event buffer (``compiled.event_codes``). numba kernels take it as one argument and read
``s.x[b, u]``; ``pack`` and ``unpack_into`` convert to and from reference ``BattleState``s.

The other ``BattleState`` arrays (``COLD_FIELDS``: the rules no compiled tier ports) stay in
Python beside the batch (``pack_cold``), at their start values: no kernel can change them, and
the parity harness checks that the reference does not either. Keeping them out of the
namedtuple matters: numba's compile time grows steeply with the fields of an argument
(about 2.6 s per function at 123 arrays, 0.35 s at 35).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import fields

import numpy as np

from sfb_env.compiled import dice as dice_mod
from sfb_env.compiled import event_codes
from sfb_env.engine.types import GATLING_SHOTS, BattleState

_SKIP = {"rng", "events", "controllers", "outcome", "cache", "seed", "end_reason"}
ARRAY_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(BattleState)
    if f.name not in _SKIP and f.name not in ("impulses_per_turn", "turn", "impulse", "done",
                                               "time_up"))
HOT_FIELDS: tuple[str, ...] = (
    # units
    "kind", "side", "status", "x", "z", "facing", "prev_x", "prev_z", "prev_facing", "speed",
    "straight", "slip", "tactical", "tac_earned", "tac_sublight", "previous_speed", "cloaked",
    "cloaked_before", "suicide_launched", "capacitor", "shields", "shield_pool", "internal",
    "damage", "boxes", "target", "launcher", "launched_at", "captured_by", "tractor_holder",
    "batteries", "capacitor_max", "energy_shortfall",  # (B3.0) the cadet form
    "dac_boxes",  # (D4.2-D4.4) the standard DAC's boxes (compiled.std_dac)
    "locked_on",  # (D6) sensor lock-on this turn
    "cloak_paid", "cloak_announced_at",  # (G13 standard rule) compiled.cloak
    # (B3.0 standard lines 7, 8, 11; B3.2) the standard form: shields and fire control paid
    # this turn, a partly discharged battery's fraction (compiled.energy)
    "shields_active", "fire_control", "battery_fraction",
    # (D3.34, D9.2, H7.1) compiled.engineering: reinforcement left this turn, general
    # reinforcement held inactive, batteries kept out of struck shields, damage control's
    # repairs due at End of Turn
    "reinf_general", "reinf_specific", "reinf_held", "reserve_kept", "dc_repairs",
    "mutiny", "control_stations",  # (G6) Klingon mutiny and the capture (compiled.engineering)
    # (J4.52, J4.11, J4.48) a fighter's last close-combat maneuver, TAC and landing
    # (compiled.small_craft)
    "craft_ccm", "craft_tac", "craft_landed",
    # (G7.0) tractor beams (compiled.tractors): each beam's link, its last use and release, the
    # beams powered, the towing base speed, the side that towed a unit off the map
    "tractor_link", "tractor_used_turn", "tractor_released_at", "tractor_powered",
    "tractor_base_speed", "towed_off_by",
    # (G8.0, G8.24, D7.0) transporters and boarding parties (compiled.transporters,
    # compiled.boarding): each transporter's last turn, the uses paid, dropped shields and
    # their boxes, the parties of each side aboard each unit, the crew units aboard
    "tran_used_turn", "tran_powered", "shield_drop_until", "shield_held", "boarding_parties",
    "crew_units",
    # (J2.221) each shuttle's bomb: energy put in, arming turns paid, the turn last paid, the
    # turn it is unusable (compiled.suicide_shuttles)
    "suicide_energy", "suicide_turns", "suicide_paid_turn", "suicide_idle_turn",
    # (scenario 11, G4.0, G5.0) compiled.planet_killer, compiled.probes: per side the research
    # points, the rolls made and the kill methods found; per unit its closest lab range this
    # turn, the ship a monster follows, the turns of its normal shot, of a shot at the unit
    # and of a close-in defence roll, the damage counted toward kill method 3; the probes
    # aboard and the one being armed (kind, turns paid, the turn last paid)
    "information", "research_rolls", "kill_methods", "lab_range", "monster_follows",
    "monster_shot_turn", "monster_fired_turn", "monster_counted", "defence_turn",
    "probes_left", "probe_kind", "probe_stage", "probe_paid_turn",
    # weapons
    "w_owner", "w_type", "w_arcs", "w_astern", "w_min_range", "w_max_range", "w_destroyed",
    "w_enabled", "w_last_fired", "w_fired_turn", "w_ready_turn", "w_ammo", "w_drone_rows",
    "w_armed", "w_arm_stage",  # (B3.0, E3.2, E4.2) the cadet form
    "w_gatling_shots",  # (E2.151) a phaser-G's last four shots (tier 2: hydran-cadet)
    # (E11) PPD pulse trains (compiled.ppd) and the charge under the cadet form (E11.21-E11.25:
    # its stage, arming energy and the turn last paid; compiled.energy)
    "ppd_target", "ppd_fired_at", "ppd_pulses", "ppd_resolved", "ppd_locked", "ppd_stage",
    "ppd_energy", "ppd_paid_turn",
    # (G23) the expanding sphere generators' records (``compiled.esg``; ``esg_max`` stays cold:
    # no kernel changes a capacity) and the units struck by a field (G23.621)
    "esg_stored", "esg_phase", "esg_radius", "esg_strength", "esg_announced_at",
    "esg_release_at", "esg_activated_at", "esg_dropped_at", "esg_cancelled_at", "esg_struck_at",
)
COLD_FIELDS: tuple[str, ...] = tuple(f for f in ARRAY_FIELDS if f not in HOT_FIELDS)
_HOT = frozenset(HOT_FIELDS)
SCALAR_FIELDS = ("turn", "impulse", "done", "time_up", "outcome_code",
                 "victory_mark")  # (SCENARIOS #4) compiled.ending._dakota_a
COURSE_FIELDS = ("dice", "ev", "ev_count")

BatchState = namedtuple("BatchState", HOT_FIELDS + SCALAR_FIELDS + COURSE_FIELDS)


def _stacked(states: list[BattleState], name: str) -> np.ndarray:
    """Field ``name`` of every state, stacked on a new first axis (a fresh array). One state,
    the harness's and the rule-area tests' usual case: a copy with a leading axis, some ten
    times cheaper than ``np.stack``, with the same dtype, shape and C layout."""
    if len(states) == 1:
        return np.array(getattr(states[0], name))[None]
    return np.stack([np.asarray(getattr(s, name)) for s in states])


def pack_cold(states: list[BattleState]) -> dict[str, np.ndarray]:
    """The ``COLD_FIELDS`` of reference states, stacked (kept beside a ``BatchState``)."""
    return {name: _stacked(states, name) for name in COLD_FIELDS}


def pack(states: list[BattleState], event_capacity: int = event_codes.CAPACITY) -> BatchState:
    """Stack reference states (of one setup) into a ``BatchState``; events start empty (the
    buffer holds the events of the current step only)."""
    if not states:
        raise ValueError("pack needs at least one battle state")
    out = {}
    for name in HOT_FIELDS:
        out[name] = _stacked(states, name)
    out["turn"] = np.array([s.turn for s in states], dtype=np.int64)
    out["impulse"] = np.array([s.impulse for s in states], dtype=np.int64)
    out["done"] = np.array([s.done for s in states], dtype=np.bool_)
    out["time_up"] = np.array([s.time_up for s in states], dtype=np.bool_)
    out["outcome_code"] = np.full(len(states), -1, dtype=np.int64)
    out["victory_mark"] = np.zeros(len(states), dtype=np.int64)  # (from the start: cleared)
    out["dice"] = np.stack([dice_mod.dice_row(s.rng) for s in states])
    width = event_codes.row_width(np.asarray(states[0].dac_boxes), np.asarray(states[0].w_owner))
    out["ev"] = np.zeros((len(states), event_capacity, width), dtype=np.int64)
    out["ev_count"] = np.zeros(len(states), dtype=np.int64)
    return BatchState(**out)


def unpack_into(batch: BatchState, b: int, state: BattleState,
                cold: dict[str, np.ndarray] | None = None) -> BattleState:
    """Write battle ``b`` of ``batch`` (and of ``cold``, if given; else ``state`` keeps its
    own cold arrays) into ``state``: arrays copied, dice rebuilt; events, controllers and the
    outcome are the caller's (``compiled.parallel``)."""
    for name in HOT_FIELDS:
        setattr(state, name, getattr(batch, name)[b].copy())
    if cold is not None:
        for name in COLD_FIELDS:
            setattr(state, name, cold[name][b].copy())
    state.turn = int(batch.turn[b])
    state.impulse = int(batch.impulse[b])
    state.done = bool(batch.done[b])
    state.time_up = bool(batch.time_up[b])
    state.rng = dice_mod.generator_of(batch.dice[b])
    state.cache = {}
    return state


def view_into(batch: BatchState, b: int, state: BattleState,
              arrays: bool = True) -> BattleState:
    """Battle ``b``'s hot arrays as views into ``state`` (nothing copied, no dice: for reading
    only, e.g. a verdict; ``state`` keeps its own cold arrays, which no kernel changes).
    ``arrays=False`` refreshes only the scalars, for a ``state`` that already holds the views
    (the kernels write ``batch``'s arrays in place, so the views stay current)."""
    if arrays:
        for name in HOT_FIELDS:
            setattr(state, name, getattr(batch, name)[b])
    state.turn = int(batch.turn[b])
    state.impulse = int(batch.impulse[b])
    state.done = bool(batch.done[b])
    state.time_up = bool(batch.time_up[b])
    state.cache = {}
    return state


def differences(batch: BatchState, b: int, state: BattleState,
                cold: dict[str, np.ndarray] | None = None) -> list[str]:
    """Names (with the first differing index) of the arrays and scalars of battle ``b`` that
    differ from the reference ``state`` (the cold arrays too where ``cold`` is given); dice
    compared by generator state."""
    out = []
    for name in HOT_FIELDS + (COLD_FIELDS if cold is not None else ()):
        mine = (getattr(batch, name) if name in _HOT else cold[name])[b]
        ref = getattr(state, name)
        if type(ref) is not np.ndarray:
            ref = np.asarray(ref)
        if mine.dtype == ref.dtype and mine.dtype.kind in "biu" and mine.shape == ref.shape \
                and mine.tobytes() == ref.tobytes():
            continue  # equal integers (np.array_equal's verdict, some times faster)
        if mine.shape != ref.shape or not np.array_equal(mine, ref):
            idx = np.argwhere(mine != ref) if mine.shape == ref.shape else "shape"
            first = idx[0].tolist() if not isinstance(idx, str) and len(idx) else idx
            out.append(f"{name}{first}: compiled {mine.tolist()} reference {ref.tolist()}")
    for name in ("turn", "impulse", "done", "time_up"):
        mine, ref = getattr(batch, name)[b], getattr(state, name)
        if mine != ref:
            out.append(f"{name}: compiled {mine} reference {ref}")
    if not np.array_equal(batch.dice[b], dice_mod.dice_row(state.rng)):
        out.append(f"dice: compiled {batch.dice[b].tolist()} "
                   f"reference {dice_mod.dice_row(state.rng).tolist()}")
    return out


# ---------------------------------------------------------------------- orders

ORDER_FIELDS = ("maneuver", "speed", "tactical", "disengage", "fire", "launch", "launch_facing",
                "gatling", "arm", "capacitor", "recharge", "cloak", "ppd", "esg",
                # (D3.341, D3.342, D3.3411 note, D9.2, H7.1) compiled.engineering
                "reinforce_general", "reinforce", "reinforce_hold", "repair_boxes",
                "reserve_shields", "fighters", "shuttles",
                "tractor",  # (G7.0) compiled.tractors
                "transporters", "transport", "drop_shield",  # (G8.0, G8.24)
                "suicide", "suicide_arm",  # (J2.22, J2.221) compiled.suicide_shuttles
                "probe")  # (G5) compiled.probes
BatchOrders = namedtuple("BatchOrders", ORDER_FIELDS)
NO_ORDER = -1  # no speed order / no target / automatic facing
TRACTOR_RELEASE = -2  # (G7.0) ``BatchOrders.tractor``: release (compiled.tractors.RELEASE)
GATLING_EXTRA = GATLING_SHOTS - 1  # (E2.151) a phaser-G's shots 2..4 of an impulse, a row each


def empty_orders(n_battles: int, n_units: int, n_weapons: int,
                 engineering: bool = True, tractor_beams: int = 0,
                 transporters: int = 0) -> BatchOrders:
    """Orders arrays for a batch: per unit ``maneuver`` (Maneuver), ``speed`` (-1 = none),
    ``tactical`` and ``disengage`` (bool, SCENARIOS #5); per weapon ``fire`` and ``launch``
    (target unit row, -1 = none) and ``launch_facing`` (0..5, -1 = automatic);
    ``gatling[b, GATLING_EXTRA * w + shot - 2]`` the target of a phaser-G's shot 2..4 (E2.151,
    ``Orders.gatling``; -1 = none); the cadet form (B3.0): per heavy weapon ``arm``
    (``ArmOrder``), per unit ``capacitor`` and ``recharge`` (-1 = none: the standing order) and
    ``cloak`` (bool, G13.0: pay the cloak for the turn); per weapon ``ppd`` (a PPD's
    ``PpdOrder``, 0 = keep, E11.362) and ``esg`` (an ``EsgOrder`` value, 0 = none; G23.3);
    the standard form's engineering orders (``compiled.engineering``): per unit
    ``reinforce_general`` (GR points, D3.341), ``reinforce_hold`` (D3.3411 note),
    ``reserve_shields`` (H7.1), per unit and shield ``reinforce[b, 6 u + s]`` (energy, D3.342)
    and ``repair_boxes[b, 6 u + s]`` (boxes, D9.2); zero-wide without ``engineering`` (their
    rows then cost nothing to clear); per carrier ``fighters`` and ``shuttles`` (the target unit
    row its craft are sent at, -1 = hold; J4.34, J1.0); per unit and tractor beam
    ``tractor[b, tractor_beams * u + beam]`` (the target row to attach, -1 none,
    ``TRACTOR_RELEASE``; G7.0; zero-wide with ``tractor_beams`` 0: rules.tractors off); with
    ``transporters`` (the most on a sheet; 0: rules.transporters off, zero-wide) per unit
    ``transporters`` (uses to pay, G8.0) and ``drop_shield`` (1..6, 0 none, G8.24), per unit
    and transporter ``transport[b, transporters * u + t]`` (the target row * 2 + 0 beam a
    party / 1 lift a crew unit, -1 none; compiled.transporters); per unit ``suicide`` (the
    target row of its armed suicide shuttle's launch, -1 none; J2.22) and ``suicide_arm`` (the
    bomb's energy 0..3, -1: the standing order; J2.221); per unit ``probe`` (a
    ``probes.ProbeOrder``, 0 none; G5)."""
    u, w = (n_battles, n_units), (n_battles, n_weapons)
    e = (n_battles, n_units if engineering else 0)
    e6 = (n_battles, 6 * n_units if engineering else 0)
    return BatchOrders(maneuver=np.zeros(u, np.int64), speed=np.full(u, NO_ORDER, np.int64),
                       tactical=np.zeros(u, np.bool_), disengage=np.zeros(u, np.bool_),
                       fire=np.full(w, NO_ORDER, np.int64),
                       launch=np.full(w, NO_ORDER, np.int64),
                       launch_facing=np.full(w, NO_ORDER, np.int64),
                       gatling=np.full((n_battles, GATLING_EXTRA * n_weapons), NO_ORDER,
                                       np.int64),
                       arm=np.full(w, NO_ORDER, np.int64),
                       capacitor=np.full(u, NO_ORDER, np.int64),
                       recharge=np.full(u, NO_ORDER, np.int64),
                       cloak=np.zeros(u, np.bool_), ppd=np.zeros(w, np.int64),
                       esg=np.zeros(w, np.int64), reinforce_general=np.zeros(e, np.int64),
                       reinforce=np.zeros(e6, np.int64), reinforce_hold=np.zeros(e, np.int64),
                       repair_boxes=np.zeros(e6, np.int64),
                       reserve_shields=np.zeros(e, np.int64),
                       fighters=np.full(u, NO_ORDER, np.int64),
                       shuttles=np.full(u, NO_ORDER, np.int64),
                       tractor=np.full((n_battles, tractor_beams * n_units), NO_ORDER,
                                       np.int64),
                       transporters=np.zeros((n_battles, n_units if transporters else 0),
                                             np.int64),
                       transport=np.full((n_battles, transporters * n_units), NO_ORDER,
                                         np.int64),
                       drop_shield=np.zeros((n_battles, n_units if transporters else 0),
                                            np.int64),
                       suicide=np.full(u, NO_ORDER, np.int64),
                       suicide_arm=np.full(u, NO_ORDER, np.int64),
                       probe=np.zeros(u, np.int64))


def pack_orders(orders: list, n_units: int, n_weapons: int,
                tractor_beams: int = 0, transporters: int = 0) -> BatchOrders:
    """Reference orders (one ``{unit row: Orders}`` per battle) as ``BatchOrders``
    (``tractor_beams``: the width of a unit's tractor row, 0 without tractors). Raises on an
    order the compiled tiers do not carry (transporters without the rule, ... orders)."""
    out = empty_orders(len(orders), n_units, n_weapons, tractor_beams=tractor_beams,
                       transporters=transporters)
    for b, per_unit in enumerate(orders):
        for u, o in (per_unit or {}).items():
            unported = [name for name in ("esg_reserve",) if getattr(o, name)]
            if (o.transport or o.drop_shield or o.transporters) and not transporters:
                unported.append("transport")
            if o.tractor and not tractor_beams:
                unported.append("tractor")
            unported += [name for name in ("repair",) if getattr(o, name)]
            if unported:
                raise ValueError(f"unit row {u}: orders {unported} are not in the compiled "
                                 "tiers")
            out.maneuver[b, u] = int(o.maneuver)
            out.speed[b, u] = NO_ORDER if o.speed is None else int(o.speed)
            out.tactical[b, u] = bool(o.tactical)
            out.disengage[b, u] = bool(o.disengage)
            for w, t in o.fire.items():
                out.fire[b, w] = int(t)
            for w, t in o.launch.items():
                out.launch[b, w] = int(t)
            for w, f in o.launch_facing.items():
                out.launch_facing[b, w] = int(f)
            for w, more in o.gatling.items():  # (E2.151) shots 2..4
                for shot, t in more.items():
                    out.gatling[b, GATLING_EXTRA * w + shot - 2] = int(t)
            for w, v in o.arm.items():  # (B3.0) the cadet form
                out.arm[b, w] = int(v)
            out.capacitor[b, u] = NO_ORDER if o.capacitor is None else int(o.capacitor)
            out.recharge[b, u] = NO_ORDER if o.recharge is None else int(o.recharge)
            out.cloak[b, u] = bool(o.cloak)
            out.probe[b, u] = int(o.probe or 0)  # (G5)
            for w, v in o.ppd.items():  # (E11.362)
                out.ppd[b, w] = int(v)
            for w, v in o.esg.items():  # (G23.3)
                out.esg[b, w] = int(v)
            # (D3.341, D3.342, D3.3411 note, D9.2, H7.1) compiled.engineering
            out.reinforce_general[b, u] = int(o.reinforce_general)
            out.reinforce_hold[b, u] = int(o.reinforce_hold)
            out.reserve_shields[b, u] = int(o.reserve_shields)
            for s, v in o.reinforce.items():
                out.reinforce[b, 6 * u + s - 1] = int(v)
            for s, v in o.repair_boxes.items():
                out.repair_boxes[b, 6 * u + s - 1] = int(v)
            for name in ("fighters", "shuttles",  # (J4.34, J1.0)
                         "suicide", "suicide_arm"):  # (J2.22, J2.221)
                if getattr(o, name) is not None:
                    getattr(out, name)[b, u] = int(getattr(o, name))
            for beam, t in o.tractor.items():  # (G7.0) tractors.RELEASE is -1 there
                out.tractor[b, tractor_beams * u + beam] = TRACTOR_RELEASE if t == -1 else int(t)
            if transporters:  # (G8.0, G8.24)
                out.transporters[b, u] = int(o.transporters)
                out.drop_shield[b, u] = int(o.drop_shield or 0)
                for t, (what, target) in o.transport.items():
                    if int(what):  # (TransportOrder BEAM_PARTY 1, LIFT_CREW 2)
                        out.transport[b, transporters * u + t] = 2 * int(target) + int(what) - 1
    return out


# ---------------------------------------------------------------------- generated copy kernel

def copy_kernel_source() -> str:
    """The source of ``compiled.copy_battle`` (generated: numba cannot loop over the
    heterogeneous fields of a namedtuple; ``tests/test_compiled_layout.py`` keeps it current):
    ``copy_battle`` (snapshots) and the ``borrowed_*`` views, each namedtuple of the step
    with every array ``borrowed.borrow``ed (the step kernel makes them once per call, so the
    per-battle calls that take them do no atomic reference counting)."""
    from sfb_env.compiled.damage import FireTables
    from sfb_env.compiled.esg import EsgTables
    from sfb_env.compiled.movement import MoveTables
    from sfb_env.compiled.observe import ObserveTables

    lines = [
        '"""Copy one battle of a ``BatchState`` into another (snapshots; the autoreset copies by',
        "``restart_plan``), and borrowed views of the step's namedtuples (``borrowed.borrow``: no",
        "atomic reference counting in the calls that take them).",
        "",
        "Generated by ``sfb_env.compiled.layout.copy_kernel_source()``: do not edit by hand.",
        '"""',
        "",
        "import numba as nb",
        "",
        "from sfb_env.compiled.borrowed import borrow",
        "from sfb_env.compiled.damage import FireTables",
        "from sfb_env.compiled.esg import EsgTables",
        "from sfb_env.compiled.layout import BatchOrders, BatchState",
        "from sfb_env.compiled.movement import MoveTables",
        "from sfb_env.compiled.observe import ObserveTables",
        "",
        "",
        "@nb.njit(cache=True, inline=\"always\")",
        "def copy_battle(dst, b, src, a):",
        '    """Battle ``a`` of ``src`` into battle ``b`` of ``dst`` (not dice or events): element',
        "    loops (a row assignment checks for overlap at run time and needs the NRT). For",
        "    snapshots (``benchmarks/profile_compiled.py``); the autoreset copies by the batch's",
        "    ``restart_plan``, one loop (these loops are some 65 kB of code).\"\"\"",
    ]
    from sfb_env.engine import make_battle

    sample = pack([make_battle("cth-01").state], 1)  # (the number of axes of each field)
    for name in HOT_FIELDS + SCALAR_FIELDS:
        ndim = getattr(sample, name).ndim
        if ndim == 1:
            lines.append(f"    dst.{name}[b] = src.{name}[a]")
            continue
        index = ""
        for axis in range(1, ndim):
            pad = "    " * axis
            lines.append(f"{pad}for i{axis} in range(dst.{name}.shape[{axis}]):")
            index += f", i{axis}"
        lines.append(f"{'    ' * ndim}dst.{name}[b{index}] = src.{name}[a{index}]")
    views = (("borrowed_state", BatchState, "s"), ("borrowed_orders", BatchOrders, "o"),
             ("borrowed_move", MoveTables, "t"), ("borrowed_fire", FireTables, "t"),
             ("borrowed_observe", ObserveTables, "t"), ("borrowed_esg", EsgTables, "t"))
    for func, cls, arg in views:
        lines += ["", "", '@nb.njit(cache=True, inline="always")', f"def {func}({arg}):",
                  f'    """``{arg}`` with every array borrowed."""',
                  f"    return {cls.__name__}("]
        lines += [f"        borrow({arg}.{name})," for name in cls._fields]
        lines.append("    )")
    return "\n".join(lines) + "\n"
