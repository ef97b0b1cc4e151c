"""Drive an exported Cromlet policy with onnxruntime and numpy only (docs/export.md).

tabletop export runs/cromlet --out exported/cromlet
python examples/onnx_cromlet.py exported/cromlet
"""

import json
import sys

import numpy as np
import onnxruntime as ort

from tabletop import envs

folder = sys.argv[1] if len(sys.argv) > 1 else "exported/cromlet"
meta = json.load(open(f"{folder}/metadata.json"))
session = ort.InferenceSession(f"{folder}/model.onnx", providers=["CPUExecutionProvider"])

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
print(f"{env.agent_selection} plays action {action[0]}: {meta['actions']['names'][action[0]]}")
for a, p in sorted(zip(legal, probs), key=lambda x: -x[1])[:3]:
    print(f"  {p:6.1%}  {meta['actions']['names'][a]}")
