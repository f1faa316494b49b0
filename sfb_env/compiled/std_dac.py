"""The standard (2d6) Damage Allocation Chart in compiled code (``damage: standard_dac``).

Mirrors ``engine.damage._standard_dac_internal`` over ``engine.dac.resolve_volley`` (D4.2-D4.4,
CTH-DATA §10.3) on ``BatchState.dac_boxes`` (the ship's boxes by ``dac.DacBox``) and
``w_destroyed``:

* the 2d6 rolls of a volley are drawn before it is resolved, one pair per internal point
  (``integers(1, 7, size=(points, 2))``): drawn here pair by pair as the chart needs them, and
  the pairs left over (armor, a ship destroyed) after the volley: the same stream;
* (D4.12) armor takes the first points before any roll;
* a point takes column A of its row and moves right while the cell cannot be scored (D4.21);
  (D4.31) a bold cell scores once per volley (a bit per bold cell);
* (D4.321) a "Phaser" cell needs a phaser that fires through one of the volley's shields (a
  PPD pulse: every shield it penetrated, E11.332; no shield: any); "Any Weapon" any weapon;
  (D4.322) every third phaser hit of a volley goes to the best phaser type left; the owner
  gives up the lowest ``dac.DEFAULT_WEAPON_VALUE`` first, ties the weapon listed last [P-041];
* (D4.33) tracks lose their best box first, the last sensor, scanner and damage-control box is
  never destroyed; (D4.351) F/A hull hits fall to the centre hull; (D4.352) "Any Warp" takes
  the engine with most boxes left (ties L, R, C); (D4.354) "FlagBridge" takes security first;
* (D4.4) Excess always scores: with no Excess box left it destroys the ship;
* the coarse ``boxes`` counts follow (``damage.DAC_TO_BOX``); a ``Damaged`` row lists the
  boxes by their ``DacBox`` name (``event_codes.VOCAB["boxes"]``) and the weapons lost.

Cadet ships under ``standard_dac`` keep the cadet DAC (SCENARIOS #12; ``DacTables.dac_unit``).
Not ported: multi-ship volleys (D4.34: the reference resolves each unit's volley alone too),
mutiny (G6.2, ``rules.mutiny`` refused). Tables: ``dac_tables(setup)``, fields of
``damage.FireTables``.
"""

from __future__ import annotations

import numpy as np

from sfb_env import tables
from sfb_env.compiled import dice as dice_mod
from sfb_env.compiled import event_codes
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import dac
from sfb_env.engine import damage as ref_damage

BOX_WEAPON = event_codes.BOX_WEAPON
_ARMOR = int(dac.DacBox.ARMOR)
_EXCESS = int(dac.DacBox.EXCESS)
ALL_SHIELDS = 0b1111110  # bit s for shield s (1..6): a volley through no shield (D4.321)
CLASS_BIT = {"phaser": 1, "torp": 2, "drone": 4}  # (D4.321-D4.324) weapon classes


def dac_tables(setup) -> dict[str, np.ndarray]:
    """The standard DAC's tables (``FireTables`` fields ``dac_*``) for ``setup``: the chart
    (CTH-DATA §10.3) and, per unit and weapon row, what ``engine.dac.ship_boxes`` knows."""
    systems, bold, names = tables.standard_dac_chart()
    n_sys = len(names)
    sys_boxes = np.full((n_sys, 3), -1, dtype=np.int64)
    sys_weapon = np.zeros(n_sys, dtype=np.int64)
    for i, name in enumerate(names):
        if name in dac.WEAPON_SYSTEMS:
            for c in dac.WEAPON_SYSTEMS[name]:
                sys_weapon[i] |= CLASS_BIT[c]
        else:
            for k, box in enumerate(dac.SYSTEM_BOXES[name]):
                sys_boxes[i, k] = int(box)
    bold_bit = np.full(bold.shape, -1, dtype=np.int64)
    cells = np.argwhere(np.asarray(bold, dtype=bool))
    if len(cells) > 63:
        raise NotImplementedError("compiled standard DAC: more than 63 bold cells")
    for k, (row, col) in enumerate(cells):
        bold_bit[row, col] = k
    keep_last = np.zeros(dac.N_BOXES, dtype=np.int64)
    for box in dac.KEEP_LAST_BOX:
        keep_last[int(box)] = 1
    to_box = np.full(dac.N_BOXES, -1, dtype=np.int64)
    for box, coarse in ref_damage.DAC_TO_BOX.items():
        to_box[int(box)] = int(coarse)
    word = np.array([event_codes.word("boxes", box.name.lower()) for box in dac.DacBox],
                    dtype=np.int64)
    n_w = len(setup.weapon_ids)
    w_class = np.zeros(n_w, dtype=np.int64)
    w_shields = np.zeros(n_w, dtype=np.int64)
    w_value = np.zeros(n_w, dtype=np.int64)
    w_rank = np.zeros(n_w, dtype=np.int64)
    dac_unit = np.zeros(len(setup.unit_ids), dtype=np.bool_)
    if setup.rules.damage == "standard_dac":
        for u, ship in enumerate(setup.ship_classes):
            # (SCENARIOS #12) cadet ships keep the cadet DAC (damage.init_dac_boxes)
            if ship is None or ship.freighter is not None or ship.kind == "cadet":
                continue
            dac_unit[u] = True
            boxes = dac.ship_boxes(ship)
            rows = setup.weapon_rows[u]
            if len(rows) != len(boxes.weapons):
                raise NotImplementedError(f"compiled standard DAC: unit {u}'s weapon rows")
            for w, box in zip(rows, boxes.weapons, strict=True):
                w_class[w] = CLASS_BIT[box.dac_class]
                w_shields[w] = sum(1 << s for s in box.shields)
                w_value[w] = box.owner_value
                w_rank[w] = dac.PHASER_RANK.get(box.type, 0)
    return {"dac_unit": dac_unit, "dac_chart": np.asarray(systems, dtype=np.int64).copy(),
            "dac_bold": bold_bit, "dac_sys_boxes": sys_boxes, "dac_sys_weapon": sys_weapon,
            "dac_phaser": np.int64(names.index("Phaser")),
            "dac_any_warp": np.int64(names.index("Any Warp")),
            "dac_excess": np.int64(names.index("Excess")), "dac_keep_last": keep_last,
            "dac_to_box": to_box, "dac_word": word, "w_dac_class": w_class,
            "w_dac_shields": w_shields, "w_dac_value": w_value, "w_phaser_rank": w_rank}


