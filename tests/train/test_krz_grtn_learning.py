"""A learned KRZ GRTN team: the role-aware Observer segments, the `roles` network, warm start, cross-play."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from support.networks import untrained_policy

from tabletop.agents import OnnxAgent, RandomAgent, make_agent
from tabletop.agents.networks.actor_critic import ActorCritic, retarget
from tabletop.agents.networks.roles import ACTOR
from tabletop.agents.policy_agent import actor_logits
from tabletop.envs import EnvSpec
from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn.kernels import WORD_LENGTHS, WORDS, match_pairs
from tabletop.envs.krz_grtn.observe import LETTER_FACTS, PAIR_MATCH
from tabletop.envs.krz_grtn.phases import CLUE, GUESS
from tabletop.envs.krz_grtn.pictures import concept_id
from tabletop.envs.krz_grtn.tiles import LETTER_INDEX, NUM_TILE_KINDS
from tabletop.train.cli import main
from tabletop.train.evaluation.crossplay import RoleTeam, crossplay
from tabletop.train.selfplay.config import NetworkConfig, parse_config
from tabletop.train.selfplay.imitation import collect
from tabletop.train.selfplay.policy import build_policy, config_spec, network_policy
from tabletop.train.selfplay.trainer import train
from tabletop.train.serving import export

torch.set_num_threads(1)
ROLES = NetworkConfig(kind="roles", hidden=[16], width=8, activation="relu")
FOUR = EnvSpec("krz_grtn_v1", {"num_players": 4, "features": ["roles"]})  # the roles network reads them


def role_policy(spec: EnvSpec, seed: int = 0):
    """An untrained `roles` policy with its heads redrawn."""
    return untrained_policy(ROLES, spec, seed)


def play_until(spec: EnvSpec, phase: int, seed: int = 0):
    """A skeleton-team game up to the first time `phase` comes round: (env, state)."""
    env = spec.make_raw()
    env.reset(seed=seed)
    state, team = env.game_state, make_agent(spec, "skeleton", seed=seed)
    while state.phase != phase:
        state.apply(team.act(None, state.legal_action_mask(), state.view(state.current_player)))
    return env, state


def pair_match(concept: int, letters: str) -> np.ndarray:
    """The `pair_match` row the observer's kernel writes for one picture and one clue."""
    block = np.zeros((1, 1, len(PAIR_MATCH)), dtype=np.float32)
    tiles = np.array([[LETTER_INDEX[ch] for ch in letters] or [-1]], dtype=np.int64)
    return match_pairs(WORDS, WORD_LENGTHS, np.array([concept], dtype=np.int64), tiles, block)[0, 0]


def test_pair_match_compares_a_clue_with_a_pictures_words():
    cat = concept_id("cat")
    fits = dict(zip(PAIR_MATCH, pair_match(cat, "CT")))
    assert fits["clue present"] == 1 and fits["the clue fits a word"] == 1 and fits["fits a word from its initial"] == 1
    miss = dict(zip(PAIR_MATCH, pair_match(cat, "ZQ")))
    assert miss["the clue fits a word"] == 0 and miss["letters matched in order / clue letters (best word)"] == 0
    assert not pair_match(cat, "").any()  # no clue in that slot: all zero


def test_x_never_sees_the_target_and_a_giver_sees_letter_facts():
    env, state = play_until(FOUR, CLUE)
    layout, observer = env.observer.layout, env.observer
    x_obs = observer.encode(state, state.x)
    giver = state.current_player
    giver_obs = observer.encode(state, giver)
    assert not layout.block(x_obs, "letter_facts").any() and not layout.block(x_obs, "pair_match").any()
    facts = layout.block(giver_obs, "letter_facts")
    assert facts.shape == (NUM_TILE_KINDS, len(LETTER_FACTS))
    np.testing.assert_array_equal(facts[:-1, 0], np.minimum(state.supply[giver], 4) / 4)
    # X at the guess: its observation is the same whichever laid-out picture is the target
    env, state = play_until(FOUR, GUESS, seed=1)
    before = observer.encode(state, state.x).copy()
    other = (state.target_position + 1) % len(state.candidates)
    state.target, state.target_position = state.candidates[other], other
    np.testing.assert_array_equal(before, env.observer.encode(state, state.x))


