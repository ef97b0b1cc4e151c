"""Training on Ray RLlib (`backend: rllib`, train/rllib/): config, env adapter, masked module, and one short
run per game on a local Ray, exported to ONNX and played.

The config tests run everywhere; the rest need the `rllib` extra (CI installs it) and are skipped with that
reason without it. Ray work runs under a hard timeout: an RLlib driver can wait forever on a learner that
died (seen with APPO), and a hang must fail the suite, not stall it.
"""

from __future__ import annotations

import csv
import faulthandler
import json
import os
import signal
from contextlib import contextmanager

import numpy as np
import pytest

from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import ConfigError, parse_config

pytestmark = pytest.mark.slow  # every test starts a local Ray
RLLIB_MISSING = "the rllib extra is not installed (pip install -e '.[rllib]'); CI installs it"
RAY_TEST_SECONDS = 240  # the Ray test takes well under a minute on 2 idle cores; this is the hang guard


def rllib_config(env_id: str, **overrides) -> dict:
    """A tiny `backend: rllib` config: one iteration of 128 env steps, 2 evaluation games per opponent."""
    config = {
        "env_id": env_id,
        "total_steps": 1,
        "backend": "rllib",
        "network": {"hidden": [32]},
        "ppo": {"batch_size": 64, "n_epochs": 1},
        "opponents": {"weights": {"self": 0.4, "heuristics": 0.4, "random": 0.2}, "max_snapshots": 2},
        "rllib": {"num_envs_per_env_runner": 2, "train_batch_size": 128},
        "evaluation": {"every": 10**6, "games": 1, "final_games": 2},
        "checkpoint": {"every": 10**6, "keep": 1},
    }
    return {**config, **overrides}


# --- config: strict like every other key (no Ray needed) -------------------------------------------------
RLLIB = {"backend": "rllib"}


@pytest.mark.parametrize(
    "keys, message",
    [
        ({"backend": "torch"}, "backend='torch' is not allowed; allowed: 'sb3', 'rllib'"),
        ({"backend": "sb3", "rllib": {"algorithm": "appo"}}, "the rllib: section is read by backend: rllib only"),
        ({"backend": "sb3", "algorithm": "appo"}, "the rllib: section is read by backend: rllib only"),  # a flat key
        ({**RLLIB, "rllib": {"algorithm": "dqn"}}, "rllib: algorithm='dqn' is not allowed"),
        ({"ray_address": "auto"}, "the rllib: section is read by backend: rllib only"),
        ({**RLLIB, "sb3": {"vec_env": {"num_envs": 4}}}, "the sb3: section is read by backend: sb3 only"),
        ({**RLLIB, "vec_env": {"num_envs": 4}}, "the sb3: section is read by backend: sb3 only"),  # a flat key
        ({**RLLIB, "ppo": {"n_steps": 64}}, "the sb3: section is read by backend: sb3 only"),  # a flat key
        ({**RLLIB, "network": {"kind": "circles"}}, "backend: rllib trains network.kind 'mlp' only"),
        (
            {**RLLIB, "rllib": {"num_env_runner": 2}},
            "unknown key 'rllib.num_env_runner'; allowed keys here: algorithm, ray_address, num_env_runners",
        ),
        (
            {**RLLIB, "rllib": {"num_env_runners": -1}},
            "rllib: num_env_runners=-1 is not allowed; allowed: a whole number of at least 0",
        ),
        ({**RLLIB, "rllib": {"object_store_mb": 10}}, "rllib: object_store_mb=10 is not allowed"),
        (
            {**RLLIB, "rllib": {"train_batch_size": 32}, "ppo": {"batch_size": 64}},
            r"ppo.batch_size=64 \(the minibatch\) exceeds rllib.train_batch_size=32",
        ),
        ({**RLLIB, "rllib": {"ray_address": ""}}, "rllib: ray_address='' is not allowed"),
    ],
)
def test_rllib_config_keys_are_checked(keys, message):
    with pytest.raises(ConfigError, match=message):
        parse_config({"env_id": "cromlet_v0", "total_steps": 10, **keys})


