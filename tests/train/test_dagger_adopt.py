"""scripts/dagger.py adopt: a policy shipped as ONNX alone comes back as a run folder that plays as the shipped
one, and a network that is not the shipped one is refused rather than written."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.scripts import load_script

from tabletop.agents.networks.runs import load_saved
from tabletop.train.serving.export import sample_positions, verify

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "agents" / "pretrained" / "chromino_2p"
CONFIGS = REPO / "configs" / "results"


def _script():
    return load_script("scripts/dagger.py")


@pytest.mark.slow
@pytest.mark.parametrize(
    "shipped, config",
    [
        ("chromino_2p", "chromino_pretrained_2p.yaml"),
        ("kings_cribbage_2p", "kings_cribbage_pretrained_2p.yaml"),  # five products of one shape
    ],
)
def test_a_shipped_actor_comes_back_with_its_logits(tmp_path, shipped, config):
    script = _script()
    shipped = REPO / "agents" / "pretrained" / shipped
    script.adopt(shipped, CONFIGS / config, tmp_path / "run")
    run_config, policy = script.run_policy(str(tmp_path / "run"))
    saved = load_saved(tmp_path / "run")
    critic = [k for k in saved.weights if k.startswith("value_net.")]
    assert critic, "the run keeps a critic for fit to train"
    observations, masks = sample_positions(run_config.env, 64, seed=3)  # other positions than adopt checked
    check = verify(policy, shipped / "model.onnx", observations, masks)
    assert check["logits_agree"] and check["actions_agree"] and check["max_abs_logit_diff"] < 1e-3


def test_a_network_of_other_shapes_is_refused(tmp_path):
    script = _script()
    config = tmp_path / "wider.yaml"
    text = (CONFIGS / "chromino_pretrained_2p.yaml").read_text()
    config.write_text(text.replace("width: 16", "width: 8"))
    with pytest.raises(SystemExit, match="no parameter of the network takes"):
        script.adopt(SHIPPED, config, tmp_path / "run")
    assert not (tmp_path / "run").exists()
