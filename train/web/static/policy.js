// A policy that plays this page's seat in the browser: the exported model.onnx and its metadata.json,
// run by onnxruntime-web (WebAssembly, one thread) served by this server. It reads only what the server
// sends this seat on its turn: the seat's private observation and its action mask.
import * as ort from "/vendor/onnxruntime-web/ort.wasm.min.mjs";

ort.env.wasm.numThreads = 1; // threads need cross-origin isolation; one small network per move needs none
ort.env.wasm.wasmPaths = "/vendor/onnxruntime-web/";

export async function loadPolicy(token, hello) {
  const answer = await fetch(`/models/${token}/metadata.json`);
  if (!answer.ok) throw new Error(`metadata.json: ${(await answer.json()).error}`);
  const meta = await answer.json();
  if (meta.env_id !== hello.game) throw new Error(`the model plays ${meta.env_id}, this table ${hello.game}`);
  const size = meta.observation.size, count = meta.actions.count;
  const session = await ort.InferenceSession.create(`/models/${token}/model.onnx`, { executionProviders: ["wasm"] });
  return {
    meta,
    describe() { return `${meta.env_id}: ${size} inputs, ${count} actions (onnxruntime-web ${ort.env.versions.web})`; },
    // The model's greedy action: its "action" output, the argmax of the masked logits.
    async act(observation, mask) {
      if (observation.length !== size || mask.length !== count) {
        throw new Error(`the model takes ${size} observation numbers and ${count} mask entries, got ${observation.length} and ${mask.length}`);
      }
      const feeds = {
        observation: new ort.Tensor("float32", Float32Array.from(observation), [1, size]),
        action_mask: new ort.Tensor("float32", Float32Array.from(mask), [1, count]),
      };
      const out = await session.run(feeds, ["action"]);
      const action = Number(out.action.data[0]);
      if (mask[action] !== 1) throw new Error(`the model chose masked action ${action}`);
      return action;
    },
  };
}
