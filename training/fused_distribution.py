"""One masked MultiDiscrete distribution over a single logits tensor (a fused stand-in for
sb3-contrib's ``MaskableMultiCategoricalDistribution``).

sb3-contrib builds one masked torch ``Categorical`` per action component (14 for a duel ship),
and at small batches those objects cost ten times the network. Here the flat
``(batch, sum(nvec))`` logits are masked once (``-1e8`` where the mask is false, as sb3-contrib
does) and the components are handled in *runs*: consecutive components of one size ``n`` are a
``(batch, count, n)`` view of the flat tensor (a duel ship's ``[9] * 12 + [4, 32]`` is three
runs), so every operation is one kernel per run, over no padding and no copy: one
``log_softmax`` for ``log_prob`` (a ``gather``), the mode (``argmax``) and the entropy, one
``softmax`` for sampling (inverse CDF; probabilities exactly 0 at masked values), all summed
over components. The entropy counts unmasked values only (sb3-contrib's convention: a masked
value has no uncertainty, so a component whose every value is masked adds 0). Nothing takes
``exp`` of a huge negative number: on CPUs that is ten times slower than the network's layers.

Masks are sb3-contrib's: a flat bool array of ``sum(nvec)`` entries per row, true = allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, TypeVar

import torch as th
from sb3_contrib.common.maskable.distributions import MaskableDistribution, MaybeMasks
from torch import nn

MASKED = -1e8  # a masked value's logit (sb3-contrib's MaskableCategorical uses the same)
EXP_FLOOR = -80.0  # exp below this underflows towards denormals, a slow path on CPUs

SelfFused = TypeVar("SelfFused", bound="FusedMaskableMultiCategorical")


class Run(NamedTuple):
    """Consecutive components of one size: flat columns ``start: start + count * n``,
    components ``first: first + count``."""

    start: int
    first: int
    count: int
    n: int


def runs_of(action_dims: Sequence[int]) -> list[Run]:
    """``action_dims`` cut into runs of equal consecutive sizes."""
    runs: list[Run] = []
    start = 0
    for j, n in enumerate(action_dims):
        if runs and runs[-1].n == n:
            runs[-1] = runs[-1]._replace(count=runs[-1].count + 1)
        else:
            runs.append(Run(start, j, 1, n))
        start += n
    return runs


class FusedMaskableMultiCategorical(MaskableDistribution):
    """Masked MultiDiscrete distribution over one flat logits tensor."""

    def __init__(self, action_dims: Sequence[int]) -> None:
        super().__init__()
        self.action_dims = [int(n) for n in action_dims]
        self.k = len(self.action_dims)
        self.total = sum(self.action_dims)
        self.runs = runs_of(self.action_dims)
        self._logits: th.Tensor | None = None  # (batch, total), as the action net gave them
        self._masks: th.Tensor | None = None  # (batch, total) bool, or None
        self._forget()

    def proba_distribution_net(self, latent_dim: int) -> nn.Module:
        """The action net: the flat logits of every component (sb3-contrib's layer)."""
        return nn.Linear(latent_dim, self.total)

    def proba_distribution(self: SelfFused, action_logits: th.Tensor) -> SelfFused:
        self._logits = action_logits.view(-1, self.total)
        self._masks = None
        self._forget()
        return self

    def apply_masking(self, masks: MaybeMasks) -> None:
        """Mask values out (``masks`` true = allowed); ``None`` removes the masking."""
        if self._logits is None:
            raise RuntimeError("apply_masking before proba_distribution")
        if masks is None:
            self._masks = None
        else:
            self._masks = th.as_tensor(masks, dtype=th.bool,
                                       device=self._logits.device).view(-1, self.total)
        self._forget()

    def _forget(self) -> None:
        """Drop what was computed from the previous logits or masks."""
        self._runs: list[th.Tensor] | None = None  # masked logits per run, (batch, count, n)
        self._log_probs: list[th.Tensor] | None = None
        self._probs: list[th.Tensor] | None = None

    # ------------------------------------------------------------------ per-run views

    def _split(self, flat: th.Tensor) -> list[th.Tensor]:
        """``(batch, total)`` -> one ``(batch, count, n)`` view per run."""
        return [flat[:, r.start:r.start + r.count * r.n].view(-1, r.count, r.n)
                for r in self.runs]

    def _masked_runs(self) -> list[th.Tensor]:
        """The masked logits, masked once, as per-run views."""
        if self._runs is None:
            if self._logits is None:
                raise RuntimeError("the distribution has no parameters (proba_distribution)")
            logits = self._logits
            if self._masks is not None:
                logits = logits.masked_fill(~self._masks, MASKED)
            self._runs = self._split(logits)
        return self._runs

    @property
    def log_probs(self) -> list[th.Tensor]:
        """Per-run log-probabilities, ``(batch, count, n)`` each (masked: about -1e8)."""
        if self._log_probs is None:
            self._log_probs = [th.log_softmax(x, dim=2) for x in self._masked_runs()]
        return self._log_probs

    @property
    def probs(self) -> list[th.Tensor]:
        """Per-run probabilities, exactly 0 at masked values (a softmax, not
        ``exp(log_probs)``: exp of huge negatives takes a slow path on CPUs)."""
        if self._probs is None:
            self._probs = [th.softmax(x, dim=2) for x in self._masked_runs()]
        return self._probs

    # ------------------------------------------------------------------ Distribution API

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        actions = actions.view(-1, self.k).long()
        total = None
        for r, log_p in zip(self.runs, self.log_probs, strict=True):
            index = actions[:, r.first:r.first + r.count].unsqueeze(2)
            part = log_p.gather(2, index).sum(dim=(1, 2))
            total = part if total is None else total + part
        assert total is not None
        return total

    def entropy(self) -> th.Tensor:
        """Summed over components, over unmasked values only: their probabilities are
        ``exp(log_probs)`` (clamped at ``EXP_FLOOR``, where exp is still fast and its
        gradient is nil anyway) times the mask, so masked values add exactly 0."""
        masks = None
        if self._masks is not None:
            masks = self._split(self._masks.to(self.log_probs[0].dtype))
        total = None
        for i, log_p in enumerate(self.log_probs):
            p = log_p.clamp(min=EXP_FLOOR).exp()
            if masks is not None:
                p = p * masks[i]
            part = -(p * log_p).sum(dim=(1, 2))
            total = part if total is None else total + part
        assert total is not None
        return total

    def sample(self) -> th.Tensor:
        """Every component at once by inverse CDF: the first value whose cumulative
        probability exceeds ``u``, uniform in ``[0, total)`` (``total``: the last cumulative
        value; ``u`` kept strictly below it). A value of probability 0 (a masked one) never
        comes out, its cumulative value being its predecessor's (torch's CPU cumsum adds in
        order, in double); should a device's scan round otherwise, such a pick becomes the
        component's mode. Faster here than ``multinomial`` or Gumbel-max (one uniform per
        component, not per value)."""
        picks = []
        for p in self.probs:
            p = p.detach()
            cdf = p.cumsum(dim=2)
            total = cdf[:, :, -1:]
            u = th.rand(total.shape, dtype=cdf.dtype, device=cdf.device) * total
            u = th.minimum(u, th.nextafter(total, th.zeros_like(total)))
            pick = (cdf <= u).sum(dim=2, keepdim=True).clamp_(max=p.shape[2] - 1)
            possible = p.gather(2, pick) > 0
            picks.append(th.where(possible, pick, p.argmax(dim=2, keepdim=True)).squeeze(2))
        return th.cat(picks, dim=1)

    def mode(self) -> th.Tensor:
        return th.cat([log_p.argmax(dim=2) for log_p in self.log_probs], dim=1)

    def actions_from_params(self, action_logits: th.Tensor,
                            deterministic: bool = False) -> th.Tensor:
        self.proba_distribution(action_logits)
        return self.get_actions(deterministic=deterministic)

    def log_prob_from_params(self, action_logits: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        actions = self.actions_from_params(action_logits)
        return actions, self.log_prob(actions)
