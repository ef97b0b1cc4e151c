"""Adam that updates an embedding bag's table only in the rows its minibatch read (a "lazy" Adam).

A `BagLinear` first layer over Chromino's 12,488 inputs has 3.2M weights, of which a minibatch reads a few
thousand rows' worth; dense Adam still decays and applies the moments of every row, which was a third of
the sparse learner's update. Here a table's untouched rows keep their weights and moments until a
minibatch reads them again (as TensorFlow's LazyAdam and torch's SparseAdam do); every other weight, and a
table a dense batch reached, gets torch's Adam as it is. The state (`step`, `exp_avg`, `exp_avg_sq`) is
Adam's own, so checkpoints load either way.
"""

from __future__ import annotations

import torch

from tabletop.agents.networks.sparse import BagLinear


class LazyBagAdam(torch.optim.Adam):
    """torch's Adam, lazy in the tables of `bags` (the BagLinear layers among `params`)."""

    def __init__(self, params, bags: list[BagLinear], **kwargs):
        super().__init__(params, **kwargs)
        self.bags = bags
        for bag in bags:
            bag.touched = torch.zeros(bag.in_features, dtype=torch.bool)

    @torch.no_grad()
    def step(self, closure=None):
        lazy = [bag for bag in self.bags if bag.weight.grad is not None and not bag.touched.all()]
        group = next(g for g in self.param_groups if any(p is lazy[0].weight for p in g["params"])) if lazy else None
        if group is not None and (group["weight_decay"] or group["amsgrad"] or group["maximize"]):
            lazy = []  # what the lazy rows do not implement: Adam for all
        held = [bag.weight.grad for bag in lazy]
        for bag in lazy:
            bag.weight.grad = None  # Adam skips a weight without a gradient
        try:
            loss = super().step(closure)
        finally:
            for bag, grad in zip(lazy, held):
                bag.weight.grad = grad
        for bag in lazy:
            self._rows_step(bag.weight, bag.touched.nonzero().squeeze(1), group)
        for bag in self.bags:
            bag.touched.zero_()
        return loss

    def _rows_step(self, weight: torch.Tensor, rows: torch.Tensor, group: dict) -> None:
        """Adam's update of the table's `rows` (a table is `weight.t()`: one row per input feature)."""
        state = self.state[weight]
        if not state:
            state["step"] = torch.tensor(0.0)
            state["exp_avg"] = torch.zeros_like(weight, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(weight, memory_format=torch.preserve_format)
        beta1, beta2 = group["betas"]
        state["step"] += 1
        step = float(state["step"])
        table, mean, square = weight.t(), state["exp_avg"].t(), state["exp_avg_sq"].t()  # one row per input
        grad = weight.grad.t().index_select(0, rows)
        m = mean.index_select(0, rows).lerp_(grad, 1 - beta1)
        v = square.index_select(0, rows).mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        mean.index_copy_(0, rows, m)
        square.index_copy_(0, rows, v)
        size = group["lr"] / (1 - beta1**step)
        denominator = (v / (1 - beta2**step)).sqrt_().add_(group["eps"])
        table.index_copy_(0, rows, table.index_select(0, rows).addcdiv_(m, denominator, value=-size))
