"""Events in compiled code: fixed-size integer rows, decoded into ``engine.events`` on request.

Each battle has a ``(CAPACITY, WIDTH)`` int64 buffer and a count (``BatchState.ev``,
``BatchState.ev_count``); the buffer holds the events of the current step. A row is
``[code, turn, impulse, v0, v1, ...]``: ``code`` is the event class's index in ``CLASSES``,
then the fields in declared order, each encoded by its kind:

* a unit (``unit``, ``target``, ``drone``, ...): the unit row, -1 for none ("");
* a weapon (``weapon``, ``rack``, ...): the weapon row;
* a hex (``hex``, ``src``, ``dst``): two values, axial x and z;
* ``facing``: 0..5 (A..F); ``weapon_type``: the ``WeaponType``; ``side``: the side index;
* int and bool: the value (``FRACTION_FIELDS``: float64 bits); float: its float64 bits;
* a tuple: its length, then its values (``boxes``: codes of ``VOCAB["boxes"]``, or a
  weapon row + ``BOX_WEAPON``);
* any other str: its index in ``VOCAB[field name]`` (``item`` "arm:<weapon>": the weapon row +
  ``BOX_WEAPON``; "top_up:<weapon>": the row + ``TOP_UP_WEAPON``);
* ``BattleEnded``: the code only; the decoder is given the outcome and reason.

Kernels write rows with ``begin`` (code, turn, impulse) and ``put`` (a value at a slot); the
constants ``CODE`` and ``WORD`` name codes and vocabulary words for them.
"""

from __future__ import annotations

import dataclasses
import typing

import numpy as np

from sfb_env import hexmap
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import events as ev
from sfb_env.engine import kill_methods, labs, planet_killer, probes
from sfb_env.engine.types import WEAPON_NAMES

CAPACITY = 64  # events one battle may log in one step (``layout.pack`` may ask for more)
WIDTH = 56  # code, turn, impulse and up to 53 values (a Damaged row of a cadet ship losing every
#   box and weapon in one volley: 8 + up to 41 boxes in tier 1, the Kzinti cadet)
BOX_WEAPON = 1000  # a ``boxes`` item >= this is the weapon row + BOX_WEAPON
TOP_UP_WEAPON = 2 * BOX_WEAPON  # an ``item`` >= this: "top_up:<weapon>" (E11.25), row + this
FIRE_USE_WEAPON = BOX_WEAPON  # a ``use`` >= this: "fire:<weapon>" (ReserveDischarged, H7.2)

CLASSES: tuple[type, ...] = tuple(
    c for c in vars(ev).values()
    if isinstance(c, type) and issubclass(c, ev.Event) and c is not ev.Event) + (
    # (scenario 11, G4.0, G5.0) the Planet Killer's events, declared in their rule areas
    planet_killer.MonsterFollows, planet_killer.MonsterFired, planet_killer.CloseInDefence,
    kill_methods.MonsterStruck, kill_methods.MonsterKilled, labs.Researched,
    labs.ResearchRolled, probes.ProbeLaunched)
CODE: dict[str, int] = {c.__name__: i for i, c in enumerate(CLASSES)}

UNIT_FIELDS = {"unit", "target", "drone", "source", "other_unit", "carrier", "shuttle",
               "torpedo", "monster"}
# (scenario 11) ``MonsterKilled.by``: a unit row, or ``BY_SIDE - side`` for a side's name (kill
# method 3 is credited to the side that found it, ``kill_methods.take_damage``)
BY_SIDE = -2
WEAPON_FIELDS = {"weapon", "rack", "generator", "other_generator"}
HEX_FIELDS = {"hex", "src", "dst"}
# int fields a fraction may fill (B3.2: ``EnergyAllocated.batteries_used`` under fractional
# accounting): written as float64 bits, decoded as int where whole
FRACTION_FIELDS = {"batteries_used"}
FACINGS = "ABCDEF"

