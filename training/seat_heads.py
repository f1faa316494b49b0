"""``SeatHeadPolicy``: a trained shared policy, frozen, plus a residual action head per seat.

One policy flies every seat of the graduate duels, and five sessions of runs traded seats:
an update that drilled one seat moved the shared weights far enough to lose another
(docs/training.md). A seat head adds to the shared action logits a correction that only its
seat's observations switch on; the shared network and action head are frozen, so every other
seat acts exactly as the checkpoint the heads started from (its logits plus an exact zero).

A seat is the ship's race and its foe's race, read from the identity block that ends the
observation (``FixedSpaces.races``: the own race one-hot, then the foes' multi-hot): in a duel
that names the scenario and the side. Each head is ``W latent + b`` on the shared policy
latent plus, with hidden units, a small Tanh MLP on the observation (``hidden`` one size for
every head, or one per seat, a size being units or a list of layer widths: heads of runs with
other sizes merge exactly); every output layer starts at zero, so the policy with fresh heads
is the checkpoint's policy. A fresh head as wide as the shared layers may start from a copy of
them (``copy_shared_layers``), learning on from the shared features. The value network is not
frozen (it acts on nothing). One network, one checkpoint; ``MaskablePPO.load`` rebuilds it from
the saved keywords (``seat_heads``, ``races``, ``hidden``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch as th
from stable_baselines3.common.torch_layers import MlpExtractor
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from training.config import head_layers, head_sizes
from training.fused_policy import FusedMaskablePolicy

# The seat-head policy's tensors that a policy without heads lacks: the heads, and the seats'
# identity-block positions (buffers).
HEAD_TENSORS = ("action_net.latent.", "action_net.hidden.", "mlp_extractor.own",
                "mlp_extractor.foe")


def seat_indices(seat_heads: Any, races: Any) -> tuple[list[int], list[int]]:
    """The identity-block positions (own, foe) of each ``[race, foe]`` seat; a race missing
    from ``races`` is refused, naming it."""
    own, foe = [], []
    races = list(races)
    for seat in seat_heads:
        if len(seat) != 2:
            raise ValueError(f"seat_heads: a seat is [race, foe race], got {list(seat)!r}")
        for race in seat:
            if race not in races:
                raise ValueError(f"seat_heads: race {race!r} of seat {list(seat)} is not in "
                                 f"the identity block's races {races} (fixed_spaces.races)")
        own.append(races.index(seat[0]))
        foe.append(races.index(seat[1]))
    return own, foe


class SeatExtractor(MlpExtractor):
    """The stock MLP extractor (same layers and parameter names) whose actor latent carries,
    after the shared latent, each seat's switch (1 where the row is that seat) and the
    observation itself, for ``SeatHeads``."""

    def __init__(self, feature_dim: int, net_arch: Any, activation_fn: type[nn.Module],
                 device: Any, own: list[int], foe: list[int], races: int) -> None:
        super().__init__(feature_dim, net_arch, activation_fn, device)
        self.shared_dim = self.latent_dim_pi
        self.feature_dim = feature_dim
        base = feature_dim - 2 * races  # the identity block ends the observation
        self.register_buffer("own", th.tensor([base + i for i in own], dtype=th.long))
        self.register_buffer("foe", th.tensor([base + races + i for i in foe], dtype=th.long))
        self.latent_dim_pi = self.shared_dim + len(own) + feature_dim

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        switch = features[:, self.own] * features[:, self.foe]
        return th.cat([self.policy_net(features), switch, features], dim=1)


class SeatHeads(nn.Module):
    """The shared action head (``base``, the checkpoint's ``action_net``) plus one residual
    head per seat, applied to that seat's rows only."""

    def __init__(self, shared_dim: int, feature_dim: int, seats: int, actions: int,
                 hidden: int | Sequence[int]) -> None:
        super().__init__()
        self.shared_dim, self.seats, self.feature_dim = shared_dim, seats, feature_dim
        self.layers = [head_layers(n) for n in head_sizes(hidden, seats)]
        self.base = nn.Linear(shared_dim, actions)
        self.latent = nn.ModuleList(nn.Linear(shared_dim, actions) for _ in range(seats))
        # a seat without hidden units keeps its place with an empty (parameter-free) module,
        # so head k's tensors are named hidden.k.* whatever the other heads' sizes
        self.hidden = nn.ModuleList(_mlp(feature_dim, widths, actions) for widths in self.layers)
        self.zero_heads()

    def zero_heads(self) -> None:
        """Every head's output layer to zero: the policy is the shared one."""
        for layer in list(self.latent) + [mlp[-1] for mlp in self.hidden if len(mlp)]:
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, latent: th.Tensor) -> th.Tensor:
        # contiguous, as a policy without heads has it: a strided view's row stride (the
        # latent's width) grows with the number of seats, and the matrix product may round
        # differently with it, so a merged checkpoint's shared logits would differ in the last
        # bit from its inputs'
        shared = latent[:, :self.shared_dim].contiguous()
        switch = latent[:, self.shared_dim:self.shared_dim + self.seats]
        features = latent[:, self.shared_dim + self.seats:]
        logits = self.base(shared)
        delta = th.zeros_like(logits)
        for k in range(self.seats):
            rows = th.nonzero(switch[:, k] > 0.5).flatten()
            if rows.numel():
                part = self.latent[k](shared[rows])
                if self.layers[k]:
                    part = part + self.hidden[k](features[rows])
                delta = delta.index_add(0, rows, part)
        return logits + delta


