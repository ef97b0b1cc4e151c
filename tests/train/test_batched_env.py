"""The batched self-play env: SeatEnv's games, played together.

With heuristic and random opponents the batched env and a DummyVecEnv of SeatEnvs seeded alike must
play the same games move for move (observations, masks, rewards, resets, episode records); snapshot
opponents must move in one forward pass per network and round, choosing as `choose_action` would; and
MaskablePPO must train on it with its masks.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

from tabletop.agents.policy_agent import actor_logits, choose_action
from tabletop.train.selfplay.batched import BatchedSelfPlayEnv, _masked_choice
from tabletop.train.selfplay.config import ConfigError, load_config
from tabletop.train.selfplay.opponents import OpponentPool
from tabletop.train.selfplay.policy import actor_weights, build_policy, policy_kwargs
from tabletop.train.selfplay.seat_env import SeatEnv

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke"
STEPS = {"cromlet": 160, "chromino": 60, "kings_cribbage": 60, "krz_grtn": 60}  # a few episodes each, in seconds


@pytest.fixture(autouse=True)
def one_torch_thread():
    """As training runs (`torch_threads: 1`): small batched passes crawl when threads fight for busy cores."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def smoke_config(game):
    try:
        return load_config(SMOKE / f"{game}.yaml")
    except ConfigError as err:  # a game still being written: skip, don't fail
        pytest.skip(str(err))


def pools(config, weights, seed, games, sampling="uniform"):
    """One pool per game, seeded as the trainer seeds game `rank`'s pool."""
    if config.learner_seats == "all":
        return [None] * games
    probe = config.env.make_raw()
    agent = probe.possible_agents[0]
    return [
        OpponentPool(
            config.env,
            weights,
            3,
            policy_kwargs(config.network.hidden, config.network.activation),
            probe.observation_space(agent)["observation"],
            probe.action_space(agent),
            seed=seed + rank,
            sampling=sampling,
        )
        for rank in range(games)
    ]


def both_paths(config, weights, games=3, seed=10, shaping=0.0, sampling="uniform"):
    seat_pools, batched_pools = (pools(config, weights, seed, games, sampling) for _ in range(2))
    per_seat = DummyVecEnv(
        [
            (
                lambda rank=rank: SeatEnv(
                    config.env,
                    seat_pools[rank],
                    config.learner_seats,
                    seed=seed + rank,
                    margin_shaping=shaping,
                    gamma=0.9,
                )
            )
            for rank in range(games)
        ]
    )
    batched = BatchedSelfPlayEnv(
        config.env, batched_pools, config.learner_seats, seed=seed, margin_shaping=shaping, gamma=0.9
    )
    return per_seat, batched


@pytest.mark.parametrize("game, sampling", [(game, "uniform") for game in sorted(STEPS)] + [("cromlet", "pfsp")])
def test_the_batched_env_plays_the_seat_env_games(game, sampling):
    """pfsp: the opponents drawn depend on every result recorded so far, so each path must record alike."""
    config = smoke_config(game)
    per_seat, batched = both_paths(config, {"heuristics": 0.7, "random": 0.3}, shaping=0.01, sampling=sampling)
    for env in (per_seat, batched):
        env.seed(5)  # as MaskablePPO seeds its env: game i's next deal draws from seed 5 + i
    obs_per_seat, obs_batched = per_seat.reset(), batched.reset()
    assert [i["learner_seat"] for i in per_seat.reset_infos] == [i["learner_seat"] for i in batched.reset_infos]
    rng = np.random.default_rng(0)
    episodes = 0
    for step in range(STEPS[game]):
        masks = np.stack(per_seat.env_method("action_masks"))
        np.testing.assert_array_equal(obs_batched, obs_per_seat, err_msg=f"step {step}")
        np.testing.assert_array_equal(np.stack(batched.env_method("action_masks")), masks, err_msg=f"step {step}")
        np.testing.assert_array_equal(batched.action_masks(), masks)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs_per_seat, rewards_per_seat, dones_per_seat, infos_per_seat = per_seat.step(actions)
        obs_batched, rewards_batched, dones_batched, infos_batched = batched.step(actions)
        np.testing.assert_allclose(rewards_batched, rewards_per_seat, rtol=1e-6, atol=1e-6, err_msg=f"step {step}")
        np.testing.assert_array_equal(dones_batched, dones_per_seat)
        for done, expected, got in zip(dones_per_seat, infos_per_seat, infos_batched):
            if done:
                episodes += 1
                for key in ("learner_seat", "outcome", "opponents"):
                    assert got.get(key) == expected.get(key), key
                np.testing.assert_array_equal(got["terminal_observation"], expected["terminal_observation"])
            else:
                assert "terminal_observation" not in got
    if game == "cromlet":
        assert episodes >= 4  # resets were exercised
    if sampling == "pfsp":
        assert [g.pool.results for g in batched.games] == [env.pool.results for env in per_seat.envs]