# Words of the free-text fields; kernels write their index. Declared here only, append only:
# cached kernels hold these codes as constants, so they must not depend on import order.
VOCAB: dict[str, list[str]] = {
    "boxes": ["hull", "warp", "impulse", "apr", "battery", "lab", "transporter", "shuttle",
              "excess", "other",
              # (D4.2-D4.4) the standard DAC's boxes by ``engine.dac.DacBox`` name
              "bridge", "flag_bridge", "security", "aux_control", "emer_bridge", "sensor",
              "scanner", "damage_control", "f_hull", "a_hull", "c_hull", "l_warp", "r_warp",
              "c_warp", "tractor", "probe", "cargo", "armor"],
    "reason": ["FD1.4 endurance of 3 turns ran out", "D4.41 the controlling ship was destroyed",
               "FD1.3 the target is no longer in play", "destroyed", "let go at Energy Allocation",
               "not paid: energy shortfall",
               # (FP1.4, CTH-DATA §5.1) plasma endurance by type; (P-071) target gone
               "FP1.4 endurance of 25 hexes ran out", "FP1.4 endurance of 30 hexes ran out",
               "FP1.4 endurance of 15 hexes ran out",
               "FP1.3 the target is no longer in play (PROPOSAL: removed)",  # [P-071]
               # (G23) EsgDropped: G23.47, G23.32, G23.322, the generator gone, G23.712
               "voluntary", "expired", "exhausted", "destroyed", "collapsed",
               # (E11.21, E11.22) a PPD's charge let go or fired away (energy_allocation)
               "let go or fired",
               "D6 its launcher has no lock-on",  # (D6) the Sensor Lock-On step
               # (G7.0) TractorReleased (compiled.tractors)
               "released", "contested", "lapsed: beam not powered this turn", "out of play",
               "beam destroyed",
               # (J2.221) SuicideShuttleDeactivated (compiled.suicide_shuttles)
               "a turn went unpaid: arming lost", "hold not paid: energy shortfall",
               "the Planet Killer was destroyed"],  # (SCENARIOS §2.8 result 2) the tractor
    "method": ["D3.41 temporary movement", "D3.41 owner's choice (stronger shield)",
               "D3.41 die roll 1", "D3.41 die roll 2", "D3.41 die roll 3", "D3.41 die roll 4",
               "D3.41 die roll 5", "D3.41 die roll 6"],
    "rule": ["FD4.21 the ship launches at most 1 drone(s) per turn from all its racks",
             # (E11.362, E11.54) PpdTrainEnded
             "E11.362", "E11.544", "E11.542", "E11.541", "E11.475", "E11.472",
             "E11.361"],  # (E11.361) a small craft beyond 5 hexes
    "how": ["shuttle", "landed"],  # (scenario 9) CrewLifted
    "what": ["boarding party", "crew unit"],  # (G8.0) Transported
    "contact": ["enters", "from_inside", "jumps"],  # (G23.51, G23.5131, G23.571) EsgStruck
    "paid_with": ["warp", "sublight",  # (C5.11, C5.231) TacticalManeuver
                  # (J4.11, J4.52) a fighter's TAC and close-combat maneuvering
                  # (compiled.small_craft)
                  "J4.11 fighter", *(f"J4.52 close-combat maneuvering, shield #{k}"
                                     for k in range(1, 7))],
    "item": ["movement", "capacitor", "cloak",  # "arm:<weapon>": the weapon row + BOX_WEAPON
             "life support", "fire control", "shields",  # (B3.0 standard lines 7, 8, 11)
             "tactical",  # (C5.22) a TAC plot warp no longer pays
             # (D3.342, D3.341, D9.2) compiled.engineering
             *(f"reinforce:#{s}" for s in range(1, 7)), "reinforce_general",
             *(f"repair:#{s}" for s in range(1, 7)),
             "tractor",  # (G7.0, priority 5c) compiled.tractors
             "transporters",  # (G8.0, priority 5e) compiled.transporters
             "suicide:hold", "suicide:arm",  # (J2.221, priority 4b) compiled.suicide_shuttles
             "probe"],  # (G5.2, G5.32, priority 5d) compiled.probes
    # (H7.2) ReserveDischarged: "fire:<weapon>" is the weapon row + FIRE_USE_WEAPON
    "use": [f"reinforce:#{s}" for s in range(1, 7)],
    "result": ["no mutiny", "put down", "captured"],  # (G6.24, G6.33) Mutiny
    "shot": ["normal", "detection", "plasma"],  # (SCENARIOS §2.8) MonsterFired
    "probe": ["information", "anti-matter"],  # (G5.2, G5.3) ProbeLaunched
}


