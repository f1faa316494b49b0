"""``SB3VecEnv`` moved to ``sfb_env.env.sb3_vec_env`` (``sfb_env.vector_env`` builds it); kept
here for existing imports."""

from sfb_env.env.sb3_vec_env import SB3VecEnv

__all__ = ["SB3VecEnv"]
