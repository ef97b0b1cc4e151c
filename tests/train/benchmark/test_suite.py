"""Suite files: the shipped ones parse; every bad one is one SuiteError naming the place and what is allowed."""

import copy
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from tabletop.train.benchmark.families import FAMILIES, FamilyUnavailable, load_family  # noqa: E402
from tabletop.train.benchmark.families.base import TRAINING_SEEDS_BELOW  # noqa: E402
from tabletop.train.benchmark.suite import SuiteError, eval_steps, load_suite, parse_suite  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GOOD = {
    "tasks": {
        "c2": {
            "env_id": "cromlet_v0",
            "env_kwargs": {"num_players": 2},
            "budget": 1000,
            "eval_every": 400,
            "panel": ["random", "greedy"],
        }
    },
    "algorithms": {"ppo": {"n_steps": 32}},
}


def with_change(path: str, value):
    """GOOD with the key at dotted `path` set to `value` (or removed, for the sentinel `...`)."""
    data = copy.deepcopy(GOOD)
    *parents, key = path.split(".")
    node = data
    for part in parents:
        node = node[part]
    if value is ...:
        del node[key]
    else:
        node[key] = value
    return data


def test_shipped_suites_cover_every_game_with_fixed_panels_and_evaluation_seeds():
    suite = load_suite(ROOT / "configs/benchmark/suite.yaml")
    assert len(suite.tasks) >= 6
    assert {t.env.env_id for t in suite.tasks.values()} == {
        "cromlet_v0",
        "chromino_v1",
        "kings_cribbage_v0",
        "krz_grtn_v1",
    }
    assert any(t.learner_seats == "all" for t in suite.tasks.values())
    for task in suite.tasks.values():
        assert task.eval_seed >= TRAINING_SEEDS_BELOW
        assert "random" in task.panel
    assert set(suite.algorithms) == set(FAMILIES)
    smoke = load_suite(ROOT / "configs/benchmark/smoke.yaml")
    assert len(smoke.tasks) == 1


@pytest.mark.parametrize("name", ["reference.yaml", "reference_200k.yaml"])
def test_the_reference_suites_are_the_suites_tasks_cut_to_fit(name):
    """The reference runs (docs/benchmark.md, "Reference runs") play the suite's games, deals, training opponents
    and scale; they may differ in the tasks they keep, the budget and schedule, a panel cut to part of the suite's
    (random and the scale's 1 always in it), more final deals, fewer deals at the evaluations before the last (not
    below the cost rule's floor of 25), and each family's tuned hyperparameters."""
    import yaml

    suite, reference = (yaml.safe_load((ROOT / "configs/benchmark" / f).read_text()) for f in ("suite.yaml", name))
    load_suite(ROOT / "configs/benchmark" / name)
    assert int(reference["version"]) >= int(suite["version"])
    assert set(reference["algorithms"]) <= set(suite["algorithms"])
    cut = ("budget", "eval_every", "panel", "eval_games", "final_eval_games")
    for task_name, task in reference["tasks"].items():
        kept = suite["tasks"][task_name]
        assert {k: v for k, v in task.items() if k not in cut} == {k: v for k, v in kept.items() if k not in cut}
        assert {"random", task["one"]} <= set(task["panel"]) <= set(kept["panel"])
        assert 25 <= task["eval_games"] <= kept["eval_games"]
        assert task["final_eval_games"] >= kept["final_eval_games"]


def test_a_task_is_read_with_its_schedule():
    suite = parse_suite(GOOD)
    task = suite.tasks["c2"]
    assert task.opponents == {"self": 1.0}  # the declared default: the learner's snapshots only
    assert eval_steps(task) == [0, 400, 800, 1000]
    assert suite.params("ppo")["n_steps"] == 32
    assert suite.params("ppo")["batch_size"] == load_family("ppo").defaults["batch_size"]


@pytest.mark.parametrize(
    "path, value, message",
    [
        ("tasks.c2.budgett", 5, "unknown argument 'budgett'"),
        ("tasks.c2.budget", ..., "missing required key 'budget'"),
        ("tasks.c2.budget", 0, "budget=0 is not allowed; allowed: a whole number of at least 1"),
        ("tasks.c2.eval_every", 5000, "eval_every=5000 exceeds budget=1000"),
        ("tasks.c2.env_id", "chess_v0", "env_id='chess_v0' is not allowed; allowed: "),
        ("tasks.c2.env_kwargs", {"num_players": 9}, "num_players=9 is not allowed"),
        ("tasks.c2.panel", ["random", "grumpy"], "unknown panel agent 'grumpy'; allowed: random, greedy, patient"),
        ("tasks.c2.panel", ["greedy"], "the panel needs random and at least one heuristic"),
        ("tasks.c2.eval_seed", 5, f"allowed: a whole number of at least {TRAINING_SEEDS_BELOW:,}"),
        ("tasks.c2.opponents", {"grumpy": 1}, "unknown opponent opponents.grumpy; allowed: self, heuristics, random"),
        ("tasks.c2.learner_seats", "some", "learner_seats='some' is not allowed; allowed: 'one', 'all'"),
        ("algorithms.sarsa", {}, "unknown algorithm 'sarsa'; allowed: ppo, rllib_ppo, rllib_appo, dqn, nfsp"),
        ("algorithms.ppo", [1], "algorithms.ppo must be a mapping"),
        ("extra", 1, "unknown key 'extra'; allowed keys here: version, tasks, algorithms"),
        ("tasks", {}, "tasks: must be a non-empty mapping"),
    ],
)
def test_a_bad_suite_is_one_error_naming_what_is_allowed(path, value, message):
    with pytest.raises(SuiteError) as err:
        parse_suite(with_change(path, value), "s.yaml")
    assert message in str(err.value)
    assert str(err.value).startswith("s.yaml")
    assert "\n" not in str(err.value)