def test_an_rllib_config_fills_its_section_and_keeps_sb3_defaults_out_of_the_way():
    config = parse_config(
        {
            "env_id": "cromlet_v0",
            "total_steps": 10,
            "backend": "rllib",
            "rllib": {"algorithm": "appo", "ray_address": "auto"},
        }
    )
    assert (config.backend, config.rllib.algorithm, config.rllib.ray_address, config.sb3) == (
        "rllib",
        "appo",
        "auto",
        None,
    )
    assert config.rllib.num_env_runners == 0 and config.rllib.num_cpus == 2
    old = parse_config(
        {"env_id": "cromlet_v0", "total_steps": 10, "backend": "rllib", "algorithm": "appo", "ray_address": "auto"}
    )
    assert old == config  # the layout before backend sections
    sb3 = parse_config({"env_id": "cromlet_v0", "total_steps": 10, "algorithm": "ppo", "ray_address": None})
    assert (sb3.backend, sb3.rllib, sb3.sb3.n_steps, sb3.sb3.vec_env.kind) == ("sb3", None, 512, "batched")


def test_a_missing_extra_is_one_clear_error(monkeypatch):
    from tabletop.train import rllib

    monkeypatch.setattr(rllib, "find_spec", lambda name: None)
    with pytest.raises(
        ValueError, match=r"backend: rllib needs Ray RLlib, which is not installed: pip install -e '\.\[rllib\]'"
    ):
        rllib.require()


# --- the env adapter and the masked module (Ray imported, not started) ------------------------------------
@pytest.fixture(scope="module")
def ray_lib():
    return pytest.importorskip("ray.rllib", reason=RLLIB_MISSING)


def _adapter(env_id: str, weights: dict, learner_seats: str = "one", snapshots: int = 2, **kwargs):
    from tabletop.train.rllib.env import TabletopMultiAgentEnv

    return TabletopMultiAgentEnv(
        {
            "env_id": env_id,
            "env_kwargs": kwargs,
            "learner_seats": learner_seats,
            "weights": weights,
            "snapshots": snapshots,
            "seed": 3,
        }
    )


def _play_out(env, rng) -> tuple[dict, dict, int]:
    """Random legal moves to the end: (rewards summed per agent, the final infos, moves made); checks every mask."""
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    totals: dict[str, float] = {}
    moves = 0
    while True:
        assert len(obs) == 1, "only the seat to move observes"
        ((agent, seen),) = obs.items()
        seat = int(agent.rpartition("@")[2])
        assert env.aec.game_state.current_player == seat
        assert seen["observations"].dtype == np.float32 and seen["action_mask"].dtype == np.float32
        assert np.array_equal(seen["action_mask"], env.aec.game_state.legal_action_mask().astype(np.float32))
        action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        moves += 1
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terminated["__all__"]:
            assert not truncated["__all__"]
            assert set(obs) == set(rewards) == {a for a in terminated if a != "__all__"}
            return totals, infos, moves


@pytest.mark.parametrize("env_id", ["cromlet_v0", "chromino_v1", "kings_cribbage_v0"])
def test_policy_seats_get_their_whole_reward_and_fixed_players_move_inside(ray_lib, env_id):
    env = _adapter(env_id, {"self": 0.5, "random": 0.5})
    rng = np.random.default_rng(0)
    for _ in range(2):
        totals, infos, _ = _play_out(env, rng)
        returns = env.aec.game_state.returns()
        for agent, total in totals.items():
            assert total == pytest.approx(returns[int(agent.rpartition("@")[2])]), (
                "win/loss reaches every policy seat once"
            )
        (learner,) = [a for a in infos]
        assert learner.startswith("learner@")
        assert infos[learner]["outcome"] == np.sign(returns[int(learner.rpartition("@")[2])])
        assert set(env.seating.fixed.values()) <= {"random"}


def test_the_table_draws_snapshots_and_heuristics_and_rotates_the_learner(ray_lib):
    env = _adapter("cromlet_v0", {"self": 0.5, "greedy": 0.5}, num_players=3)
    seats, kinds, slots = set(), set(), set()
    for game in range(12):
        env.reset(seed=game)
        learner_seat = [s for s, a in env.seating.agents.items() if a.startswith("learner@")]
        seats.update(learner_seat)
        kinds.update(env.seating.opponents)
        slots.update(a.partition("@")[0] for a in env.seating.agents.values() if a.startswith("snapshot_"))
        assert len(learner_seat) == 1 and len(env.seating.agents) + len(env.seating.fixed) == 3
    assert seats == {0, 1, 2} and kinds == {"self", "greedy"} and slots == {"snapshot_0", "snapshot_1"}
    assert set(env.possible_agents) >= {a for a in env.seating.agents.values()}


