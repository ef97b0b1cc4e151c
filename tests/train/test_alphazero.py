"""The `alphazero` family (train/selfplay/alphazero.py): a CI-sized run improves on its start, the same seed trains
the same network, a save resumes bit for bit, and `tabletop train` runs it from a config into a run folder whose
policy plays, alone and as the guided search's network."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from tabletop.agents import make_agent
from tabletop.agents.networks.actor_critic import ActorCritic, network_spec
from tabletop.agents.networks.saved import saved_policy, write_policy
from tabletop.envs import EnvSpec
from tabletop.train.benchmark.families.alphazero import FAMILY
from tabletop.train.benchmark.families.base import TRAINING_SEEDS_BELOW, Task
from tabletop.train.benchmark.training import FamilyConfig, load_training
from tabletop.train.cli import main
from tabletop.train.evaluation.tournament import play_game
from tabletop.train.selfplay.alphazero import learner_network

CROMLET = EnvSpec("cromlet_v0", {"num_players": 2})
SMALL = {
    "hidden": [64],
    "search": "sims=16,candidates=4,gumbel=1,leaf=rollout,value=margin",
    "games": 8,
    "epochs": 4,
    "batch_size": 64,
    "learning_rate": 1e-3,
}
QUICK = {**SMALL, "games": 4}


def task(opponents=None, budget: int = 2000) -> Task:
    return Task(
        "cromlet", CROMLET, "one", opponents or {"random": 1.0}, budget, budget, ("random",), 10, TRAINING_SEEDS_BELOW
    )


def score_against(opponent: str, agent, games: int = 60) -> float:
    """`agent`'s mean score (1 a win, 1/2 a draw) against `opponent` on fixed evaluation deals, seats alternating."""
    table, scores = CROMLET.make_raw(illegal_action="raise"), []
    for g in range(games):
        seat, rival = g % 2, make_agent(CROMLET, opponent, seed=g)
        returns, _, _ = play_game(table, [agent, rival] if seat == 0 else [rival, agent], TRAINING_SEEDS_BELOW + g)
        scores.append((returns[seat] + 1) / 2)
    return float(np.mean(scores))


def weights(learner) -> list[torch.Tensor]:
    return [w.clone() for w in learner.net.state_dict().values()]


@pytest.mark.slow
@pytest.mark.slow
def test_a_small_run_learns_from_the_search_and_beats_its_start(tmp_path):
    """From untrained weights, six iterations of the search's targets (games against random) make the network
    alone stronger against `patient` on 60 fixed deals, and every fit lowers the losses on the games it fitted.
    (Untrained, the network already beats random: its fixed preferences happen to suit Cromlet.)"""
    learner = FAMILY.start(task(), SMALL, 0, tmp_path)
    before = score_against("patient", learner.agent())
    learner.train_until(2700)
    after = score_against("patient", learner.agent())
    assert learner.iteration == 6
    assert after >= before + 0.1, (before, after)
    for row in learner.rows:
        assert (
            row["policy_loss_after"] < row["policy_loss_before"] and row["value_loss_after"] < row["value_loss_before"]
        )


@pytest.mark.slow
def test_the_same_seed_trains_the_same_network_and_a_save_resumes_bit_for_bit(tmp_path):
    straight = FAMILY.start(task(), QUICK, 3, tmp_path / "a")
    straight.train_until(300)  # two iterations of about 230 decisions
    other = FAMILY.start(task(), QUICK, 4, tmp_path / "c")
    other.train_until(300)
    first = FAMILY.start(task(), QUICK, 3, tmp_path / "b")
    first.train_until(1)
    first.save()
    resumed = FAMILY.start(task(), QUICK, 3, tmp_path / "b")
    assert resumed.steps == first.steps and resumed.iteration == 1
    resumed.train_until(300)
    assert resumed.iteration == straight.iteration == 2
    assert all(torch.equal(a, b) for a, b in zip(weights(straight), weights(resumed)))
    assert not all(torch.equal(a, b) for a, b in zip(weights(straight), weights(other)))
    drop = lambda rows: [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in rows]  # noqa: E731
    assert drop(straight.rows) == drop(resumed.rows)


