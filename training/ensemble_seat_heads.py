"""Fold several checkpoints' heads for one seat into a single wider head: an exact ensemble.

    python -m training.ensemble_seat_heads OUT.zip BASE.zip \
        --seat RACE:FOE IN_1.zip IN_2.zip [...] [--seat RACE:FOE ...]

A seat's logits are the frozen shared head's plus its seat head's (``training.seat_heads``):
``base(shared) + latent(shared) + hidden(features)``, ``hidden`` one Tanh layer and a linear
output. The mean of k such heads over one shared policy is again such a head: ``latent`` the
mean of the members' (linear), ``hidden`` their hidden units side by side (sum of the widths)
with each member's output weights over k and the mean output bias. So OUT flies that seat with
the mean of the members' logits, to rounding, and nothing else changes. Under the action mask
the mean of logits gives the normalised product of the members' distributions (the mean of
their masked log-probabilities differs from it by a constant per component), and its mode is
the action the members' summed log-probabilities pick.

OUT is BASE (its shared policy, value network, other heads, PPO settings and sidecar, which
gains ``ensembles``: each seat's members with path, timesteps and sha256) with each ``--seat``'s
head replaced. A member may read fewer view blocks than BASE (an older checkpoint, before
``enemy_fire``): its inputs are placed with ``FixedSpaces.columns_of`` and the new ones get
zero weight, as ``sfb train --init`` widens it. Members of another shared policy (checked
tensor by tensor, after widening), without a head for the seat, or with a head deeper than one
hidden layer are refused, naming the member and the seat. The result trains on like any
seat-head checkpoint (the wider head is one head).
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
from sfb_env.env.padding import FixedSpaces
from training.average_checkpoints import checked_inputs
from training.config import head_layers, head_sizes
from training.merge_seat_heads import SHARED, _load
from training.sb3_train import _widened


def _columns(base_side: dict[str, Any], side: dict[str, Any], path: Path) -> Any:
    """Where the member's observation values sit in BASE's vector (None: the same vector)."""
    ours, theirs = base_side.get("fixed_spaces"), side.get("fixed_spaces")
    if not ours or not theirs:
        raise ValueError(f"{path}: no fixed_spaces in the sidecar (not a padded checkpoint)")
    if theirs == ours:
        return None
    return FixedSpaces(**ours).columns_of(FixedSpaces(**theirs))


def _member_head(path: Path, model: Any, seat: list[str], base: Any,
                 columns: Any) -> dict[str, torch.Tensor]:
    """The member's head for ``seat`` on BASE's inputs (``latent.*``, ``hidden.0.*`` and
    ``hidden.2.*`` keys), after checking its shared policy is BASE's."""
    policy = model.policy
    if seat not in policy.seat_heads:
        raise ValueError(f"{path}: no head for seat {':'.join(seat)}")
    if policy.races != base.policy.races:
        raise ValueError(f"{path}: races {policy.races}, the base has {base.policy.races}")
    state, target = policy.state_dict(), base.policy.state_dict()
    for name, tensor in state.items():
        if name.startswith(SHARED):
            mine = _widened(name, tensor, target[name].shape, columns) if columns is not None \
                else tensor
            if not torch.equal(mine, target[name]):  # (False for another shape too)
                raise ValueError(f"{path}: shared tensor {name} differs from the base's (a head "
                                 "of another shared policy)")
    k = policy.seat_heads.index(seat)
    layers = head_layers(head_sizes(policy.hidden, len(policy.seat_heads))[k])
    if len(layers) > 1:
        raise ValueError(f"{path}: the head of seat {':'.join(seat)} has {len(layers)} hidden "
                         "layers; only one-layer heads fold into one (training.seat_heads)")
    head = {"latent.weight": state[f"action_net.latent.{k}.weight"],
            "latent.bias": state[f"action_net.latent.{k}.bias"]}
    if layers:
        name = f"action_net.hidden.{k}.0.weight"
        first, width = state[name], base.policy.mlp_extractor.feature_dim
        head["hidden.0.weight"] = (_widened(f"{path}: {name}", first, (first.shape[0], width),
                                            columns) if columns is not None else first)
        head["hidden.0.bias"] = state[f"action_net.hidden.{k}.0.bias"]
        head["hidden.2.weight"] = state[f"action_net.hidden.{k}.2.weight"]
        head["hidden.2.bias"] = state[f"action_net.hidden.{k}.2.bias"]
    return head