def test_krz_grtn_shares_one_policy_across_every_seat(ray_lib):
    from tabletop.train.rllib.table import module_of

    env = _adapter("krz_grtn_v1", {}, learner_seats="all", num_players=4)
    totals, infos, _ = _play_out(env, np.random.default_rng(1))
    assert {module_of(a) for a in env.possible_agents} == {"learner"}
    assert len(totals) == 4 and len(set(totals.values())) == 1, "the team shares its result"
    assert all(info["opponents"] == [] for info in infos.values())


def test_a_solo_game_seats_only_the_learner(ray_lib):
    from tabletop.train.rllib.env import TabletopMultiAgentEnv
    from tabletop.train.rllib.trainer import env_config

    made = env_config(parse_config(rllib_config("chromino_v1", env_kwargs={"variant": "solo", "num_players": 1})))
    assert made["weights"] == {} and made["snapshots"] == 0
    env = TabletopMultiAgentEnv(made)
    totals, infos, moves = _play_out(env, np.random.default_rng(2))
    assert list(totals) == ["learner@0"] and moves > 0
    assert infos["learner@0"]["opponents"] == []


def test_an_illegal_action_raises_instead_of_being_played(ray_lib):
    from tabletop.envs.core.errors import IllegalActionError

    env = _adapter("cromlet_v0", {"random": 1.0})
    obs, _ = env.reset(seed=0)
    ((agent, seen),) = obs.items()
    with pytest.raises(IllegalActionError):
        env.step({agent: int(np.flatnonzero(seen["action_mask"] == 0)[0])})


