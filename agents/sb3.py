"""Kept for old imports: the SB3 checkpoint policy lives in ``agents.sb3_policy`` (the one
place that loads ``MaskablePPO`` checkpoints, their JSON sidecars and padded spaces)."""

from agents.sb3_policy import SB3Policy

MaskablePPOPolicy = SB3Policy

__all__ = ["MaskablePPOPolicy", "SB3Policy"]
