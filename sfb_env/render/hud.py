"""The HUD panel: the scenario's title (shrunk or wrapped to fit), clock, and per ship its
speed, power, shields, armed weapons and internal damage; a legend of what the map shows
(weapon colours, shield order #1-#6, weapon boxes, drones, wrecks, cloaked ships, trails); the
outcome once the battle is over."""

from __future__ import annotations

from functools import lru_cache
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
from sfb_env.render.frame import SceneItem
from sfb_env.render.geometry import direction_vector

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

SHORT_NAMES = {
    "ph-1": "Ph1", "ph-2": "Ph2", "ph-3": "Ph3", "ph-g": "PhG", "disruptor": "Disr",
    "photon": "Phot", "fusion": "Fus", "ppd": "PPD", "plasma-s": "PlS", "plasma-r": "PlR",
    "plasma-f": "PlF", "drone-rack": "Drone", "esg": "ESG",
}
STATUS_WORDS = {Status.DESTROYED: "DESTROYED", Status.DISENGAGED: "DISENGAGED"}
POWER_BOXES = (Box.WARP, Box.IMPULSE, Box.APR)
TITLE_SIZES = (18, 17, 16, 15, 14)  # the title shrinks through these before it wraps
TITLE_WRAP_SIZE = 14  # a title too long for one line at 14 px wraps onto two


def draw_hud(image: Image.Image, battle: Battle, unit_colors, left: int,
             names: list[str] | None = None, scene: list[SceneItem] | None = None) -> None:
    """Draw the panel on ``image`` from column ``left`` to the right edge (``names``: the
    units' display names; ``scene``: the frame's draw list, extended with the HUD's items)."""
    draw = ImageDraw.Draw(image)
    width, height = image.width - left, image.height
    names = names if names is not None else list(battle.names)
    scene = scene if scene is not None else []
    draw.rectangle((left, 0, image.width, height), fill=colors.HUD_FILL)
    draw.line([(left, 0), (left, height)], fill=colors.HUD_RULE, width=2)
    st = battle.state
    pad = 12
    x, y = left + pad, pad
    y = _title(draw, battle.scenario.title, x, y, width - 2 * pad, scene)
    draw.text((x, y), f"Turn {st.turn}   Impulse {st.impulse}/{st.impulses_per_turn}",
              fill=colors.TEXT, font=font(16))
    y += 26
    ships = [u for u in range(len(st.kind)) if st.kind[u] in (UnitKind.SHIP, UnitKind.FREIGHTER)]
    drones = int(np.sum((st.status == Status.ACTIVE) & (st.kind == UnitKind.DRONE)))
    torpedoes = int(np.sum((st.status == Status.ACTIVE) & (st.kind == UnitKind.PLASMA)))
    footer = 56 if battle.done else 24
    panel, items = legend_panel(tuple(_weapon_types(battle)), width - 2 * pad)
    legend = panel.height
    # the legend only where it leaves each ship at least a compact entry
    if height - y - footer - legend < min(len(ships), 4) * 52:
        legend = 0
    room = height - y - footer - legend
    compact = len(ships) * 92 > room
    for u in ships:
        if y > height - footer - legend - 30:
            break
        scene.append(SceneItem("hud-ship", battle.unit_ids[u], ((x, y),), names[u]))
        y = _ship_entry(draw, battle, u, unit_colors[u], names[u], x, y, width - 2 * pad,
                        compact)
    if legend:
        top = height - footer - legend
        image.paste(panel, (x, top))
        scene.extend(SceneItem(i.kind, i.unit, tuple((px + x, py + top) for px, py in i.points),
                               i.text, i.style) for i in items)
    y = height - footer
    draw.line([(left + pad, y), (image.width - pad, y)], fill=colors.HUD_RULE)
    seeking = f"drones in flight: {drones}" + (f", plasma: {torpedoes}" if torpedoes else "")
    draw.text((x, y + 6), seeking, fill=colors.TEXT_DIM, font=font(13))
    if battle.done and battle.outcome:
        parts = [f"{side} {o['result']}" for side, o in battle.outcome.items()]
        draw.text((x, y + 24), "Battle over: " + ", ".join(parts), fill=colors.WARN, font=font(14))
        draw.text((x, y + 40), battle.end_reason, fill=colors.TEXT_DIM, font=font(12))