def test_a_search_player_is_an_opponent_in_both_paths():
    """A search opponent gets its resample (agents.base.act_for) in the seat env and the batched env alike."""
    config = smoke_config("kings_cribbage")
    per_seat, batched = both_paths(config, {"search:sims=4,depth=6,candidates=3": 1.0}, games=2)
    for env in (per_seat, batched):
        env.seed(5)
    obs_per_seat, obs_batched = per_seat.reset(), batched.reset()
    rng = np.random.default_rng(1)
    for step in range(12):
        np.testing.assert_array_equal(obs_batched, obs_per_seat, err_msg=f"step {step}")
        masks = np.stack(per_seat.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs_per_seat, rewards_per_seat, _, _ = per_seat.step(actions)
        obs_batched, rewards_batched, _, _ = batched.step(actions)
        np.testing.assert_allclose(rewards_batched, rewards_per_seat, rtol=1e-6, atol=1e-6)
    assert all(g.opponents[s][0].startswith("search") for g in batched.games for s in g.opponents)


def snapshot_env(games=6, seed=3, game="cromlet", skip_forced=False):
    """Games against two frozen snapshots (distinct random networks) only."""
    config = smoke_config(game)
    env = BatchedSelfPlayEnv(config.env, pools(config, {"self": 1.0}, seed, games), seed=seed, skip_forced=skip_forced)
    for name in ("a", "b"):
        torch.manual_seed(ord(name))
        policy = build_policy(
            env.observation_space, env.action_space, policy_kwargs(config.network.hidden, config.network.activation)
        )
        env.env_method("add_snapshot", name, actor_weights(policy))
    return env


def play(env, steps, seed=0):
    rng = np.random.default_rng(seed)
    observations = [env.reset()]
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        observations.append(env.step(actions)[0])
    return np.stack(observations)


def test_snapshots_move_in_one_forward_pass_per_network_and_round():
    env = snapshot_env()
    networks = {id(a.policy): a.policy for game in env.games for a in game.pool.snapshots.values()}
    assert len(networks) == 2  # every game's pool shares the two frozen networks
    calls, rounds = [], []
    for policy in networks.values():
        policy.mlp_extractor.policy_net.register_forward_hook(
            lambda module, inputs, output: calls.append(len(inputs[0]))
        )
    moves = env._opponent_moves
    env._opponent_moves = lambda pending: (rounds.append(len(calls)), moves(pending))[1]
    play(env, 30)
    per_round = np.diff(rounds + [len(calls)])
    assert per_round.max() <= 2  # at most one pass per network and round
    assert max(calls) > 1  # games that face the same snapshot share its pass


def test_snapshots_skipping_forced_moves_play_the_same_games():
    """`sb3.skip_forced`: a snapshot's forward pass leaves out the games where it has one legal move (Chromino's
    draws and passes), and every game goes on as it does without skipping, draw for draw."""
    rows, games = {}, {}
    for skip in (False, True):
        env = snapshot_env(games=4, game="chromino", skip_forced=skip)
        rows[skip] = []
        for policy in {id(a.policy): a.policy for g in env.games for a in g.pool.snapshots.values()}.values():
            policy.mlp_extractor.policy_net.register_forward_hook(
                lambda module, inputs, output, seen=rows[skip]: seen.append(len(inputs[0]))
            )
        games[skip] = play(env, 40)
    np.testing.assert_array_equal(games[False], games[True])
    assert sum(rows[True]) < sum(rows[False])


def test_batched_choices_are_choose_action_choices(monkeypatch):
    """A batch's logits equal one-at-a-time logits, and each row is chosen by `choose_action`'s rule
    (argmax, or Gumbel-max from that row's own generator), draw for draw."""
    import tabletop.agents.policy_agent as policy_agent

    env = snapshot_env(games=4)
    obs = env.reset()
    masks = env.action_masks()
    policy = env.games[0].pool.snapshots["a"].policy
    with torch.no_grad():
        batched = actor_logits(policy, torch.from_numpy(obs)).numpy()
        single = np.stack([actor_logits(policy, torch.from_numpy(row[None]))[0].numpy() for row in obs])
    np.testing.assert_allclose(batched, single, rtol=1e-5, atol=1e-5)
    rngs = [np.random.default_rng(s) for s in range(4)]
    rngs[1] = None  # a greedy row
    twins = [None if rng is None else np.random.default_rng(s) for s, rng in enumerate(rngs)]
    chosen = _masked_choice(batched, masks, rngs)
    for row, (mask, twin) in enumerate(zip(masks, twins)):
        monkeypatch.setattr(
            policy_agent, "actor_logits", lambda _policy, _obs, row=row: torch.from_numpy(batched[row][None])
        )
        assert chosen[row] == choose_action(policy, obs[row], mask, twin)
        assert mask[chosen[row]]


def test_same_seed_same_games_other_seed_other_games():
    first, again, other = play(snapshot_env(seed=3), 25), play(snapshot_env(seed=3), 25), play(snapshot_env(seed=4), 25)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_maskable_ppo_trains_on_it_and_masks_reach_the_policy(check_masks_reach_ppo):
    """Bias the network hard towards one action: it is taken exactly when legal, never otherwise."""
    config = smoke_config("cromlet")
    env = BatchedSelfPlayEnv(config.env, pools(config, {"heuristics": 1.0}, 0, 4))
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=24,
        batch_size=96,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs=policy_kwargs(config.network.hidden, config.network.activation),
    )
    env.reset()
    favourite = int(np.flatnonzero(~env.action_masks()[0])[0])  # illegal at the first decision of game 0
    with torch.no_grad():
        model.policy.action_net.bias[favourite] = 1e4
    check_masks_reach_ppo(model, favourite)


