"""PPO with the update of one rollout running while the next is collected (`sb3.overlap: true`).

On two cores, collecting (games, opponents, the policy's forward passes: Python holding the GIL) and the
update (torch's backward passes, which release it) take one core each, so a rollout costs the larger of
the two instead of their sum. The price is one update of policy lag: rollout k+1 is collected by the
policy before update k. PPO's ratio is then taken against the policy that starts the update (the
"proximal" policy of decoupled PPO, Hilton et al. 2022, "Batch size-invariance for policy optimization"),
and each sample's advantage is weighted by the proximal policy's probability of its action over the
behaviour policy's, truncated at 1 (V-trace's rho-bar), which keeps the objective on-policy in
expectation. Values and returns stay the behaviour policy's.

Deterministic under a seed: the update's thread draws minibatches from numpy's global generator and
nothing else, the collecting thread samples actions from torch's and never touches numpy's global one;
callbacks that read or save the learner (snapshots, evaluations, checkpoints) wait for the update to end.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import Logger

RHO_BAR = 1.0  # the truncation of the importance weight that moves each advantage from behaviour to proximal


def reanchor(policy, buffer, rho_bar: float = RHO_BAR, chunk: int = 1024) -> None:
    """Make `buffer` (a GatheringRolloutBuffer collected by an older policy) an on-policy batch for `policy`:
    its log-probabilities become `policy`'s and its advantages are weighted by min(rho_bar, p_policy /
    p_behaviour)."""
    actions = torch.as_tensor(buffer.swap_and_flatten(buffer.actions)).long().flatten()
    masks = buffer.swap_and_flatten(buffer.action_masks)
    proximal = np.empty(len(actions), dtype=np.float32)
    samples = np.arange(len(actions))
    with torch.no_grad():
        for start in range(0, len(actions), chunk):  # a board network's activations for a whole rollout are large
            rows = slice(start, start + chunk)
            observations = buffer.flat_observations(samples[rows])
            dist = policy.get_distribution(observations, action_masks=masks[rows])
            proximal[rows] = dist.log_prob(actions[rows]).numpy()
    shape = buffer.log_probs.shape  # [n_steps, n_envs]; swap_and_flatten took the env axis first
    proximal = proximal.reshape(shape[1], shape[0]).T
    weight = np.minimum(rho_bar, np.exp(proximal - buffer.log_probs))
    buffer.advantages *= weight
    buffer.log_probs[:] = proximal


def frozen_copy(policy):
    """A second policy with `policy`'s weights (a deepcopy fails once a distribution with a graph is cached)."""
    clone = type(policy)(**policy._get_constructor_parameters())
    clone.load_state_dict(policy.state_dict())
    clone.set_training_mode(False)
    return clone


class _Update(threading.Thread):
    """`MaskablePPO.train` of `model`'s learner on `buffer`, in its own thread with its own logger: the
    collecting thread goes on with the model (and a frozen copy of the policy) meanwhile."""

    def __init__(self, model: MaskablePPO, buffer):
        super().__init__(name="ppo-update", daemon=True)
        self.view = copy.copy(model)  # a shallow copy: the same learner and optimiser, its own counters
        self.view.rollout_buffer = buffer
        self.step = model.num_timesteps  # its rollout's last step: what the learner is trained through after it
        self.view.set_logger(Logger(folder=None, output_formats=[]))
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            reanchor(self.view.policy, self.view.rollout_buffer)
            self.view.train()
        except BaseException as error:  # re-raised in the collecting thread by `finish`
            self.error = error

    def finish(self, model: MaskablePPO) -> None:
        """Wait for the update, then hand its counters, the step it trained through and its logged values to
        `model`."""
        self.join()
        if self.error is not None:
            raise self.error
        model._n_updates = self.view._n_updates
        model.trained_steps = self.step
        for key, value in self.view.logger.name_to_value.items():
            model.logger.record(key, value)


def learn_overlapped(
    model: MaskablePPO, total_timesteps: int, callback: Any, log_interval: int, tb_log_name: str, reset: bool
) -> MaskablePPO:
    """MaskablePPO.learn with update k on a thread while rollout k+1 is collected by the policy before it."""
    total_timesteps, callback = model._setup_learn(total_timesteps, callback, reset, tb_log_name, False)
    callback.on_training_start(locals(), globals())
    learner = model.policy
    behaviour = frozen_copy(learner)
    buffers = [model.rollout_buffer, copy.deepcopy(model.rollout_buffer)]
    update: _Update | None = None
    iteration = 0
    try:
        while model.num_timesteps < total_timesteps:
            model.policy, model.update_running = (behaviour, True) if update is not None else (learner, False)
            try:
                buffer = buffers[iteration % 2]
                collected = model.collect_rollouts(model.env, callback, buffer, model.n_steps)
            finally:
                model.policy, model.update_running = learner, False
            if update is not None:
                update.finish(model)
                update = None
                behaviour.load_state_dict(learner.state_dict())
                _update_ended(callback)
            if not collected:
                break
            iteration += 1
            model._update_current_progress_remaining(model.num_timesteps, total_timesteps)
            if log_interval is not None and iteration % log_interval == 0:
                model.dump_logs(iteration)
            update = _Update(model, buffer)
            update.start()
        if update is not None:
            update.finish(model)
            update = None
            _update_ended(callback)
    finally:
        if update is not None:  # interrupted: let the update end before anyone reads the learner
            update.join()
            if update.error is None:
                model.trained_steps = update.step
    callback.on_training_end()
    return model


def _update_ended(callback) -> None:
    """Tell a callback that waits for updates (`SelfPlayCallback`) that the learner may be read again."""
    hook = getattr(callback, "on_update_end", None)
    if hook is not None:
        hook()