def _title(draw: ImageDraw.ImageDraw, title: str, x: int, y: int, width: int,
           scene: list[SceneItem]) -> int:
    """The scenario's title in the panel's width: the largest of ``TITLE_SIZES`` that fits on
    one line, else wrapped at ``TITLE_WRAP_SIZE`` (a word longer than the line is cut with
    "..."); returns the next y."""
    for size in TITLE_SIZES:
        if draw.textlength(title, font=font(size)) <= width:
            lines = [title]
            break
    else:
        size = TITLE_WRAP_SIZE
        lines = _wrap(draw, title, font(size), width)
    for line in lines:
        draw.text((x, y), line, fill=colors.TEXT, font=font(size))
        right = x + draw.textlength(line, font=font(size))
        scene.append(SceneItem("title", points=((x, y), (right, y + size)), text=line))
        y += size + 4
    return y + 2


def _wrap(draw: ImageDraw.ImageDraw, text: str, f, width: int, most: int = 2) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and draw.textlength(f"{lines[-1]} {word}", font=f) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    if len(lines) > most:
        lines = [*lines[:most - 1], " ".join(lines[most - 1:])]
    for k, line in enumerate(lines):
        if draw.textlength(line, font=f) > width:
            while line and draw.textlength(line + "...", font=f) > width:
                line = line[:-1]
            lines[k] = line.rstrip() + "..."
    return lines


def _weapon_types(battle: Battle) -> list[str]:
    """The direct-fire weapon types in the battle (data-file keys), each colour once."""
    st = battle.state
    out: dict[RGB, str] = {}
    for w in range(len(st.w_type)):
        key = WEAPON_NAMES[int(st.w_type[w])]
        if st.w_enabled[w] and key not in ("drone-rack", "esg"):
            out.setdefault(colors.weapon_color(key), key)
    return list(out.values())


LEGEND_SYMBOLS = (  # (symbol, words), two to a line
    ("drone", "drone (launcher D#)"), ("target", "drone's target"),
    ("wreck", "wreck (destroyed)"), ("cloaked", "cloaked ship"),
    ("trail", "last hexes moved"), ("miss", "shot missed"),
)
LEGEND_LINE = 16