@pytest.mark.slow
def test_the_trainer_runs_the_batched_path(tmp_path):
    from tabletop.train.selfplay.trainer import train

    config = smoke_config("cromlet")
    config = dataclasses.replace(
        config,
        sb3=dataclasses.replace(
            config.sb3, vec_env=dataclasses.replace(config.sb3.vec_env, kind="batched", num_envs=4), n_steps=32
        ),
        ppo=dataclasses.replace(config.ppo, batch_size=64),
    )
    result = train(config, out=tmp_path / "run", steps=256, progress=False)
    assert result.steps >= 256 and (tmp_path / "run" / "final" / "model.zip").is_file()
    assert {m.opponent for m in result.final} >= {"random"}


def test_bad_arguments_are_named():
    config = smoke_config("cromlet")
    with pytest.raises(ValueError, match="learner_seats='x'"):
        BatchedSelfPlayEnv(config.env, [None], "x")
    with pytest.raises(ValueError, match="opponent pool for every game"):
        BatchedSelfPlayEnv(config.env, [None], "one")
    with pytest.raises(ValueError, match="at least one game"):
        BatchedSelfPlayEnv(config.env, [], "all")
    env = BatchedSelfPlayEnv(config.env, [None, None], "all")
    with pytest.raises(AttributeError, match="no per-game method 'render'"):
        env.env_method("render")


@pytest.mark.slow
def test_bench_train_measures_both_paths_in_one_run(capsys, tmp_path):
    from tabletop.train.cli import main

    assert main(["speed", "--train", str(SMOKE / "cromlet.yaml"), "--train-steps", "128", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:4]}
    assert set(rows) == {"dummy", "batched"}
    assert rows["dummy"][:2] == rows["batched"][:2] == ["mlp", "2"]  # network and games: the config's
    assert all(float(values[2]) > 0 and float(values[3]) > 0 for values in rows.values())  # learner, rollout steps/s
    assert "ratio (batched / dummy): learner steps/s" in out
    circles = yaml.safe_load((SMOKE / "cromlet.yaml").read_text())
    circles["network"] = {**circles.get("network", {}), "kind": "circles"}
    (tmp_path / "circles.yaml").write_text(yaml.safe_dump(circles))
    assert (
        main(
            [
                "speed",
                "--train",
                str(tmp_path / "circles.yaml"),
                "--dummy-config",
                str(SMOKE / "cromlet.yaml"),
                "--train-steps",
                "128",
                "--rounds",
                "1",
            ]
        )
        == 0
    )
    rows = {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines()[2:4]}
    assert rows == {"dummy": "mlp", "batched": "circles"}  # the dummy path trains the dummy config
    spelled_out = yaml.safe_load((SMOKE / "cromlet.yaml").read_text())
    spelled_out["env_kwargs"] = {
        **spelled_out.get("env_kwargs", {}),
        "illegal_action": "penalize",
    }  # the default, named
    (tmp_path / "spelled_out.yaml").write_text(yaml.safe_dump(spelled_out))
    assert (
        main(
            [
                "speed",
                "--train",
                str(tmp_path / "circles.yaml"),
                "--dummy-config",
                str(tmp_path / "spelled_out.yaml"),
                "--train-steps",
                "128",
                "--rounds",
                "1",
            ]
        )
        == 0
    )  # the same game with a default written out
    capsys.readouterr()
    assert (
        main(["speed", "--train", str(tmp_path / "circles.yaml"), "--dummy-config", str(SMOKE / "krz_grtn.yaml")]) == 2
    )
    assert "compare one game" in capsys.readouterr().err
    assert main(["speed", "cromlet_v0", "--train", str(SMOKE / "cromlet.yaml")]) == 2
    assert "give GAME or --train, not both" in capsys.readouterr().err
    assert main(["speed"]) == 2
    assert "give a GAME to measure random play, or --train CONFIG" in capsys.readouterr().err
    assert main(["speed", "cromlet_v0", "--batched-games", "4"]) == 2
    assert "go with --train CONFIG" in capsys.readouterr().err
    assert main(["speed", "--train", str(SMOKE / "cromlet.yaml"), "--batched-games", "5"]) == 2
    assert "does not split into 5 games" in capsys.readouterr().err