def test_a_save_of_other_parameters_is_refused(tmp_path):
    learner = FAMILY.start(task(), SMALL, 0, tmp_path)
    learner.save()
    with pytest.raises(ValueError, match="games"):
        FAMILY.start(task(), {**SMALL, "games": 4}, 0, tmp_path)


def test_warm_weights_start_from_a_policy_file_and_refuse_another_network_or_game(tmp_path):
    source = FAMILY.start(task(), SMALL, 5, tmp_path / "source")
    source.save()  # policy.pt: the untrained network of seed 5, critic included
    warm = FAMILY.start(task(), {**SMALL, "warm_weights": str(tmp_path / "source" / "policy.pt")}, 0, tmp_path / "w")
    cold = FAMILY.start(task(), SMALL, 0, tmp_path / "cold")
    assert all(torch.equal(a, b) for a, b in zip(weights(source), weights(warm)))
    assert not all(torch.equal(a, b) for a, b in zip(weights(source), weights(cold)))
    with pytest.raises(ValueError, match="weight mlp_extractor"):
        FAMILY.start(task(), {**SMALL, "hidden": [32], "warm_weights": str(tmp_path / "source")}, 0, tmp_path / "x")
    other = EnvSpec("chromino_v1", {"num_players": 2})
    policy = tmp_path / "chromino" / "policy.pt"
    policy.parent.mkdir()
    net = ActorCritic(network_spec(other, "mlp", hidden=[8]))
    write_policy(policy, saved_policy(net.spec, net.state_dict(), other, "test"))
    with pytest.raises(ValueError, match="a policy for chromino_v1"):
        FAMILY.start(task(), {**SMALL, "warm_weights": str(policy)}, 0, tmp_path / "y")


def test_a_bad_search_key_fails_before_any_game(tmp_path):
    with pytest.raises(ValueError, match="bad search option 'guard=1'"):
        FAMILY.start(task(), {**SMALL, "search": "sims=8,guard=1"}, 0, tmp_path)


@pytest.mark.slow
def test_tabletop_train_runs_the_family_and_its_policy_guides_the_search(tmp_path, capsys):
    config = tmp_path / "alphazero.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "family": "alphazero",
                "env_id": "cromlet_v0",
                "env_kwargs": {"num_players": 2},
                "opponents": {"self": 0.5, "patient": 0.5},
                "total_steps": 300,
                "panel": ["random", "greedy"],
                "eval_games": 4,
                "alphazero": {**SMALL, "games": 4, "warm_teacher": "greedy", "warm_games": 4},
            }
        )
    )
    run = tmp_path / "run"
    assert main(["train", str(config), "--out", str(run), "--quiet"]) == 0
    assert "(alphazero)" in capsys.readouterr().out
    progress = (run / "progress.csv").read_text().splitlines()
    assert progress[0].startswith("iteration,steps,decisions") and progress[1].startswith("0,")  # the warm start
    assert main(["tournament", "cromlet_v0", f"ppo:{run}", "random", "--games", "2"]) == 0
    guided = make_agent(CROMLET, f"search:policy=ppo:{run},sims=4", seed=0)
    assert guided.leaf == "value"
    returns, _, _ = play_game(CROMLET.make_raw(illegal_action="raise"), [guided, make_agent(CROMLET, "random")], 5)
    assert len(returns) == 2


@pytest.mark.parametrize(
    "path", sorted(Path(__file__).parents[2].joinpath("configs/alphazero").glob("*.yaml")), ids=str
)
def test_every_shipped_alphazero_config_loads(path, tmp_path):
    config = load_training(path)
    assert isinstance(config, FamilyConfig) and config.family == "alphazero"
    params = config.params
    if params["warm_weights"] and not Path(params["warm_weights"]).exists():
        # a run folder its header's command makes: a policy file of the config's own network stands in
        net = learner_network(config.task.env, params)
        params = {**params, "warm_weights": str(tmp_path / "policy.pt")}
        write_policy(tmp_path / "policy.pt", saved_policy(net.spec, net.state_dict(), config.task.env, "test"))
    FAMILY.start(config.task, params, config.seed, tmp_path / "run")  # its search keys and network too