def _legend_height(draw: ImageDraw.ImageDraw, types: list[str], width: int) -> int:
    rows = 1 + len(_weapon_rows(draw, types, width))
    return 18 + 42 + (rows + (len(LEGEND_SYMBOLS) + 1) // 2) * LEGEND_LINE + 8


def _weapon_rows(draw: ImageDraw.ImageDraw, types: list[str], width: int) -> list[list[str]]:
    rows: list[list[str]] = [[]]
    used = 0
    for key in types:
        need = 22 + int(draw.textlength(SHORT_NAMES.get(key, key), font=font(12))) + 10
        if rows[-1] and used + need > width:
            rows.append([])
            used = 0
        rows[-1].append(key)
        used += need
    return [r for r in rows if r]


@lru_cache(maxsize=16)
def legend_panel(types: tuple[str, ...], width: int) -> tuple[Image.Image, tuple[SceneItem, ...]]:
    """The legend drawn once per battle's weapon types and panel width (cached: it never
    changes during a battle), with its draw-list items relative to its top-left corner."""
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    image = Image.new("RGB", (width, _legend_height(probe, list(types), width)), colors.HUD_FILL)
    items: list[SceneItem] = []
    _legend(ImageDraw.Draw(image), list(types), 0, 0, width, items)
    return image, tuple(items)


def _legend(draw: ImageDraw.ImageDraw, types: list[str], x: int, y: int, width: int,
            scene: list[SceneItem]) -> None:
    """What the map's marks mean, from ``y`` down."""
    f = font(12)
    dim = colors.TEXT_DIM
    draw.line([(x, y), (x + width, y)], fill=colors.HUD_RULE)
    draw.text((x, y + 4), "Legend", fill=colors.TEXT, font=font(13))
    scene.append(SceneItem("legend", points=((x, y),), text="Legend"))
    y += 22
    # shield order: a counter heading up, #1 ahead then clockwise (D3.1)
    cx, cy, r = x + 18, y + 19, 10
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=colors.shield_color(1, 1), width=2)
    draw.polygon([(cx, cy - 6), (cx - 4, cy + 4), (cx, cy + 2), (cx + 4, cy + 4)],
                 fill=colors.TEXT)
    for k in range(6):
        fx, fy = direction_vector(k)
        draw.text((cx + fx * (r + 6), cy + fy * (r + 6)), str(k + 1), fill=colors.TEXT,
                  font=font(10), anchor="mm")
    words = "shields #1 ahead, #2-#6 clockwise"
    draw.text((x + 40, cy - 13), words, fill=dim, font=f)
    draw.text((x + 40, cy + 1), "ring: green full, red low, grey down", fill=dim, font=f)
    scene.append(SceneItem("legend", points=((x, y),), text=words, style="shields"))
    y += 42
    for row in _weapon_rows(draw, types, width):
        cx = x
        for key in row:
            name = SHORT_NAMES.get(key, key)
            draw.line([(cx, y + 7), (cx + 18, y + 7)], fill=colors.weapon_color(key), width=3)
            draw.text((cx + 22, y), name, fill=dim, font=f)
            scene.append(SceneItem("legend", points=((cx, y + 7),), text=name, style=key))
            cx += 22 + int(draw.textlength(name, font=f)) + 10
        y += LEGEND_LINE
    cx = x
    for fill, outline, words in ((colors.TEXT, None, "armed"), (None, dim, "fired/not ready"),
                                 (colors.BAD, None, "destroyed")):
        draw.rectangle((cx, y + 4, cx + 6, y + 10), fill=fill, outline=outline)
        draw.text((cx + 10, y), words, fill=dim, font=f)
        scene.append(SceneItem("legend", points=((cx, y + 7),), text=words, style="weapon-box"))
        cx += 10 + int(draw.textlength(words, font=f)) + 12
    y += LEGEND_LINE
    for k, (symbol, words) in enumerate(LEGEND_SYMBOLS):
        cx = x + (k % 2) * (width // 2)
        _symbol(draw, symbol, cx + 8, y + 7)
        draw.text((cx + 20, y), words, fill=dim, font=f)
        scene.append(SceneItem("legend", points=((cx, y + 7),), text=words, style=symbol))
        if k % 2:
            y += LEGEND_LINE


def _symbol(draw: ImageDraw.ImageDraw, symbol: str, cx: int, cy: int) -> None:
    """A small sample of a map mark for the legend."""
    if symbol == "drone":
        draw.ellipse((cx - 4, cy - 4, cx + 4, cy + 4), fill=colors.TEXT, outline=colors.OUTLINE)
    elif symbol == "target":
        for k in range(-6, 8, 4):
            draw.ellipse((cx + k - 1, cy - 1, cx + k + 1, cy + 1), fill=colors.TEXT_DIM)
    elif symbol == "wreck":
        draw.ellipse((cx - 5, cy - 5, cx + 5, cy + 5), fill=colors.WRECK)
        draw.line([(cx - 6, cy - 6), (cx + 6, cy + 6)], fill=colors.WRECK_X, width=2)
        draw.line([(cx - 6, cy + 6), (cx + 6, cy - 6)], fill=colors.WRECK_X, width=2)
    elif symbol == "cloaked":  # a ghost arrow counter, dashed
        pts = [(cx, cy - 7), (cx + 6, cy + 6), (cx, cy + 3), (cx - 6, cy + 6)]
        draw.polygon(pts, fill=colors.mix(colors.TEXT, colors.HUD_FILL, 0.75))
        for (ax, ay), (bx, by) in zip(pts, [*pts[1:], pts[0]], strict=True):
            for t0, t1 in ((0.0, 0.35), (0.65, 1.0)):
                draw.line([(ax + (bx - ax) * t0, ay + (by - ay) * t0),
                           (ax + (bx - ax) * t1, ay + (by - ay) * t1)], fill=colors.TEXT)
    elif symbol == "trail":
        draw.line([(cx - 7, cy + 3), (cx + 7, cy - 3)], fill=colors.TEXT_DIM, width=2)
    elif symbol == "miss":
        draw.line([(cx - 7, cy), (cx + 7, cy)], fill=colors.mix(colors.TEXT, colors.HUD_FILL,
                                                               0.55), width=1)


def _ship_entry(draw: ImageDraw.ImageDraw, battle: Battle, u: int, color: RGB, display: str,
                x: int, y: int, width: int, compact: bool) -> int:
    """One ship's block; returns the next y."""
    st = battle.state
    ship = battle.ship_classes[u]
    status = Status(int(st.status[u]))
    gone = status != Status.ACTIVE
    draw.rectangle((x, y + 2, x + 10, y + 12), fill=colors.mix(color, colors.HUD_FILL, 0.6 * gone))
    name = f"{display}  ({battle.scenario.sides[int(st.side[u])]})"
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
    if st.cloaked is not None and st.cloaked[u]:
        line += "   cloaked"
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