# (G8.0) ``Transported.result``: a code (``compiled.transporters.R_*``, this order) and two
# values in the row's next columns: p0, p1 (a unit row, a transporter, a count, shield bits)
TRANSPORT_RESULTS = (
    "done", "G8.0 the ship is not in play",
    "D7.0 a captured ship's transporters are its captor's (PROPOSAL: not used)",  # [P-103]
    "D4.0 transporter {p0} is destroyed",
    "B2.0 transporters operate in the Shields/Transporters step of an impulse",
    "G8.0 transporter {p0} has already operated this turn",
    "G8.0 no powered transporter use left this turn ({p0} paid at Energy Allocation; 1 energy "
    "powers up to 5)",
    "G8.0 no such target unit", "G8.0 the target is not in play",
    "G8.0 the target is beyond transporter range 5",
    "D7.0 boarding parties go aboard ships, freighters or the monster (J4.42)",
    "D7.0 no boarding party of the ship's side left aboard",
    "G8.0 no beaming of enemy personnel without consent", "G8.0 no crew unit to lift there",
    "G8.0 the shields of {unit} are up (a freighter's pool: {p1})",
    "G8.0 no transport through an active shield: shield {shields} of {unit} is up",
    "D3.34 general reinforcement on {unit} blocks the transporter",
    "G8.0 D3.41 shield #{p1} of {unit} faces the ship and is up",
    # (G8.0, planets.consent_blocker) p0 the planet, p1 the survivors' side
    "G8.0 no transport of enemy personnel without consent: the survivors on {unit} are "
    "{side}'s",
)
_UNIT_RESULTS = (14, 15, 16, 17, 18)  # p0 is a unit row


def word(field: str, text: str) -> int:
    """The code of ``text`` in ``VOCAB[field]`` (for kernels' constants)."""
    try:
        return VOCAB[field].index(text)
    except (KeyError, ValueError) as exc:
        raise KeyError(f"event vocabulary has no {field}={text!r}: add it to "
                       f"sfb_env.compiled.event_codes.VOCAB") from exc


def _hints(cls: type) -> list[tuple[str, object]]:
    hints = typing.get_type_hints(cls)
    return [(f.name, hints[f.name]) for f in dataclasses.fields(cls)
            if f.name not in ("turn", "impulse")]


_FIELDS = {c: _hints(c) for c in CLASSES}


def _row_width(cls: type) -> int:
    """Columns a row of ``cls`` uses: code, turn, impulse and its fields (a hex two); the whole
    row where a field is a tuple (its length varies)."""
    width = 3
    for name, hint in _FIELDS[cls]:
        if typing.get_origin(hint) is tuple:
            return WHOLE_ROW
        width += 2 if name in HEX_FIELDS else 1
    return width


WHOLE_ROW = 1 << 30  # a row whose length varies: ``begin`` clears all of it
DAMAGED_BOX_START = 8  # Damaged: code, turn, impulse, unit, shield, to_shield, internal, n, boxes


