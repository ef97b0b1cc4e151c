"""Ray's and RLlib's own log lines and warnings go to the run folder while Ray runs, never into a progress display.

Ray logs to stderr through its loggers (`ray`, and `ray.rllib`, `ray.data`, ... with handlers of their own: its
start, its workers, RLlib's notes on its API) and through `warnings`; a benchmark's or a training run's bar shares
that stream. `to_run_folder` sends both to `<folder>/ray.log` while Ray runs and puts everything back after.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

RAY_LOG = "ray.log"


@contextmanager
def to_run_folder(folder: Path | None) -> Iterator[Callable[[], None]]:
    """While open: Ray's loggers write to `folder/ray.log` only, and warnings go there too. Call what it yields
    after `ray.init` and the first RLlib import, which install stderr handlers of their own. None: nothing changes."""
    if folder is None:
        yield lambda: None
        return
    folder.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(folder / RAY_LOG)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    kept: dict[str, tuple[list[logging.Handler], bool]] = {}

    def settle() -> None:
        for logger in _ray_loggers():
            if logger.name == "ray" or logger.handlers or not logger.propagate:
                kept.setdefault(logger.name, (logger.handlers[:], logger.propagate))
                logger.handlers[:] = [handler]
                logger.propagate = False

    def write_warning(message, category, filename, lineno, file=None, line=None) -> None:
        handler.stream.write(warnings.formatwarning(message, category, filename, lineno, line))
        handler.flush()

    try:
        with warnings.catch_warnings():
            warnings.showwarning = write_warning
            settle()
            yield settle
    finally:
        for name, (handlers, propagate) in kept.items():
            logger = logging.getLogger(name)
            logger.handlers[:] = handlers
            logger.propagate = propagate
        handler.close()


def _ray_loggers() -> list[logging.Logger]:
    """`ray` and every logger under it made so far."""
    names = [n for n in list(logging.Logger.manager.loggerDict) if n == "ray" or n.startswith("ray.")]
    return [logging.getLogger(n) for n in ["ray", *names]]
