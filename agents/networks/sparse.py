"""Sparse observations for the first layer: a row's active features as indices and values, read by an embedding bag.

Most of a flat observation is zeros (Chromino: about 45 of 12,488 values are not), so a dense first layer
multiplies and differentiates a [features x width] matrix for a few dozen inputs. `SparseRows` keeps each row's
nonzero features (indices and values, padded with index 0 and value 0, which add nothing and get no gradient),
and `BagLinear` is an `nn.Linear` that also reads them through `F.embedding_bag(mode="sum",
per_sample_weights=...)`: the same function, computed over the active inputs only. Its weight keeps
`nn.Linear`'s shape [out, in] (the state dict and its initialisation are a Linear's), stored as the transpose
of a contiguous [in, out] table, so that a bag reads each active feature's row in one piece. Its gradient is
the sparse product of the rows' transpose and the upstream gradient (`SparseProduct`): torch's own
embedding-bag backward took five times as long over a minibatch of 512 rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class SparseRows(NamedTuple):
    """A batch of observations as the nonzero features of each row: `indices` [rows, width] (int64) and
    `values` [rows, width] (float32), padded with index 0 and value 0 to the longest row."""

    indices: torch.Tensor
    values: torch.Tensor

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, rows) -> SparseRows:
        return SparseRows(self.indices[rows], self.values[rows])

    @property
    def device(self) -> torch.device:
        return self.values.device

    def dense(self, features: int) -> torch.Tensor:
        """The rows as a dense [rows, features] batch."""
        return torch.zeros((len(self), features)).scatter_add_(1, self.indices, self.values)


def padded_nonzero(dense: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(row, column, slot within its row) of each nonzero value of a [rows, features] batch, rows in order, and
    the count per row."""
    rows, columns = dense.nonzero(as_tuple=True)
    counts = torch.bincount(rows, minlength=len(dense))
    starts = counts.cumsum(0) - counts
    return rows, columns, torch.arange(len(rows)) - starts[rows], counts


def sparse_rows(dense: torch.Tensor) -> SparseRows:
    """The nonzero features of every row of a [rows, features] batch, padded to the longest row."""
    dense = dense.detach()
    rows, columns, slots, counts = padded_nonzero(dense)
    width = max(int(counts.max()) if len(counts) else 0, 1)
    indices = torch.zeros((len(dense), width), dtype=torch.int64)
    values = torch.zeros((len(dense), width), dtype=torch.float32)
    indices[rows, slots] = columns
    values[rows, slots] = dense[rows, columns]
    return SparseRows(indices, values)


def bag_pays(active: int, features: int) -> bool:
    """Whether a bag over rows of up to `active` inputs costs less than a dense layer over `features`: on this CPU
    it breaks even near one input in eight active (Cromlet's rows have about 1,000 of 3,598), so up to one in ten."""
    return active * 10 <= features


def most_active(dense: torch.Tensor | np.ndarray) -> int:
    """The largest count of nonzero inputs in a row of a [rows, features] batch."""
    return int((dense != 0).sum(axis=1).max()) if len(dense) else 0


class SparseProduct(torch.autograd.Function):
    """`rows @ table` for `SparseRows` over their nonzero values only (the padding left out): forward an embedding
    bag, backward the table's gradient as one sparse-dense product, `rows.T @ upstream`."""

    @staticmethod
    def forward(ctx, table: torch.Tensor, indices: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        rows, slots = values.nonzero(as_tuple=True)
        columns, weights = indices[rows, slots], values[rows, slots]
        counts = torch.bincount(rows, minlength=len(values))
        ctx.save_for_backward(rows, columns, weights)
        ctx.shape = (len(table), len(values))
        return F.embedding_bag(columns, table, counts.cumsum(0) - counts, mode="sum", per_sample_weights=weights)

    @staticmethod
    def backward(ctx, upstream: torch.Tensor):
        rows, columns, weights = ctx.saved_tensors
        transposed = torch.sparse_coo_tensor(torch.stack([columns, rows]), weights, ctx.shape, check_invariants=False)
        return torch.sparse.mm(transposed, upstream), None, None


class BagLinear(nn.Linear):
    """`nn.Linear` over a dense batch or over `SparseRows` (an embedding bag over the active features), one
    weight for both: equal outputs and gradients up to float rounding."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True):
        super().__init__(in_features, out_features, bias)
        table = self.weight.detach().t().contiguous()  # [in, out]: a feature's weights side by side
        self.weight = nn.Parameter(table.t())  # seen as [out, in], as nn.Linear's

    def store_dense(self) -> None:
        """Keep the weight as nn.Linear does ([out, in] contiguous): for a game whose rows are too dense for the
        bag, a product with few rows is up to half again as fast so (the same Parameter, so optimisers keep it)."""
        if not self.weight.is_contiguous():
            with torch.inference_mode(False), torch.no_grad():  # a rollout's inference mode: a normal tensor still
                self.weight.data = self.weight.data.clone(memory_format=torch.contiguous_format)

    touched: torch.Tensor | None = None  # a lazy optimiser's record: the inputs read since its last step, or None

    def forward(self, features: torch.Tensor | SparseRows) -> torch.Tensor:
        recording = self.touched is not None and torch.is_grad_enabled()
        if not isinstance(features, SparseRows):
            if recording:
                self.touched[:] = True  # a dense batch reaches every input
            return F.linear(features, self.weight, self.bias)
        if recording:
            self.touched[features.indices] = True
        out = SparseProduct.apply(self.weight.t(), features.indices, features.values)
        return out if self.bias is None else out + self.bias