def row_width(dac_boxes: np.ndarray, w_owner: np.ndarray) -> int:
    """Columns of a battle's event rows: ``WIDTH``, or more where a ``Damaged`` row may list
    more boxes (D4.2-D4.4: a volley destroying all of a full-size ship's DAC boxes and weapons,
    up to some 125 items) after its 8 leading columns."""
    n_units = dac_boxes.shape[0]
    owners = w_owner[w_owner >= 0]
    items = dac_boxes.sum(axis=1) + np.bincount(owners, minlength=n_units)[:n_units]
    return max(WIDTH, DAMAGED_BOX_START + int(items.max(initial=0)))


ROW_WIDTH = np.array([_row_width(c) for c in CLASSES], dtype=np.int64)


@kernel()
def begin(ev_buf: np.ndarray, ev_count: np.ndarray, b: int, code: int, turn: int,
          impulse: int) -> int:
    """Open a row for battle ``b``; returns its index (the buffer must not overflow)."""
    r = ev_count[b]
    if r >= ev_buf.shape[1]:
        raise IndexError("compiled event buffer full (raise event_codes.CAPACITY)")
    ev_count[b] = r + 1
    ev_buf[b, r, 0] = code
    ev_buf[b, r, 1] = turn
    ev_buf[b, r, 2] = impulse
    for k in range(3, min(ROW_WIDTH[code], ev_buf.shape[2])):  # (the decoder reads no further)
        ev_buf[b, r, k] = 0
    return r


@kernel(_nrt=False, error_model="numpy")
def put_box(ev_buf: np.ndarray, b: int, r: int, code: int) -> None:
    """Append one ``boxes`` item to battle ``b``'s open Damaged row ``r`` (D4.2)."""
    n = ev_buf[b, r, DAMAGED_BOX_START - 1]
    at = DAMAGED_BOX_START + n
    if at >= ev_buf.shape[2]:
        raise IndexError("Damaged boxes overflow the event row (event_codes.row_width)")
    ev_buf[b, r, at] = code
    ev_buf[b, r, DAMAGED_BOX_START - 1] = n + 1


class _BoardingRows:
    """``BoardingCombat`` rows (``compiled.boarding``): unit, the number of sides present, per
    side (side, groups, dice...), then before and after (each length, values), stations."""

    def _boarding_combat(self, row: np.ndarray) -> ev.Event:
        at = 5
        dice = []
        for _ in range(int(row[4])):
            side, groups = int(row[at]), int(row[at + 1])
            dice.append((self.sides[side], tuple(int(d) for d in row[at + 2:at + 2 + groups])))
            at += 2 + groups
        n = int(row[at])
        before = tuple(int(x) for x in row[at + 1:at + 1 + n])
        at += 1 + n
        n = int(row[at])
        after = tuple(int(x) for x in row[at + 1:at + 1 + n])
        at += 1 + n
        return ev.BoardingCombat(int(row[1]), int(row[2]), self.unit_ids[int(row[3])],
                                 tuple(dice), before, after, int(row[at]))


    def _transported(self, row: np.ndarray) -> ev.Event:
        """(G8.0) ``Transported``: unit, transporter, what, src, dst, the result's code and
        its two values (``TRANSPORT_RESULTS``)."""
        ids = self.unit_ids
        v, p0, p1 = int(row[8]), int(row[9]), int(row[10])
        unit = ids[p0] if v in _UNIT_RESULTS else ""
        bits = "/".join(f"#{k + 1}" for k in range(6) if (p1 >> k) & 1)
        return ev.Transported(int(row[1]), int(row[2]), ids[int(row[3])], int(row[4]),
                              VOCAB["what"][int(row[5])], ids[int(row[6])], ids[int(row[7])],
                              TRANSPORT_RESULTS[v].format(
                                  p0=p0, p1=p1, unit=unit, shields=bits,
                                  side=self.sides[p1] if 0 <= p1 < len(self.sides) else ""))


