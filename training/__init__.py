"""Training AI captains: SB3 MaskablePPO with a curriculum and a self-play league
(``training.sb3_train``, driven by ``sfb train CONFIG.yaml``), a CleanRL-style single-file
example (``training/examples``) and RLlib multi-agent PPO for Ray clusters (``training.rllib``).
Users of the public API only."""
