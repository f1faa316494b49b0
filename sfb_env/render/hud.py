"""The HUD panel: clock, and per ship its speed, power, shields, armed weapons and internal
damage; the outcome once the battle is over."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw

from sfb_env.engine import direct_fire, fusion
from sfb_env.engine.types import (
    PLASMA_LAUNCHERS,
    WEAPON_NAMES,
    Box,
    Status,
    UnitKind,
    WeaponType,
)
from sfb_env.render import colors
from sfb_env.render.colors import RGB
from sfb_env.render.fonts import font

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

SHORT_NAMES = {
    "ph-1": "Ph1", "ph-2": "Ph2", "ph-3": "Ph3", "ph-g": "PhG", "disruptor": "Disr",
    "photon": "Phot", "fusion": "Fus", "ppd": "PPD", "plasma-s": "PlS", "plasma-r": "PlR",
    "plasma-f": "PlF", "drone-rack": "Drone", "esg": "ESG",
}
STATUS_WORDS = {Status.DESTROYED: "DESTROYED", Status.DISENGAGED: "DISENGAGED"}
POWER_BOXES = (Box.WARP, Box.IMPULSE, Box.APR)


def draw_hud(image: Image.Image, battle: Battle, unit_colors, left: int) -> None:
    """Draw the panel on ``image`` from column ``left`` to the right edge."""
    draw = ImageDraw.Draw(image)
    width, height = image.width - left, image.height
    draw.rectangle((left, 0, image.width, height), fill=colors.HUD_FILL)
    draw.line([(left, 0), (left, height)], fill=colors.HUD_RULE, width=2)
    st = battle.state
    pad = 12
    x, y = left + pad, pad
    title = battle.scenario.title
    draw.text((x, y), title, fill=colors.TEXT, font=font(18))
    y += 24
    draw.text((x, y), f"Turn {st.turn}   Impulse {st.impulse}/{st.impulses_per_turn}",
              fill=colors.TEXT, font=font(16))
    y += 26
    ships = [u for u in range(len(st.kind)) if st.kind[u] in (UnitKind.SHIP, UnitKind.FREIGHTER)]
    drones = int(np.sum((st.status == Status.ACTIVE) & (st.kind == UnitKind.DRONE)))
    torpedoes = int(np.sum((st.status == Status.ACTIVE) & (st.kind == UnitKind.PLASMA)))
    footer = 56 if battle.done else 24
    room = height - y - footer
    compact = len(ships) * 92 > room
    for u in ships:
        if y > height - footer - 30:
            break
        y = _ship_entry(draw, battle, u, unit_colors[u], x, y, width - 2 * pad, compact)
    y = height - footer
    draw.line([(left + pad, y), (image.width - pad, y)], fill=colors.HUD_RULE)
    seeking = f"drones in flight: {drones}" + (f", plasma: {torpedoes}" if torpedoes else "")
    draw.text((x, y + 6), seeking, fill=colors.TEXT_DIM, font=font(13))
    if battle.done and battle.outcome:
        parts = [f"{side} {o['result']}" for side, o in battle.outcome.items()]
        draw.text((x, y + 24), "Battle over: " + ", ".join(parts), fill=colors.WARN, font=font(14))
        draw.text((x, y + 40), battle.end_reason, fill=colors.TEXT_DIM, font=font(12))


def _ship_entry(draw: ImageDraw.ImageDraw, battle: Battle, u: int, color: RGB, x: int, y: int,
                width: int, compact: bool) -> int:
    """One ship's block; returns the next y."""
    st = battle.state
    ship = battle.ship_classes[u]
    status = Status(int(st.status[u]))
    gone = status != Status.ACTIVE
    draw.rectangle((x, y + 2, x + 10, y + 12), fill=colors.mix(color, colors.HUD_FILL, 0.6 * gone))
    name = f"{battle.names[u]}  ({battle.scenario.sides[int(st.side[u])]})"
    draw.text((x + 16, y), name, fill=colors.TEXT_DIM if gone else colors.TEXT, font=font(14))
    y += 18
    if gone:
        word = STATUS_WORDS.get(status, status.name)
        draw.text((x + 16, y), word, fill=colors.BAD, font=font(13))
        return y + (18 if compact else 24)
    line = f"speed {int(st.speed[u])}"
    if ship is not None and ship.freighter is None:
        power = int(sum(st.boxes[u, b] for b in POWER_BOXES))
        line += f"   power {power}/{ship.total_power}"
    internal_max = int(battle.initial.internal_boxes[u])
    line += f"   internal {int(st.internal[u])}/{internal_max}"
    draw.text((x + 16, y), line, fill=colors.TEXT, font=font(13))
    y += 17
    if not compact:
        y = _shields(draw, battle, u, x + 16, y)
    y = _weapons(draw, battle, u, x + 16, y, width - 16)
    return y + 8