def _mlp(inputs: int, widths: Sequence[int], outputs: int) -> nn.Sequential:
    """Tanh layers of ``widths`` on ``inputs`` then a linear output; none without widths."""
    if not widths:
        return nn.Sequential()
    layers: list[nn.Module] = []
    for width in widths:
        layers += [nn.Linear(inputs, width), nn.Tanh()]
        inputs = width
    return nn.Sequential(*layers, nn.Linear(inputs, outputs))


class SeatHeadPolicy(FusedMaskablePolicy):
    """``FusedMaskablePolicy`` with frozen shared actor layers and a residual head per seat."""

    def __init__(self, *args: Any, seat_heads: Any = (), races: Any = (),
                 hidden: int | Sequence[int] = 64, **kwargs: Any) -> None:
        self.seat_heads = [list(seat) for seat in seat_heads]
        self.races = list(races)
        # refused here, naming the field; stored as given (one size stays one size)
        sizes = head_sizes(hidden, len(self.seat_heads))
        self.hidden = hidden if isinstance(hidden, int) else sizes
        self._own, self._foe = seat_indices(self.seat_heads, self.races)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SeatExtractor(self.features_dim, self.net_arch, self.activation_fn,
                                           self.device, self._own, self._foe, len(self.races))

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        extractor = self.mlp_extractor
        self.action_net = SeatHeads(extractor.shared_dim, extractor.feature_dim,
                                    len(self.seat_heads), self.action_net.out_features,
                                    self.hidden).to(self.device)
        for param in list(extractor.policy_net.parameters()) + list(
                self.action_net.base.parameters()):
            param.requires_grad_(False)
        self.optimizer = self.optimizer_class(  # the new head's parameters, not the stock one's
            [p for p in self.parameters() if p.requires_grad], lr=lr_schedule(1),
            **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(seat_heads=self.seat_heads, races=self.races, hidden=self.hidden)
        return data


def load_shared(policy: SeatHeadPolicy, weights: dict[str, th.Tensor]) -> None:
    """Load a stock (or fused) policy's ``weights`` into ``policy``: the shared layers as they
    are, the stock ``action_net`` as the shared head, the seat heads left at zero. Every
    tensor of ``weights`` must land, and only the seat heads may be left unset."""
    mapped = {("action_net.base." + name[len("action_net."):]
               if name.startswith("action_net.") else name): tensor
              for name, tensor in weights.items()}
    target = policy.state_dict()
    extra = sorted(set(mapped) - set(target))
    if extra:
        raise ValueError(f"tensors {extra} of the checkpoint have no place in the seat-head "
                         "policy")
    missing = sorted(n for n in set(target) - set(mapped) if not n.startswith(HEAD_TENSORS))
    if missing:
        raise ValueError(f"the checkpoint lacks tensors {missing} of the seat-head policy")
    for name, tensor in mapped.items():
        if tensor.shape != target[name].shape:
            raise ValueError(f"{name}: the checkpoint's {tuple(tensor.shape)} does not fit "
                             f"{tuple(target[name].shape)}")
    policy.load_state_dict({**target, **mapped})


def copy_shared_layers(policy: SeatHeadPolicy) -> None:
    """Start each head whose hidden widths are the shared actor layers' (``net_arch``) from a
    copy of those layers, output still zero: the policy acts as before, and the head learns
    from the shared network's features instead of random ones (the config checks that some
    head is that wide). A shared activation other than the heads' Tanh is refused."""
    extractor, heads = policy.mlp_extractor, policy.action_net
    shared = [m for m in extractor.policy_net if isinstance(m, nn.Linear)]
    widths = tuple(m.out_features for m in shared)
    if policy.activation_fn is not nn.Tanh:
        raise ValueError(f"seat heads use Tanh; the shared layers use {policy.activation_fn}")
    for layers, mlp in zip(heads.layers, heads.hidden, strict=True):
        if layers != widths:
            continue
        linear = [m for m in mlp if isinstance(m, nn.Linear)][:-1]
        with th.no_grad():
            for mine, theirs in zip(linear, shared, strict=True):
                mine.weight.copy_(theirs.weight)
                mine.bias.copy_(theirs.bias)
