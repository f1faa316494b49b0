"""Multi-agent PPO with RLlib (new API stack) over sfb-env; needs the ``rllib`` extra."""
