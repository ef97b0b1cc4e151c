"""The rollout buffer PPO's minibatches come from, without SB3's copy of a whole rollout of observations.

Before its first minibatch SB3 turns every array of a finished rollout from [step, env] into [env * steps]
order, which for the observations is a copy of the whole rollout (Chromino: 4,096 x 25,493 floats, 418 MB),
made again by the overlapped update's re-anchoring, and it allocates a fresh [step, env] array for every
rollout, paged in again as it fills. Here the observations stay where they were collected: every minibatch
gathers its rows from them in SB3's order (flat sample i is env i // steps, step i % steps), so the samples,
and so training, are the same bit for bit, and the array is kept from one rollout to the next (every row is
written again before it is read). A minibatch's observations are gathered into one block kept from one
minibatch to the next (a fresh 104 MB block for each of Chromino's minibatches cost page faults, up to 0.2 s
a minibatch), and its other arrays are gathered fresh, so torch takes them all as they are (SB3 copies each
once more). A minibatch's observations are therefore valid until the next minibatch is drawn, which is how
PPO's update uses them.

With `sparse` (a policy whose first layers read `SparseRows`) the buffer keeps each observation's nonzero
features instead (indices and values, padded to the longest row so far) and a minibatch is `SparseRows`
cut to its own longest row: Chromino's rows hold about 45 nonzero values of 12,488. Where the first rows are
too dense for the bag to pay (`bag_pays`: Cromlet's), the buffer keeps dense rows.
"""

from __future__ import annotations

from collections.abc import Generator

import numpy as np
import torch
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples

from tabletop.agents.networks.sparse import SparseRows, bag_pays, most_active, padded_nonzero

FLATTENED = ("actions", "values", "log_probs", "advantages", "returns", "action_masks")  # the small arrays


class GatheringRolloutBuffer(MaskableRolloutBuffer):
    """MaskableRolloutBuffer whose observations are gathered per minibatch instead of flattened per rollout."""

    def __init__(self, *args, sparse: bool = False, **kwargs):
        self.sparse, self.first_add = sparse, True  # the first rows show whether the game's rows are sparse
        super().__init__(*args, **kwargs)

    def reset(self) -> None:
        kept = getattr(self, "observations", None)
        super().reset()  # a fresh zeroed array: allocated lazily, dropped here unused
        if self.sparse:  # SB3's `add` writes one placeholder column; the observations go to `active`/`weights`
            self.observations = np.zeros((self.buffer_size, self.n_envs, 1), dtype=np.float32)
            if getattr(self, "active", None) is None:
                self.active = np.zeros((self.buffer_size, self.n_envs, 1), dtype=np.int64)
                self.weights = np.zeros((self.buffer_size, self.n_envs, 1), dtype=np.float32)
                self.counts = np.zeros((self.buffer_size, self.n_envs), dtype=np.int64)
        elif kept is not None and kept.shape == self.observations.shape:
            self.observations = kept

    def add(self, obs: np.ndarray, *args, **kwargs) -> None:
        if self.sparse and self.first_add and not bag_pays(most_active(obs), self.obs_shape[0]):
            self.sparse = False  # rows too dense for the bag (Cromlet): kept dense, as the policy reads them
            self.observations = np.zeros((self.buffer_size, self.n_envs, *self.obs_shape), dtype=np.float32)
        self.first_add = False
        if not self.sparse:
            return super().add(obs, *args, **kwargs)
        obs = torch.as_tensor(obs, dtype=torch.float32).reshape(self.n_envs, -1)
        rows, columns, slots, counts = (t.numpy() for t in padded_nonzero(obs))
        longest = int(counts.max(initial=0))
        if longest > self.active.shape[2]:  # a longer row than any before: twice as wide, padding with 0
            wider = ((0, 0), (0, 0), (0, 2 * max(longest, self.active.shape[2]) - self.active.shape[2]))
            self.active, self.weights = np.pad(self.active, wider), np.pad(self.weights, wider)
        self.active[self.pos], self.weights[self.pos] = 0, 0.0
        self.active[self.pos, rows, slots] = columns
        self.weights[self.pos, rows, slots] = obs.numpy()[rows, columns]
        self.counts[self.pos] = counts
        super().add(self.observations[self.pos], *args, **kwargs)

    def flat_observations(self, indices: np.ndarray) -> torch.Tensor | SparseRows:
        """The observations of flat samples `indices`, in SB3's env-major order, in the kept minibatch block
        (sparse: as `SparseRows`, as wide as the longest of them)."""
        env, step = np.divmod(indices, self.buffer_size)
        if self.sparse:
            width = max(int(self.counts[step, env].max(initial=0)), 1)
            active, weights = self.active[step, env, :width], self.weights[step, env, :width]
            return SparseRows(torch.from_numpy(active), torch.from_numpy(weights))
        rows = torch.from_numpy(self.observations.reshape(-1, *self.obs_shape))
        block = getattr(self, "_minibatch", None)
        if block is None or len(block) < len(indices):  # the largest minibatch so far
            block = self._minibatch = torch.empty((len(indices), *rows.shape[1:]), dtype=rows.dtype)
        return torch.index_select(rows, 0, torch.from_numpy(step * self.n_envs + env), out=block[: len(indices)])

    def get(self, batch_size: int | None = None) -> Generator[MaskableRolloutBufferSamples, None, None]:
        assert self.full, ""
        samples = self.buffer_size * self.n_envs
        indices = np.random.permutation(samples)  # as SB3 draws it: the same minibatches under a seed
        if not self.generator_ready:
            for name in FLATTENED:
                self.__dict__[name] = self.swap_and_flatten(self.__dict__[name])
            self.generator_ready = True
        batch_size = samples if batch_size is None else batch_size
        for start in range(0, samples, batch_size):
            yield self._get_samples(indices[start : start + batch_size])

    def _get_samples(self, batch_inds: np.ndarray, env=None) -> MaskableRolloutBufferSamples:
        data = (
            self.actions[batch_inds],
            self.values[batch_inds].flatten(),
            self.log_probs[batch_inds].flatten(),
            self.advantages[batch_inds].flatten(),
            self.returns[batch_inds].flatten(),
            self.action_masks[batch_inds].reshape(-1, self.mask_dims),
        )
        arrays = (self.to_torch(array, copy=False) for array in data)  # not copied again
        return MaskableRolloutBufferSamples(self.flat_observations(batch_inds), *arrays)