def fold(heads: Sequence[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """One head whose output is the mean of ``heads``' outputs (float64 sums, cast back)."""
    k = len(heads)

    def mean(key: str, among: Sequence[dict[str, torch.Tensor]] = heads) -> torch.Tensor:
        return (sum(h[key].to(torch.float64) for h in among) / k).to(among[0][key].dtype)

    out = {"latent.weight": mean("latent.weight"), "latent.bias": mean("latent.bias")}
    deep = [h for h in heads if "hidden.0.weight" in h]
    if deep:
        out["hidden.0.weight"] = torch.cat([h["hidden.0.weight"] for h in deep])
        out["hidden.0.bias"] = torch.cat([h["hidden.0.bias"] for h in deep])
        out["hidden.2.weight"] = torch.cat([h["hidden.2.weight"] / k for h in deep], dim=1)
        out["hidden.2.bias"] = mean("hidden.2.bias", deep)  # a member without units adds 0
    return out


def ensemble_seat_heads(out: str | Path, base_path: str | Path,
                        seats: Sequence[tuple[Sequence[str], Sequence[str | Path]]]) -> Path:
    """Write ``out`` (+ sidecar): ``base_path`` with each seat's head the fold of its
    members' heads for that seat."""
    out, inputs, sides = checked_inputs("ensemble_seat_heads", out,
                                        [base_path, *(p for _, members in seats for p in members)])
    base_path, base_side = inputs[0], sides[0]
    sidecar_of = dict(zip(inputs, sides, strict=True))
    base = _load(base_path)
    models = {base_path: base}  # each input loaded once (a member may serve several seats)
    sizes = head_sizes(base.policy.hidden, len(base.policy.seat_heads))
    folded: dict[int, dict[str, torch.Tensor]] = {}
    record = []
    for seat, members in seats:
        seat = list(seat)
        if seat not in base.policy.seat_heads:
            raise ValueError(f"--seat {':'.join(seat)}: the base {base_path} has no head for it")
        if len(members) < 2:
            raise ValueError(f"--seat {':'.join(seat)}: an ensemble needs two members or more")
        k = base.policy.seat_heads.index(seat)
        if k in folded:
            raise ValueError(f"--seat {':'.join(seat)} given twice")
        heads, info = [], []
        for member in map(Path, members):
            side = sidecar_of[member]
            if member not in models:
                models[member] = _load(member)
            heads.append(_member_head(member, models[member], seat, base,
                                      _columns(base_side, side, member)))
            info.append({"path": str(member), "timesteps": side.get("timesteps"),
                         "sha256": hashlib.sha256(member.read_bytes()).hexdigest()})
        folded[k] = fold(heads)
        sizes[k] = int(folded[k]["hidden.0.weight"].shape[0]) if "hidden.0.weight" in folded[k] \
            else 0
        record.append({"seat": seat, "members": info})
    merged = base.policy.state_dict()  # BASE's tensors, each folded seat's head replaced
    base.policy_kwargs = {**base.policy_kwargs, "hidden": sizes}
    base._setup_model()
    for k, head in folded.items():
        for name in [n for n in merged if n.startswith(f"action_net.hidden.{k}.")]:
            del merged[name]
        for key, tensor in head.items():
            group, _, rest = key.partition(".")
            merged[f"action_net.{group}.{k}.{rest}"] = tensor
    base.policy.load_state_dict(merged)
    out.parent.mkdir(parents=True, exist_ok=True)
    base.save(out)
    side = {key: v for key, v in base_side.items() if key != "format"}
    side["ensembles"] = [*side.get("ensembles", []), *record]
    write_sidecar(out, side)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.ensemble_seat_heads",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="the checkpoint .zip to write")
    parser.add_argument("base", help="the seat-head checkpoint whose other parts OUT keeps")
    parser.add_argument("--seat", nargs="+", action="append", required=True,
                        metavar="RACE:FOE IN.zip",
                        help="a seat, then the checkpoints whose heads for it to fold")
    args = parser.parse_args(argv)
    try:
        seats = []
        for item in args.seat:
            seat = item[0].split(":")
            if len(seat) != 2:
                raise ValueError(f"--seat {item[0]}: a seat is RACE:FOE")
            seats.append((seat, item[1:]))
        path = ensemble_seat_heads(args.out, args.base, seats)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {path} (+ sidecar): {len(seats)} seat head(s) folded from "
          f"{sum(len(m) for _, m in seats)} members")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
