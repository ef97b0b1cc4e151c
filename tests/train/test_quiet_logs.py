"""Ray's and RLlib's log lines and warnings go to the run folder's ray.log while Ray runs, never to the terminal
where a progress bar is drawn; everything is put back after."""

from __future__ import annotations

import logging
import warnings

from tabletop.train.rllib.logs import RAY_LOG, to_run_folder


def test_ray_log_lines_and_warnings_go_to_the_run_folder_not_the_terminal(tmp_path, capfd):
    ray_logger = logging.getLogger("ray")
    terminal = logging.StreamHandler()  # what Ray installs on import, and again in ray.init
    ray_logger.addHandler(terminal)
    before = ray_logger.handlers[:]  # Ray's own too, when an earlier test imported it
    rllib_before = logging.getLogger("ray.rllib").handlers[:]
    try:
        with to_run_folder(tmp_path / "logs") as settle:
            ray_logger.addHandler(logging.StreamHandler())  # as ray.init does
            settle()
            rllib = logging.getLogger("ray.rllib")  # RLlib installs a stderr handler of its own on import
            rllib.addHandler(logging.StreamHandler())
            settle()
            logging.getLogger("ray.rllib.algorithms").warning("a deprecation note from RLlib")
            logging.getLogger("ray").warning("Started a local Ray instance.")
            warnings.simplefilter("always")  # whatever filters the test run sets
            warnings.warn("a library's own warning", DeprecationWarning, stacklevel=1)
        assert capfd.readouterr().err == ""
        written = (tmp_path / "logs" / RAY_LOG).read_text()
        for line in ("a deprecation note from RLlib", "Started a local Ray instance.", "a library's own warning"):
            assert line in written
        assert ray_logger.handlers == before  # put back
        assert not any(isinstance(h, logging.FileHandler) for h in logging.getLogger("ray.rllib").handlers)
    finally:
        ray_logger.removeHandler(terminal)
        logging.getLogger("ray.rllib").handlers[:] = rllib_before
