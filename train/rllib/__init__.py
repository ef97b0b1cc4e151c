"""Training on Ray RLlib (`backend: rllib`): the same games, opponents, evaluation and export as the SB3
path, on a local Ray or an existing cluster. Importing this package loads nothing; `ray` is imported
by the modules that need it (the `rllib` extra)."""

from importlib.util import find_spec


def require() -> None:
    """One clear line instead of an ImportError deep inside, when the `rllib` extra is not installed."""
    if find_spec("ray") is None or find_spec("ray.rllib") is None:
        raise ValueError("backend: rllib needs Ray RLlib, which is not installed: pip install -e '.[rllib]'")
