"""Regenerate the README's example frames: ``python docs/make_images.py``.

Plays cth-03 and a Federation-Klingon cadet duel with random captains and saves, for each, the
frame with the most direct fire (ties: the later one) as a PNG in ``docs/``.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

import sfb_env
from agents import make_policy
from sfb_env.render import Renderer

DOCS = Path(__file__).resolve().parent

DUEL = {
    "name": "duel-fed-klingon",
    "title": "Cadet duel",
    "impulses_per_turn": 8,
    "map": "A+B",
    "sides": ["federation", "klingon"],
    "rules": {"speed_choice": True},
    "units": [
        {"id": "constellation", "name": "Constellation", "class": "fed-cadet",
         "side": "federation", "hex": "0808", "facing": "C", "speed": 8, "controller": "agent"},
        {"id": "destruction", "name": "Destruction", "class": "klingon-cadet",
         "side": "klingon", "hex": "1809", "facing": "E", "speed": 8, "controller": "agent"},
    ],
    "victory": {"kind": "last_side_standing"},
}


def best_frame(scenario, seed: int, view: str = "units"):
    """Play with random captains; the frame with the most shots (later frames win ties)."""
    env = sfb_env.parallel_env(scenario, max_turns=10)
    policies = {a: make_policy("random") for a in env.possible_agents}
    for k, p in enumerate(policies.values()):
        p.reset(seed=seed + k)
    obs, _ = env.reset(seed=seed)
    renderer = Renderer(env.battle, view=view)
    best, best_score = renderer.frame(), -1
    while env.agents:
        actions = {a: policies[a].act(obs[a], env.action_space(a)) for a in env.agents}
        cursor = len(env.battle.events)
        obs, *_ = env.step(actions)
        frame = renderer.frame()
        new = env.battle.events[cursor:]
        score = sum(e.kind == "Fired" for e in new) + 2 * sum(e.kind == "Launched" for e in new)
        if score >= best_score and not env.battle.done:
            best, best_score = frame, score
    return best


def main() -> None:
    Image.fromarray(best_frame("cth-03", seed=11)).save(DOCS / "frame-cth-03.png", optimize=True)
    Image.fromarray(best_frame(DUEL, seed=5)).save(DOCS / "frame-duel.png", optimize=True)
    print("wrote", DOCS / "frame-cth-03.png", DOCS / "frame-duel.png")


if __name__ == "__main__":
    main()