def test_roles_logits_come_from_their_own_row_with_shared_weights():
    """Swap two tile rows and two pictures' clue rows: exactly their logits swap."""
    policy = role_policy(FOUR)
    layout = FOUR.make_raw().observer.layout
    env, state = play_until(FOUR, GUESS, seed=2)
    obs = env.observer.encode(state, state.x)
    _, clue_state = play_until(FOUR, CLUE, seed=2)
    rows = np.stack([obs, env.observer.encode(clue_state, clue_state.current_player)])
    swapped = rows.copy()
    pairs, tiles = layout.block(swapped[0], "pair_match"), layout.block(swapped[1], "letter_facts")
    pairs[[0, 1]] = pairs[[1, 0]]
    b, r = LETTER_INDEX["B"], LETTER_INDEX["R"]
    tiles[[b, r]] = tiles[[r, b]]
    with torch.no_grad():
        base, moved = (actor_logits(policy, torch.as_tensor(x)).numpy() for x in (rows, swapped))
    expect = base.copy()
    expect[0, [act.guess(0), act.guess(1)]] = base[0, [act.guess(1), act.guess(0)]]
    for first, second in ((act.add_tile(b), act.add_tile(r)), (act.return_letter(b), act.return_letter(r))):
        expect[1, [first, second]] = base[1, [second, first]]
    np.testing.assert_allclose(moved, expect, rtol=1e-5, atol=1e-5)
    assert not np.allclose(base[0, act.guess(0)], base[0, act.guess(1)])


def test_the_picture_scorer_runs_on_guesses_only_and_scores_as_over_every_position():
    """X's picture scores come from the guess positions of a batch alone, and equal the scorer run over every
    position with absent clues counting 0 (as it ran before)."""
    policy = role_policy(FOUR)
    extractor = policy.mlp_extractor
    env, guess = play_until(FOUR, GUESS, seed=2)
    _, clue = play_until(FOUR, CLUE, seed=2)
    rows = torch.as_tensor(
        np.stack([env.observer.encode(clue, clue.current_player), env.observer.encode(guess, guess.x)] * 3)
    )
    scored = []
    extractor.pair.register_forward_hook(lambda module, inputs, output: scored.append(len(inputs[0])))
    s = extractor.structure
    with torch.no_grad():
        logits = extractor.forward_actor(rows)
        pairs = extractor._segment(rows, "pair_match", s["candidates"], s["clues"], s["pair_facts"])
        context = extractor._segment(rows, "role_globals", s["globals"])[:, None, None, :]
        every = extractor.pair(torch.cat([pairs, context.expand(-1, s["candidates"], s["clues"], -1)], dim=3))
    assert scored[0] == 3  # the three guess positions, not all six
    expected = (every.squeeze(3) * pairs[..., 0]).sum(dim=2)
    torch.testing.assert_close(logits[:, act.guess(0) : act.guess(0) + s["candidates"]], expected)


def test_roles_policy_exports_to_onnx_and_its_actor_plays_any_player_count(tmp_path, play_legal_game):
    policy = role_policy(FOUR, seed=3)
    meta = export.export_policy(policy, tmp_path / "four", FOUR)  # refuses to finish if onnxruntime and torch disagree
    assert meta["verification"]["actions_agree"]
    six = EnvSpec("krz_grtn_v1", {"num_players": 6, "features": ["roles"]})
    plain = ActorCritic(config_spec(ROLES, FOUR)).load_weights(policy.state_dict(), "the test's policy")
    other = retarget(plain, six)
    assert all(torch.equal(other.state_dict()[k], v) for k, v in policy.state_dict().items() if k.startswith(ACTOR))
    export.export_policy(other, tmp_path / "six", six)
    play_legal_game(OnnxAgent(tmp_path / "six"), six, seed=4, seats=None)


def test_team_imitation_records_every_seat_of_the_skeleton_team():
    data = collect(FOUR, "skeleton", ["skeleton"], games=2, gamma=0.99, seed=5)
    layout = FOUR.make_raw().observer.layout
    roles = data.observations[:, layout.slice("role")].astype(np.float32)
    assert roles[:, 0].any() and roles[:, 1].any()  # X's guesses and the givers' clues both
    assert set(np.unique(data.game)) == {0, 1}