def test_the_module_never_samples_a_masked_action(ray_lib):
    import torch
    from gymnasium import spaces
    from ray.rllib.core.columns import Columns

    from tabletop.train.rllib.modules import MaskedActorCritic

    n = 6
    space = spaces.Dict(
        {"observations": spaces.Box(-1, 1, (4,), np.float32), "action_mask": spaces.Box(0, 1, (n,), np.float32)}
    )
    module = MaskedActorCritic(
        observation_space=space, action_space=spaces.Discrete(n), model_config={"hidden": [8], "activation": "tanh"}
    )
    with torch.no_grad():
        module.pi[-1].bias[:] = torch.tensor([50.0, 0, 0, 0, 0, 0])  # the network wants action 0, hard
    masks = torch.tensor([[1, 1, 0, 0, 1, 0], [0, 1, 1, 0, 0, 1]] * 200, dtype=torch.float32)
    batch = {Columns.OBS: {"observations": torch.zeros(len(masks), 4), "action_mask": masks}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    actions = module.get_exploration_action_dist_cls().from_logits(logits).sample()
    assert (masks[torch.arange(len(masks)), actions] == 1).all()
    assert (actions[::2] == 0).all(), "where action 0 is legal the bias wins"
    assert module.compute_values(batch).shape == (len(masks),)


# --- one short run per game on a local Ray: train, evaluate, export, play ----------------------------------
@contextmanager
def hard_timeout(seconds: int):
    """Fail the test after `seconds` (SIGALRM reaches a driver waiting on Ray); if even that cannot interrupt
    it, faulthandler prints every thread's stack and ends the process half a minute later."""

    def expire(signum, frame):
        raise TimeoutError(f"the RLlib run took over {seconds} s: a hung learner or sampler")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    faulthandler.dump_traceback_later(seconds + 30, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def local_ray(ray_lib):
    import ray

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    with hard_timeout(120):
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=150 * 2**20, log_to_driver=False)
    yield ray
    ray.shutdown()


def _rows(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


RUNS = [
    ("cromlet_v0", {}),
    ("chromino_v1", {}),
    ("kings_cribbage_v0", {}),
    ("krz_grtn_v1", {"learner_seats": "all", "env_kwargs": {"num_players": 4}}),
    (
        "cromlet_v0",
        {"rllib": {"algorithm": "appo", "num_envs_per_env_runner": 2, "train_batch_size": 128}, "total_steps": 2048},
    ),  # asynchronous: its first updates lag the samples
]


def test_every_game_trains_an_iteration_on_a_local_ray_then_exports_and_plays(local_ray, tmp_path):
    """One test, so a parallel run (pytest -n) starts one Ray, not one per worker."""
    import yaml

    from tabletop.agents import OnnxAgent
    from tabletop.train.cli import main
    from tabletop.train.evaluation.evaluate import evaluate
    from tabletop.train.rllib.trainer import train

    for env_id, overrides in RUNS:
        label = f"{env_id} {overrides.get('rllib', {}).get('algorithm', 'ppo')}"
        config = parse_config(rllib_config(env_id, **overrides))
        run_dir = tmp_path / label.replace(" ", "-")
        with hard_timeout(RAY_TEST_SECONDS):
            if env_id == "cromlet_v0" and not overrides:  # the command itself, once
                cfg = tmp_path / "cromlet.yaml"
                cfg.write_text(yaml.safe_dump(rllib_config(env_id)))
                assert main(["train", str(cfg), "--out", str(run_dir), "--quiet"]) == 0, label
            else:
                result = train(config, out=run_dir, progress=False)
                assert result.steps >= 1 and result.env_steps >= result.steps, label

        progress = _rows(run_dir / "logs" / "progress.csv")
        if config.total_steps == 1:
            assert len(progress) == 1, f"{label}: one iteration reaches a budget of one learner step"
        assert int(progress[-1]["train/learner_samples_trained"]) > 0, f"{label}: the learner was updated"
        final = json.loads((run_dir / "final" / "eval.json").read_text())
        assert final["backend"] == "rllib" and final["algorithm"] == config.rllib.algorithm
        expected = (
            ["learner", "random", *_heuristics(env_id)]
            if config.learner_seats == "all"
            else ["random", *_heuristics(env_id)]
        )
        assert [r["opponent"] for r in final["results"]] == expected, label
        assert all(r["games"] == 2 for r in final["results"]), label
        checkpoint = next((run_dir / "checkpoints").iterdir())
        assert (checkpoint / "policy.pt").is_file() and (checkpoint / "algorithm").is_dir(), label
        assert (run_dir / "learning_curve.png").is_file() and (run_dir / "eval.csv").is_file(), label

        exported = tmp_path / f"{label.replace(' ', '-')}-onnx"
        assert main(["export", str(run_dir), "--out", str(exported)]) == 0, label
        meta = json.loads((exported / "metadata.json").read_text())
        assert meta["source"]["backend"] == "rllib" and meta["verification"]["actions_agree"], label
        agent = OnnxAgent(exported)
        rows = evaluate(
            agent,
            EnvSpec(env_id, config.env_kwargs),
            1,
            seed=7,
            learner_seats=config.learner_seats,
            opponents=["random"],
        )
        assert sum(r.games for r in rows) >= 1, label


def test_snapshots_take_the_learners_weights_oldest_slot_first(local_ray, tmp_path):
    """The self-play pool: slots start as the initial policy; a snapshot overwrites the oldest, and reaches
    a remote sampler process (as on a cluster), not only the driver."""
    from tabletop.train.rllib.trainer import Run, algorithm_config, stop

    config = parse_config(
        rllib_config("cromlet_v0", rllib={"num_env_runners": 1, "num_envs_per_env_runner": 2, "train_batch_size": 128})
    )
    with hard_timeout(RAY_TEST_SECONDS):
        algo = algorithm_config(config).build_algo()
        try:
            run = Run(config, tmp_path, algo)

            def weights(module: str) -> np.ndarray:
                """The first layer of `module` as the remote sampler holds it."""
                (held,) = algo.env_runner_group.foreach_env_runner(
                    lambda r: r.module[module].pi[0].weight.detach().numpy(), local_env_runner=False
                )
                return held

            run.snapshot(fill_all=True)
            initial = weights("learner")
            assert all(np.array_equal(weights(slot), initial) for slot in ("snapshot_0", "snapshot_1"))
            algo.train()
            trained = weights("learner")
            assert not np.array_equal(trained, initial), "one PPO update moves the learner"
            run.snapshot()
            assert np.array_equal(weights("snapshot_0"), trained) and np.array_equal(weights("snapshot_1"), initial)
            run.snapshot()
            assert np.array_equal(weights("snapshot_1"), trained)
        finally:
            stop(algo)


def _heuristics(env_id: str) -> list[str]:
    from tabletop.agents.registry import heuristics

    return list(heuristics(env_id))


def test_an_iteration_where_no_game_ended_counts_zero_games(ray_lib):
    """RLlib sums a metric not logged this iteration to NaN (seen with APPO's asynchronous samplers)."""
    from tabletop.train.rllib.stats import KEY, summarize

    nan = float("nan")
    assert summarize({KEY: {"games": {"all": nan, "patient": nan}, "outcome_sum": {"all": nan}}}) == {"games": 0.0}
    row = summarize(
        {
            KEY: {
                "games": {"all": 4.0, "patient": 4.0, "random": nan},
                "outcome_sum": {"all": 2.0},
                "wins": {"patient": 3.0},
            }
        }
    )
    assert row == {"games": 4.0, "mean_outcome": 0.5, "win_rate_vs_patient": 0.75}
