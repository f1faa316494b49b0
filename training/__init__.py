"""Training AI captains: SB3 MaskablePPO with a curriculum and a self-play league
(``training.sb3_train``, driven by ``sfb train CONFIG.yaml``), a CleanRL-style single-file
example (``training/examples``) and RLlib multi-agent PPO for Ray clusters (``training.rllib``).
Users of the public API only."""

import os

# torch's OpenMP threads (``torch_threads`` > 1) sleep rather than spin while they wait: on a
# machine shared with other processes, threads spinning for a descheduled peer made two-thread
# PPO updates ten times slower (docs/training.md "Throughput"). OpenMP reads this when torch
# loads, so it is set here, before any module of ``training`` imports torch; a value already in
# the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