def test_crossplay_mixes_roles_on_the_same_seeds():
    calls = []

    class Recorder(RandomAgent):
        def act(self, observation, action_mask, view):
            calls.append(view["role"])
            return super().act(observation, action_mask, view)

    team = RoleTeam(make_agent(FOUR, "skeleton", seed=0), Recorder(0), "test")
    env = FOUR.make_raw()
    env.reset(seed=0)
    state = env.game_state
    while not state.is_terminal():
        state.apply(team.act(None, state.legal_action_mask(), state.view(state.current_player)))
    assert calls and set(calls) == {"X"}
    rows = crossplay(FOUR, "random", "skeleton", games=2, seed=10_000_000)
    assert [(r.givers, r.x) for r in rows] == [
        ("random", "random"),
        ("random", "skeleton"),
        ("skeleton", "random"),
        ("skeleton", "skeleton"),
    ]
    assert all(r.games == 2 and 0 <= r.wins <= 2 for r in rows)
    again = crossplay(FOUR, "random", "skeleton", games=2, seed=10_000_000)
    assert [r.mean_levels for r in rows] == [r.mean_levels for r in again]  # seeded
    with pytest.raises(ValueError, match="cross-play mixes roles"):
        crossplay(EnvSpec("cromlet_v0"), "random", "random", games=1, seed=0)


def test_crossplay_hands_a_search_player_its_sample():
    """The guided search reads `sample=` (a world drawn from what its seat knows): as X beside `reader`'s givers,
    and as the givers beside `reader`'s X, it plays whole games."""
    rows = crossplay(
        EnvSpec("krz_grtn_v1", {"num_players": 2}),
        "search:policy=pretrained,sims=4,depth=1,value=margin",
        "reader",
        games=1,
        seed=10_000_000,
    )
    assert [r.games for r in rows] == [1, 1, 1, 1] and all(r.mean_levels >= 0 for r in rows)


@pytest.mark.slow
def test_a_roles_run_warm_starts_trains_and_exports(tmp_path):
    config = parse_config(
        {
            "env_id": "krz_grtn_v1",
            "env_kwargs": {"num_players": 4, "features": ["roles"]},
            "total_steps": 128,
            "learner_seats": "all",
            "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
            "network": {"kind": "roles", "width": 8, "hidden": [16]},
            "warm_start": {"teacher": "skeleton", "games": 3, "epochs": 1, "eval_games": 0},
            "vec_env": {"kind": "batched", "num_envs": 2},
            "evaluation": {"every": 10_000, "games": 2, "final_games": 2},
            "checkpoint": {"every": 10_000, "keep": 1},
        }
    )
    result = train(config, out=tmp_path / "run", progress=False)
    assert (result.run_dir / "warm_start.json").is_file()
    meta = export.export_trained(result.run_dir, tmp_path / "export")
    assert meta["verification"]["actions_agree"]
    assert main(["export", str(result.run_dir), "--out", str(tmp_path / "three"), "--players", "3"]) == 0
    assert json.loads((tmp_path / "three" / "metadata.json").read_text())["env_kwargs"]["num_players"] == 3


def test_a_frozen_role_keeps_its_weights_through_ppo_updates():
    spec = FOUR
    env = spec.make_raw()
    policy_class, kwargs = network_policy(NetworkConfig(kind="roles", hidden=[16], width=8, frozen_role="x"), spec)
    policy = build_policy(
        env.observation_space("player_0")["observation"], env.action_space("player_0"), kwargs, policy_class
    )
    before = {k: v.clone() for k, v in policy.state_dict().items()}
    observations, masks = export.sample_positions(spec, 64, seed=1)
    obs = torch.as_tensor(observations)
    loss = actor_logits(policy, obs).pow(2).mean() + policy.predict_values(obs).pow(2).mean()
    for group in policy.optimizer.param_groups:  # build_policy's schedule says 0: acting policies never learn
        group["lr"] = 1e-2
    policy.optimizer.zero_grad()
    loss.backward()
    policy.optimizer.step()
    after = policy.state_dict()
    moved = {k for k in before if not torch.equal(before[k], after[k])}
    assert moved and not any(k.startswith("mlp_extractor.pair.") for k in moved)
    assert any(k.startswith("mlp_extractor.tile") for k in moved)


def test_frozen_role_and_the_roles_kind_are_refused_where_they_do_not_apply():
    from tabletop.train.selfplay.config import ConfigError

    base = {"env_id": "krz_grtn_v1", "total_steps": 100, "learner_seats": "all"}
    with pytest.raises(ConfigError, match="network.frozen_role freezes one role"):
        parse_config({**base, "network": {"kind": "mlp", "frozen_role": "x"}})
    with pytest.raises(ConfigError, match="network: frozen_role='guesser' is not allowed"):
        parse_config({**base, "network": {"kind": "roles", "frozen_role": "guesser"}})
    with pytest.raises(ConfigError, match="roles"):
        parse_config({**base, "env_id": "cromlet_v0", "learner_seats": "one", "network": {"kind": "roles"}})
