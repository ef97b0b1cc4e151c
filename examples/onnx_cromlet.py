"""Drive an exported Cromlet policy with onnxruntime and numpy only (docs/export.md).

tabletop export runs/cromlet --out exported/cromlet
python examples/onnx_cromlet.py exported/cromlet
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

from tabletop import envs

parser = argparse.ArgumentParser(description="Print the first move of a Cromlet export and its top three choices.")
parser.add_argument("folder", nargs="?", default="exported/cromlet", help="a Cromlet export: model.onnx, metadata.json")
folder = Path(parser.parse_args().folder)
if not (folder / "metadata.json").is_file() or not (folder / "model.onnx").is_file():
    sys.exit(
        f"onnx_cromlet.py: error: {folder} holds no export (model.onnx and metadata.json): tabletop export RUN --out {folder}"
    )
meta = json.loads((folder / "metadata.json").read_text())
if envs.EnvSpec(meta.get("env_id", "cromlet_v0")).current_id != "cromlet_v0":
    sys.exit(
        f"onnx_cromlet.py: error: {folder} is an export of {meta['env_id']}; this example drives a Cromlet (cromlet_v0) export"
    )
session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])

env = envs.make_raw(meta["env_id"], **meta["env_kwargs"])  # any frontend that produces the same vectors will do
env.reset(seed=7)
seen = env.observe(env.agent_selection)
logits, action = session.run(
    ["logits", "action"],
    {"observation": seen["observation"][None], "action_mask": seen["action_mask"][None].astype(np.float32)},
)
legal = np.flatnonzero(seen["action_mask"])
probs = np.exp(logits[0, legal] - logits[0, legal].max())
probs /= probs.sum()
print(f"{env.agent_selection} plays action {action[0]}: {env.action_to_string(int(action[0]))}")
for a, p in sorted(zip(legal, probs), key=lambda x: -x[1])[:3]:
    print(f"  {p:6.1%}  {env.action_to_string(int(a))}")