@kernel(_nrt=False, error_model="numpy")
def _pick_weapon(w_destroyed, unit_weapons, unit_n_weapons, w_class, w_shields, w_value,
                 w_rank, b, unit, classes, phaser, shields, third):
    """``dac._Volley.pick_weapon``: the working weapon of ``unit`` of ``classes`` (a
    "Phaser" cell: one firing through ``shields``, D4.321; the third phaser hit of a volley:
    of the best type left, D4.322) with the lowest owner's value, ties the one listed last;
    -1 if none."""
    best_rank = 1 << 30
    if third:
        for k in range(unit_n_weapons[unit]):
            w = unit_weapons[unit, k]
            if (not w_destroyed[b, w] and w_class[w] & classes
                    and w_shields[w] & shields and w_rank[w] < best_rank):
                best_rank = w_rank[w]
    best, best_v = -1, 0
    for k in range(unit_n_weapons[unit]):
        w = unit_weapons[unit, k]
        if w_destroyed[b, w] or not w_class[w] & classes:
            continue
        if phaser and not w_shields[w] & shields:  # (D4.321)
            continue
        if third and w_rank[w] != best_rank:  # (D4.322)
            continue
        if best < 0 or w_value[w] <= best_v:  # ties: the one listed last
            best, best_v = w, w_value[w]
    return best


@kernel(_nrt=False, error_model="numpy")
def standard_dac_internal(boxes, dac_boxes, w_destroyed, dice, ev, unit_weapons,
                          unit_n_weapons, dac_chart, dac_bold, dac_sys_boxes, dac_sys_weapon,
                          dac_phaser, dac_any_warp, dac_excess, dac_keep_last, dac_to_box,
                          dac_word, w_class, w_shields, w_value, w_rank, b, unit, points,
                          shields, r):
    """``damage._standard_dac_internal`` (D4.2-D4.4; see the module docstring): ``points``
    internal points through the shields of bit set ``shields`` on ``unit`` of battle ``b``;
    the boxes go into Damaged row ``r``. Returns True when an Excess hit finds no Excess box
    left (D4.4: the ship is destroyed)."""
    bold_used = 0  # (D4.31) bit per bold cell scored this volley
    phaser_hits = 0  # (D4.322)
    pairs = 0  # 2d6 rolls drawn so far
    destroyed = False
    for _ in range(points):
        if destroyed:
            break
        if dac_boxes[b, unit, _ARMOR] > 0:  # (D4.12) armor before the chart
            dac_boxes[b, unit, _ARMOR] -= 1
            coarse = dac_to_box[_ARMOR]
            if coarse >= 0 and boxes[b, unit, coarse] > 0:
                boxes[b, unit, coarse] -= 1
            event_codes.put_box(ev, b, r, dac_word[_ARMOR])
            continue
        row = dice_mod.die(dice, b) + dice_mod.die(dice, b) - 2
        pairs += 1
        for col in range(dac_chart.shape[1]):
            bit = dac_bold[row, col]
            if bit >= 0 and (bold_used >> bit) & 1:
                continue  # (D4.31) a bold cell used this volley: move right
            system = dac_chart[row, col]
            scored = False
            classes = dac_sys_weapon[system]
            if classes:
                phaser = system == dac_phaser
                w = _pick_weapon(w_destroyed, unit_weapons, unit_n_weapons, w_class,
                                 w_shields, w_value, w_rank, b, unit, classes, phaser,
                                 shields, phaser and (phaser_hits + 1) % 3 == 0)
                if w >= 0:
                    w_destroyed[b, w] = True
                    phaser_hits += phaser
                    event_codes.put_box(ev, b, r, w + BOX_WEAPON)
                    scored = True
            elif system == dac_excess and dac_boxes[b, unit, _EXCESS] == 0:
                destroyed = True  # (D4.4)
                scored = True
            else:
                pick = -1
                for k in range(dac_sys_boxes.shape[1]):
                    box = dac_sys_boxes[system, k]
                    if box < 0:
                        break
                    if dac_boxes[b, unit, box] > dac_keep_last[box]:  # (D4.33)
                        if system != dac_any_warp:
                            pick = box
                            break
                        # (D4.352) owner's choice: the engine with most boxes left, ties L, R, C
                        if pick < 0 or dac_boxes[b, unit, box] > dac_boxes[b, unit, pick]:
                            pick = box
                if pick >= 0:
                    dac_boxes[b, unit, pick] -= 1
                    coarse = dac_to_box[pick]
                    if coarse >= 0 and boxes[b, unit, coarse] > 0:
                        boxes[b, unit, coarse] -= 1
                    event_codes.put_box(ev, b, r, dac_word[pick])
                    scored = True
            if scored:
                if bit >= 0:
                    bold_used |= 1 << bit
                break
    for _ in range(2 * (points - pairs)):  # the rolls drawn for the points not rolled on
        dice_mod.die(dice, b)
    return destroyed
