"""Average the policy weights of checkpoints of one run (a "model soup", stochastic weight
averaging's offline form).

    python -m training.average_checkpoints OUT.zip IN_1.zip IN_2.zip [...]

Checkpoints a few hundred thousand timesteps apart on a low learning rate lie in one basin:
their mean is a policy too, and it can hold the seats that each of them traded (docs/training.md,
session 31). Every floating-point tensor of ``policy.pth`` is averaged (in float64, then cast
back); everything else (the optimizer state, the saved PPO settings, the timestep count) and
the JSON sidecar come from the last input, the sidecar gaining ``averaged_from``. Inputs of
other networks or spaces are refused, naming the input and the tensor or field.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from agents.sb3_policy import read_sidecar, write_sidecar

POLICY = "policy.pth"
SAME_FIELDS = ("algorithm", "observation_size", "action_nvec", "fixed_spaces", "env_options")


def _policy_state(path: Path) -> dict[str, torch.Tensor]:
    with zipfile.ZipFile(path) as z:
        if POLICY not in z.namelist():
            raise ValueError(f"{path}: no {POLICY} (not a MaskablePPO checkpoint)")
        return torch.load(io.BytesIO(z.read(POLICY)), map_location="cpu", weights_only=True)


def checked_inputs(tool: str, out: str | Path, inputs: Sequence[str | Path]
                   ) -> tuple[Path, list[Path], list[dict[str, Any]]]:
    """``out``, ``inputs`` as paths and the inputs' sidecars, for a tool that writes one
    checkpoint from several (this one, ``training.merge_seat_heads``): two inputs or more, the
    output none of them (it would be truncated while read), each with its sidecar."""
    out, paths = Path(out), [Path(p) for p in inputs]
    if len(paths) < 2:
        raise ValueError(f"{tool} needs two checkpoints or more")
    if any(out.resolve() == p.resolve() for p in paths):
        raise ValueError(f"{out}: the output is one of the inputs; write it elsewhere")
    sides = []
    for path in paths:
        side = read_sidecar(path)
        if side is None:
            raise ValueError(f"{path}: no JSON sidecar beside it (written by sfb train)")
        sides.append(side)
    return out, paths, sides


def average_state(states: Sequence[dict[str, torch.Tensor]],
                  names: Sequence[str]) -> dict[str, torch.Tensor]:
    """The mean of the floating-point tensors of ``states`` (the last state's other tensors
    kept); states with other tensors or shapes are refused, naming ``names``' input."""
    last = states[-1]
    for state, name in zip(states, names, strict=True):
        if state.keys() != last.keys():
            odd = sorted(state.keys() ^ last.keys())
            raise ValueError(f"{name}: policy tensors differ from {names[-1]}'s: {odd}")
        for key, tensor in state.items():
            if tensor.shape != last[key].shape:
                raise ValueError(f"{name}: policy tensor {key} has shape {tuple(tensor.shape)}, "
                                 f"{names[-1]} {tuple(last[key].shape)}")
    out = {}
    for key, tensor in last.items():
        if tensor.is_floating_point():
            total = sum(s[key].to(torch.float64) for s in states)
            out[key] = (total / len(states)).to(tensor.dtype)
        else:
            out[key] = tensor
    return out


def average_checkpoints(out: str | Path, inputs: Sequence[str | Path]) -> Path:
    """Write ``out`` (+ sidecar): the last input with its policy weights the inputs' mean."""
    out, inputs, sides = checked_inputs("average_checkpoints", out, inputs)
    for side, path in zip(sides, inputs, strict=True):
        for key in SAME_FIELDS:
            if side.get(key) != sides[-1].get(key):
                raise ValueError(f"{path}: sidecar field {key!r} differs from {inputs[-1]}'s")
    state = average_state([_policy_state(p) for p in inputs], [str(p) for p in inputs])
    buffer = io.BytesIO()
    torch.save(state, buffer)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(inputs[-1]) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info, buffer.getvalue() if info.filename == POLICY
                         else src.read(info.filename))
    side = {k: v for k, v in sides[-1].items() if k != "format"}
    side["averaged_from"] = [
        {"path": str(p), "timesteps": s.get("timesteps"),
         "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p, s in zip(inputs, sides, strict=True)]
    write_sidecar(out, side)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.average_checkpoints",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="the averaged checkpoint .zip to write")
    parser.add_argument("inputs", nargs="+", help="checkpoints of one network and spaces")
    args = parser.parse_args(argv)
    try:
        path = average_checkpoints(args.out, args.inputs)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {path} (+ sidecar): the mean of {len(args.inputs)} checkpoints' policy weights")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