def test_a_pretrained_panel_member_needs_a_shipped_policy_for_the_configuration():
    data = with_change("tasks.c2.panel", ["random", "greedy", "pretrained"])
    assert parse_suite(data).tasks["c2"].panel[-1] == "pretrained"  # Cromlet 2p ships one
    data["tasks"]["c2"]["env_kwargs"] = {"num_players": 3}
    with pytest.raises(SuiteError, match="panel: no pretrained policy for"):
        parse_suite(data, "s.yaml")


def test_unknown_names_on_selection_and_hyperparameters_are_errors():
    suite = parse_suite(GOOD, "s.yaml")
    with pytest.raises(SuiteError, match="unknown task 'c3'; its tasks: c2"):
        suite.select_tasks(["c3"])
    with pytest.raises(SuiteError, match="unknown algorithm 'sarsa'; allowed: ppo, "):
        suite.select_algorithms(["sarsa"])
    with pytest.raises(SuiteError, match="algorithm 'rllib_ppo' has no entry under algorithms:"):
        suite.select_algorithms(["rllib_ppo"])
    with pytest.raises(SuiteError, match="unknown key algorithms.ppo.n_stepz; allowed: learning_rate, "):
        parse_suite(with_change("algorithms.ppo", {"n_stepz": 3}), "s.yaml")


def test_a_family_whose_module_is_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(FAMILIES, "ghost", "tabletop.train.benchmark.families.ghost")
    with pytest.raises(FamilyUnavailable, match="algorithm 'ghost' is not available .* its module .*ghost is missing"):
        load_family("ghost")
    with pytest.raises(ValueError, match="unknown algorithm 'sarsa'"):
        load_family("sarsa")


def test_held_out_evaluation_and_the_named_one_are_checked():
    with pytest.raises(SuiteError, match="'greedy' is both a training opponent and in the panel; train against self"):
        parse_suite(with_change("tasks.c2.opponents", {"self": 0.5, "greedy": 0.5}), "s.yaml")
    with pytest.raises(SuiteError, match="'greedy' is both a training opponent"):
        parse_suite(with_change("tasks.c2.opponents", {"self": 0.5, "heuristics": 0.5}), "s.yaml")
    seen = with_change("tasks.c2.opponents", {"self": 0.5, "heuristics": 0.5})
    seen["tasks"]["c2"]["held_out"] = False  # a named track that evaluates on its training opponents
    assert parse_suite(seen).tasks["c2"].opponents == {"self": 0.5, "heuristics": 0.5}
    assert parse_suite(with_change("tasks.c2.opponents", {"self": 0.5, "patient": 0.5})).tasks["c2"]
    with pytest.raises(SuiteError, match="one: 'patient' is not a heuristic of the panel; allowed: greedy"):
        parse_suite(with_change("tasks.c2.one", "patient"), "s.yaml")
    with pytest.raises(SuiteError, match="eval_mode"):
        parse_suite(with_change("tasks.c2.eval_mode", "softmax"), "s.yaml")
    task = parse_suite(with_change("tasks.c2.eval_mode", "sample")).tasks["c2"]
    assert "no policy" in load_family("dqn").unsupported(task)
    assert load_family("nfsp").unsupported(task) is None
    assert parse_suite(GOOD).tasks["c2"].final_games == 100


def test_a_bad_file_is_named(tmp_path):
    with pytest.raises(SuiteError, match="does not exist"):
        load_suite(tmp_path / "none.yaml")
    (tmp_path / "bad.yaml").write_text("tasks: [1, 2\n")
    with pytest.raises(SuiteError, match="not valid YAML"):
        load_suite(tmp_path / "bad.yaml")


def test_every_family_reads_the_hyperparameters_the_suite_checks():
    from tabletop.train.benchmark.families import FAMILIES, load_family
    from tabletop.train.benchmark.families.hyperparameters import DEFAULTS

    assert list(DEFAULTS) == list(FAMILIES)
    for name in FAMILIES:
        try:
            family = load_family(name)
        except Exception:  # a family whose extra is missing here
            continue
        assert family.defaults == DEFAULTS[name], name
