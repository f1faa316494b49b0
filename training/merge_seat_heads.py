"""Merge the seat heads of checkpoints trained on one frozen shared policy into one checkpoint.

    python -m training.merge_seat_heads OUT.zip IN_1.zip IN_2.zip [...] [--drop RACE:FOE ...]

Seat-head runs (``ppo.seat_heads``, ``training.seat_heads``) leave the shared network as their
``--init`` checkpoint had it, so runs for different seats can go on side by side and be joined
after: the output has the inputs' shared layers (checked equal, tensor by tensor), every input's
heads under their seats (in the inputs' order) and the first input's value network, PPO settings
and sidecar (its ``scenarios`` the inputs' union, plus ``seat_heads_from``: each input's path,
seats, timesteps, training reward and sha256). ``--drop RACE:FOE`` leaves a seat's head out
(that seat then flies as the shared policy, unless another input has a head for it);
``RACE:FOE@K`` only the K-th input's (from 1), to take each seat's head from the input that
trained it best. The optimizer starts afresh. Heads keep their own hidden sizes (the output's
``hidden`` is one per seat where the inputs' differ), and heads trained on other rewards merge
(the reward changes nothing a checkpoint observes or orders). A seat in two inputs, another
shared network, other races or other env options are refused, naming the input.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from agents.sb3_policy import write_sidecar
from training.average_checkpoints import SAME_FIELDS, checked_inputs
from training.config import HeadSize, head_sizes
from training.seat_heads import HEAD_TENSORS

SHARED = ("mlp_extractor.policy_net.", "action_net.base.", "features_extractor.",
          "pi_features_extractor.", "vf_features_extractor.")


def _acting(key: str, value: Any) -> Any:
    """A sidecar field as far as it bears on how the checkpoint observes and acts: the reward
    a head was trained on does not (``env_options.reward``; each input's is kept in
    ``seat_heads_from``)."""
    if key == "env_options" and isinstance(value, dict):
        return {k: v for k, v in value.items() if k != "reward"}
    return value


def _load(path: Path) -> Any:
    from sb3_contrib import MaskablePPO

    from training.seat_heads import SeatHeadPolicy

    model = MaskablePPO.load(path, device="cpu")
    if not isinstance(model.policy, SeatHeadPolicy):
        raise ValueError(f"{path}: not a seat-head checkpoint (its policy is "
                         f"{type(model.policy).__name__})")
    return model


def merge_seat_heads(out: str | Path, inputs: Sequence[str | Path],
                     drop: Sequence[Sequence[str]] = (),
                     drop_from: Sequence[tuple[int, Sequence[str]]] = ()) -> Path:
    """Write ``out`` (+ sidecar): the inputs' seat heads on their common shared policy, but
    those of the seats in ``drop`` and, per ``(input index, seat)`` in ``drop_from``, that
    input's head of that seat."""
    drop = [list(seat) for seat in drop]
    left_out = [(int(k), list(seat)) for k, seat in drop_from]
    out, inputs, sides = checked_inputs("merge_seat_heads", out, inputs)
    models = [_load(p) for p in inputs]
    first, base = models[0], models[0].policy
    states = [m.policy.state_dict() for m in models]
    for k, seat in left_out:
        if not 0 <= k < len(models) or seat not in models[k].policy.seat_heads:
            raise ValueError(f"--drop {':'.join(seat)}@{k + 1}: input {k + 1} has no head for "
                             "that seat")
    kept = [[list(h) for h in m.policy.seat_heads
             if list(h) not in drop and (k, list(h)) not in left_out]
            for k, m in enumerate(models)]
    seats: list[list[str]] = []
    sizes: list[HeadSize] = []
    for path, side, model, state, heads in zip(inputs, sides, models, states, kept,
                                               strict=True):
        for key in SAME_FIELDS:
            if _acting(key, side.get(key)) != _acting(key, sides[0].get(key)):
                raise ValueError(f"{path}: sidecar field {key!r} differs from {inputs[0]}'s")
        policy = model.policy
        if policy.races != base.races:
            raise ValueError(f"{path}: races {policy.races}, {inputs[0]} has {base.races}")
        for name, tensor in state.items():
            if name.startswith(SHARED) and not torch.equal(tensor, states[0][name]):
                raise ValueError(f"{path}: shared tensor {name} differs from {inputs[0]}'s "
                                 "(seat heads of another shared policy)")
        own = head_sizes(policy.hidden, len(policy.seat_heads))
        for seat in heads:
            if seat in seats:
                raise ValueError(f"{path}: seat {seat} has a head in an earlier input too")
            seats.append(seat)
            sizes.append(own[policy.seat_heads.index(seat)])
    owned = [list(m.policy.seat_heads) for m in models]  # before the first is rebuilt
    unknown = [seat for seat in drop if not any(seat in heads for heads in owned)]
    if unknown:
        raise ValueError(f"--drop {unknown[0]}: no input has a head for that seat")
    one = isinstance(sizes[0], int) and all(n == sizes[0] for n in sizes) if sizes else False
    hidden = sizes[0] if one else sizes or base.hidden  # one size of units: an int
    first.policy_kwargs = {**first.policy_kwargs, "seat_heads": seats, "hidden": hidden}
    first._setup_model()
    merged = first.policy.state_dict()
    k = 0
    for heads, keep, state in zip(owned, kept, states, strict=True):
        for i in range(len(heads)):
            if heads[i] not in keep:
                continue
            for name, tensor in state.items():
                for group in ("action_net.latent.", "action_net.hidden."):
                    if name.startswith(f"{group}{i}."):
                        merged[f"{group}{k}.{name[len(group) + len(str(i)) + 1:]}"] = tensor
            k += 1
    for name, tensor in states[0].items():
        if not name.startswith(HEAD_TENSORS):
            merged[name] = tensor
    first.policy.load_state_dict(merged)
    out.parent.mkdir(parents=True, exist_ok=True)
    first.save(out)
    side = {k: v for k, v in sides[0].items() if k != "format"}
    side["scenarios"] = list(dict.fromkeys(s for x in sides for s in x.get("scenarios", [])))
    side["seat_heads_from"] = [
        {"path": str(p), "seats": keep, "timesteps": s.get("timesteps"),
         "reward": (s.get("env_options") or {}).get("reward"),
         "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p, keep, s in zip(inputs, kept, sides, strict=True)]
    write_sidecar(out, side)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.merge_seat_heads",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="the merged checkpoint .zip to write")
    parser.add_argument("inputs", nargs="+", help="seat-head checkpoints of one shared policy")
    parser.add_argument("--drop", nargs="+", default=[], metavar="RACE:FOE[@K]",
                        help="seats whose heads to leave out (e.g. lyran:orion), or only the "
                             "K-th input's (lyran:orion@2)")
    args = parser.parse_args(argv)
    drop, drop_from = [], []
    try:
        for item in args.drop:
            seat, _, k = item.partition("@")
            if len(seat.split(":")) != 2 or (k and not k.isdigit()):
                raise ValueError(f"--drop {item}: a seat is RACE:FOE, or RACE:FOE@K")
            if k:
                drop_from.append((int(k) - 1, seat.split(":")))
            else:
                drop.append(seat.split(":"))
        path = merge_seat_heads(args.out, args.inputs, drop, drop_from)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {path} (+ sidecar): the seat heads of {len(args.inputs)} checkpoints")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