class Decoder(_BoardingRows):
    """Turns event rows into ``engine.events`` objects for one setup."""

    def __init__(self, unit_ids: list[str], weapon_ids: list[str], sides: list[str],
                 parity: str) -> None:
        self.unit_ids, self.weapon_ids, self.sides, self.parity = (
            unit_ids, weapon_ids, sides, parity)

    def decode(self, rows: np.ndarray, outcome: dict | None = None,
               reason: str = "") -> list[ev.Event]:
        """The events of ``rows`` ((n, WIDTH) int64), in order; a ``BattleEnded`` row gets
        ``outcome`` and ``reason`` (the battle's verdict, computed in Python)."""
        return [self.decode_row(r, outcome, reason) for r in rows]

    def decode_row(self, row: np.ndarray, outcome: dict | None = None,
                   reason: str = "") -> ev.Event:
        cls = CLASSES[int(row[0])]
        if cls is ev.BattleEnded:
            return ev.BattleEnded(int(row[1]), int(row[2]), outcome, reason)
        if cls is ev.BoardingCombat:
            return self._boarding_combat(row)
        if cls is ev.Transported:
            return self._transported(row)
        values: list[object] = [int(row[1]), int(row[2])]
        at = 3
        for name, hint in _FIELDS[cls]:
            value, at = self._field(name, hint, row, at)
            values.append(value)
        return cls(*values)

    def _field(self, name: str, hint: object, row: np.ndarray, at: int) -> tuple[object, int]:
        v = int(row[at])
        if name in HEX_FIELDS:
            return hexmap.axial_to_label(v, int(row[at + 1]), self.parity), at + 2
        if name == "by" and hint is str:  # (MonsterKilled) a unit, or a side (BY_SIDE)
            return (self.unit_ids[v] if v >= 0 else self.sides[BY_SIDE - v]), at + 1
        if name in UNIT_FIELDS and hint is str:
            return (self.unit_ids[v] if v >= 0 else ""), at + 1
        if name in WEAPON_FIELDS and hint is str:
            if v <= -2:  # (J4.34, J1.0) a small craft's launch: "<carrier>.bay"
                return f"{self.unit_ids[-2 - v]}.bay", at + 1
            return (self.weapon_ids[v] if v >= 0 else ""), at + 1
        if name == "facing":
            return FACINGS[v], at + 1
        if name == "weapon_type":
            return WEAPON_NAMES[v], at + 1
        if name == "side":
            return self.sides[v], at + 1
        if hint is bool:
            return bool(v), at + 1
        if hint is int and name in FRACTION_FIELDS:  # float bits; whole values as int
            f = float(np.array([v], dtype=np.int64).view(np.float64)[0])
            return (int(f) if f.is_integer() else f), at + 1
        if hint is int:
            return v, at + 1
        if hint is float:
            return float(np.array([v], dtype=np.int64).view(np.float64)[0]), at + 1
        if name == "item" and v >= TOP_UP_WEAPON:  # (EnergyShortfall, E11.25) a PPD's top-up
            return f"top_up:{self.weapon_ids[v - TOP_UP_WEAPON]}", at + 1
        if name == "item" and v >= BOX_WEAPON:  # (EnergyShortfall) a heavy weapon's arming
            return f"arm:{self.weapon_ids[v - BOX_WEAPON]}", at + 1
        if name == "use" and v >= FIRE_USE_WEAPON:  # (ReserveDischarged, H7.2) a shot's
            return f"fire:{self.weapon_ids[v - FIRE_USE_WEAPON]}", at + 1  # batteries
        if hint is str:
            return VOCAB[name][v], at + 1
        # a tuple: length, then the values
        n = v
        if name == "dice":
            raise ValueError("a dice tuple outside BoardingCombat")
        items = [int(x) for x in row[at + 1: at + 1 + n]]
        if name == "boxes":
            return tuple(self.weapon_ids[i - BOX_WEAPON] if i >= BOX_WEAPON
                         else VOCAB["boxes"][i] for i in items), at + 1 + n
        return tuple(items), at + 1 + n