def _shields(draw: ImageDraw.ImageDraw, battle: Battle, u: int, x: int, y: int) -> int:
    st = battle.state
    full = battle.initial.shields[u]
    draw.text((x, y), "shields", fill=colors.TEXT_DIM, font=font(13))
    cx = x + 56
    count = 1 if st.shield_pool[u] else 6
    for k in range(count):
        value = int(st.shields[u, k])
        draw.text((cx, y), str(value), fill=colors.shield_color(value, int(full[k])), font=font(13))
        cx += 28
    return y + 17


def _weapons(draw: ImageDraw.ImageDraw, battle: Battle, u: int, x: int, y: int,
             width: int) -> int:
    """Weapon groups by type: a filled box per armed weapon, an empty one per weapon fired or
    not ready, a red one per destroyed weapon; racks show drones left."""
    st = battle.state
    cx = x
    f = font(12)
    for wtype in dict.fromkeys(int(t) for t in st.w_type[battle.weapons_of(u)]):
        rows = [w for w in battle.weapons_of(u) if st.w_type[w] == wtype and st.w_enabled[w]]
        if not rows:
            continue
        name = SHORT_NAMES.get(WEAPON_NAMES[wtype], WEAPON_NAMES[wtype])
        need = int(draw.textlength(name, font=f)) + 4 + 9 * len(rows) + 10
        if wtype == WeaponType.DRONE_RACK:
            need += 14
        if cx + need > x + width:
            cx, y = x, y + 15
        draw.text((cx, y), name, fill=colors.TEXT_DIM, font=f)
        cx += int(draw.textlength(name, font=f)) + 4
        color = colors.weapon_color(WEAPON_NAMES[wtype])
        for w in rows:
            box = (cx, y + 3, cx + 6, y + 9)
            if st.w_destroyed[w]:
                draw.rectangle(box, fill=colors.BAD)
            elif _armed(battle, int(w)):
                draw.rectangle(box, fill=color)
            else:
                draw.rectangle(box, outline=colors.TEXT_DIM)
            cx += 9
        if wtype == WeaponType.DRONE_RACK:
            ammo = int(sum(st.w_ammo[w] for w in rows))
            draw.text((cx, y), str(ammo), fill=colors.TEXT, font=f)
            cx += 14
        cx += 10
    return y + 15


def _armed(battle: Battle, w: int) -> bool:
    """Armed and not yet fired this turn (E1.5), or a rack with drones left; a fusion beam
    armed and not cooling (E7.22); a phaser-G with shots left this turn (E2.151)."""
    st = battle.state
    if st.w_type[w] == WeaponType.DRONE_RACK:
        return bool(st.w_ammo[w] > 0)
    if st.w_type[w] in PLASMA_LAUNCHERS:  # (FP1.22) holds an armed torpedo
        return bool(st.w_armed[w])
    if st.w_type[w] == WeaponType.FUSION:
        return fusion.can_fire(direct_fire.fusion_beam(battle, w), max(1, st.turn))[0]
    if st.w_type[w] == WeaponType.PHG:
        return direct_fire.gatling_shots_left(battle, w) > 0
    return bool(st.turn >= st.w_ready_turn[w] and st.w_fired_turn[w] != st.turn)
