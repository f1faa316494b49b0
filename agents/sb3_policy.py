"""SB3 checkpoints as policies: the one place that loads a MaskablePPO ``.zip``.

``SB3Policy(path)`` implements the ``Policy`` protocol (``reset`` / ``act`` with the mask) for a
checkpoint written by ``sfb train`` (or any ``MaskablePPO.save``). The JSON sidecar beside it
(``model.zip`` -> ``model.json``, see ``write_sidecar``) says which scenario and agent it was
trained for and, if it was trained with ``FixedSpaces``, how to pad observations and masks, so
a padded checkpoint flies any ship whose weapons fit.

``agents.base.load_policy(spec)`` sends ``*.zip`` specs here. Nothing is registered here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from sfb_env.env.observation_layout import VIEW_OPTIONS
from sfb_env.env.padding import FixedSpaces

SIDECAR_FORMAT = "sfb-sb3-checkpoint/1"
#: Action guards a checkpoint may fly with (its sidecar's ``guard``, or ``SB3Policy(guard=)``):
#: ``map-edge`` keeps the maneuver off moves that leave the map sooner than need be
#: (``agents.edge_guard``).
GUARDS = ("none", "map-edge")


def sidecar_path(path: str | Path) -> Path:
    """``run/model.zip`` -> ``run/model.json``."""
    path = Path(path)
    return path.with_suffix(".json") if path.suffix == ".zip" else Path(f"{path}.json")


def write_sidecar(path: str | Path, info: dict[str, Any]) -> Path:
    """Write the sidecar of checkpoint ``path`` (``info`` + the format tag)."""
    out = sidecar_path(path)
    out.write_text(json.dumps({"format": SIDECAR_FORMAT, **info}, indent=2) + "\n")
    return out


def read_sidecar(path: str | Path) -> dict[str, Any] | None:
    """The sidecar of checkpoint ``path``, or None if there is none."""
    side = sidecar_path(path)
    return json.loads(side.read_text()) if side.exists() else None


def check_checkpoint(path: str | Path, scenario: str) -> None:
    """Refuse, naming both, a checkpoint without its sidecar or trained for another scenario
    (``ValueError``): the sidecar's ``scenario``, or any of its ``scenarios`` (a multi-scenario
    run); its padding (``fixed_spaces``) is for the ships of those scenarios."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"SB3 checkpoint {str(path)!r} does not exist")
    try:
        sidecar = read_sidecar(path)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"checkpoint {str(path)!r}: unreadable sidecar "
                         f"{str(sidecar_path(path))!r}: {exc}") from None
    if sidecar is None:
        raise ValueError(f"checkpoint {str(path)!r} has no sidecar {str(sidecar_path(path))!r} "
                         f"saying which scenario it flies; cannot check it against {scenario!r}")
    trained = sidecar.get("scenarios") or [sidecar.get("scenario")]
    if scenario not in trained:
        which = (f"scenario {trained[0]!r}" if len(trained) == 1
                 else f"scenarios {', '.join(map(str, trained))}")
        raise ValueError(f"checkpoint {str(path)!r} was trained for {which}, not {scenario!r}")


class SB3Policy:
    """A MaskablePPO checkpoint acting through the ``Policy`` protocol.

    ``deterministic=True`` (default) takes the most likely allowed action; otherwise it samples
    from the policy's distribution under the mask. ``model`` may be given instead of a path to wrap
    a live model (``fixed_spaces`` then as given).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        deterministic: bool = True,
        device: str = "cpu",
        model: Any = None,
        fixed_spaces: FixedSpaces | None = None,
        guard: str | None = None,
    ) -> None:
        if model is None:
            if path is None:
                raise ValueError("SB3Policy needs a checkpoint path or a model")
            path = Path(path)
            if not path.exists() and path.with_suffix(".zip").exists():
                path = path.with_suffix(".zip")
            if not path.exists():
                raise ValueError(f"SB3 checkpoint {str(path)!r} does not exist")
            from sb3_contrib import MaskablePPO

            model = MaskablePPO.load(path, device=device)
            sidecar = read_sidecar(path) or {}
            if fixed_spaces is None and sidecar.get("fixed_spaces"):
                fixed_spaces = FixedSpaces(**sidecar["fixed_spaces"])
            self.sidecar = sidecar
        else:
            self.sidecar = {}
        self.path = None if path is None else str(path)
        self.model = model
        self.fixed_spaces = fixed_spaces
        #: the env's view options it reads (``agents.base.view_options``)
        self.views = tuple(name for name in (fixed_spaces.rule_features if fixed_spaces else ())
                           if name in VIEW_OPTIONS)
        self.deterministic = deterministic
        if guard is None:
            guard = self.sidecar.get("guard", "none")
        if guard not in GUARDS:
            raise ValueError(f"checkpoint {self.path or '<model>'}: unknown guard {guard!r} "
                             f"(the sidecar's 'guard' or guard=); known: {', '.join(GUARDS)}")
        self.guard = guard

    def reset(self, seed: int | None = None) -> None:
        del seed  # sampling uses torch's global generator (seeded by whoever runs the model)

    def act(self, observation: dict[str, np.ndarray], action_space: spaces.Space) -> np.ndarray:
        # an env's space carries the ship's AgentShape (component names, observation counts):
        # the padding reads it; a bare nvec pads weapon positions, maneuver and speed
        agent = getattr(action_space, "agent_shape", None) or np.asarray(action_space.nvec)
        mask = np.asarray(observation["action_mask"])
        action = self._predict(observation["observation"], mask, agent)
        if self.guard == "map-edge":
            action = self._keep_on_map(observation["observation"], mask, agent, action)
        return action

    def _predict(self, observation: np.ndarray, mask: np.ndarray, agent: Any) -> np.ndarray:
        vector = np.asarray(observation, dtype=np.float32)
        if self.fixed_spaces is not None:
            vector = self.fixed_spaces.pad_observation(vector, agent)
            mask = self.fixed_spaces.pad_mask(mask, agent)
        expected = self.model.observation_space.shape
        if vector.shape != expected:
            raise ValueError(f"checkpoint {self.path or '<model>'} expects observations of shape "
                             f"{expected}, got {vector.shape} (another ship or target_slots?)")
        action, _ = self.model.predict(vector, action_masks=mask.astype(bool),
                                       deterministic=self.deterministic)
        action = np.asarray(action, dtype=np.int64).reshape(-1)
        if self.fixed_spaces is not None:
            action = self.fixed_spaces.unpad_action(action, agent)
        return action

    def _keep_on_map(self, observation: np.ndarray, mask: np.ndarray, agent: Any,
                     action: np.ndarray) -> np.ndarray:
        """The map-edge guard (``agents.edge_guard``): a maneuver that leaves the map sooner
        than another allowed one is chosen again among the safest."""
        from agents import edge_guard
        from agents.mask_values import open_values
        from agents.observation_view import own_ship

        names = getattr(agent, "names", None)
        nvec = [int(n) for n in (agent.nvec if names is not None else agent)]
        at = names.index("maneuver") if names is not None else len(nvec) - 2
        start = int(sum(nvec[:at]))
        allowed = open_values(mask, nvec)[at]
        keep = edge_guard.safest(own_ship(np.asarray(observation)), allowed)
        if int(action[at]) in keep:
            return action
        narrowed = np.array(mask, copy=True)
        for v in allowed:
            if v not in keep:
                narrowed[start + v] = 0
        return self._predict(observation, narrowed, agent)
