"""The `board` network kind: convolutions over a game's board planes, for games whose actions choose cells.

A game describes its observation and actions as plain data (its observer's `network_structures`, built with
envs/core/structures.py `board_structure`, saved with the model): which segments are planes of the board, which actions
are "do kind k on cell c" (`cell_base + k * cells + c`), optionally a segment with one row of features per
action of a contiguous range (Chromino's tile-and-orientation choices), and everything else is a global
feature (hand, phase, scores).

The actor is fully convolutional, so what it learns about a cell holds on every cell:
- a trunk of 3x3 residual convolutions whose weights are shared across the board; the globals enter as a
  per-channel bias, and every block also adds the board's mean, so a cell sees the whole position;
- the cell head is a 1x1 convolution: one logit per kind per cell;
- the row head scores every feature row with one small network, given the pooled board (shared weights,
  as with the cells);
- the remaining actions (draw, pass, commit, exchange) come from the pooled board and the globals.
A large mostly empty board is cropped to a `window` square around the occupied area, per observation,
before the trunk (Chromino: 27x27 of 45x45; every placement lies within two cells of a laid tile, so a
window larger than the occupied area plus four holds every legal cell). Cells outside the window get
logit 0; the mask still decides what is legal. The critic is separate (average-pooled planes and the
globals through an MLP, `hidden`), so fitting values never moves the actor's weights.
Everything is convolutions, gathers, scatters and reductions: it exports to ONNX like the MLP.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from tabletop.agents.networks.common import hidden_layers

CRITIC_POOL = 3  # the critic reads the window average-pooled over 3x3 squares


class _Block(nn.Module):
    """One residual update: a 3x3 convolution plus the board's mean, so every cell also sees the whole."""

    def __init__(self, width: int, activation: type[nn.Module]):
        super().__init__()
        self.conv = nn.Conv2d(width, width, 3, padding=1)
        self.board = nn.Linear(width, width, bias=False)
        self.act = activation()

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.act(self.conv(h) + self.board(h.mean(dim=(2, 3)))[:, :, None, None])


class BoardExtractor(nn.Module):
    """SB3's `mlp_extractor` slot: flat observation -> (one logit per action, value latent)."""

    def __init__(
        self, structure: dict[str, Any], width: int, blocks: int, critic: list[int], activation: type[nn.Module]
    ):
        super().__init__()
        s = structure
        self.side, self.window, planes = s["side"], s["window"], [tuple(p) for p in s["planes"]]
        self.cell_base, self.cell_kinds, self.rows = s["cell_base"], s["cell_kinds"], s["rows"]
        channels, cells, num_globals = sum(c for _, c in planes), self.window**2, len(s["global_index"])
        self.register_buffer("global_index", torch.as_tensor(s["global_index"], dtype=torch.long), persistent=False)
        r, c = np.divmod(np.arange(cells), self.window)
        self.register_buffer("window_cells", torch.as_tensor(r * self.side + c, dtype=torch.long), persistent=False)
        self.register_buffer("axis", torch.arange(self.side, dtype=torch.float32), persistent=False)
        area = self.side**2  # where each channel's cells start in the flat observation
        starts = [o + k * area for o, c in planes for k in range(c)]
        self.register_buffer("channel_starts", torch.as_tensor(starts, dtype=torch.long), persistent=False)
        self.runs = self._runs(starts, area)
        self.stem = nn.Conv2d(channels, width, 3, padding=1)
        self.global_in = nn.Linear(num_globals, width, bias=False)
        self.blocks = nn.Sequential(*[_Block(width, activation) for _ in range(blocks)])
        self.act = activation()
        self.cell_logits = nn.Conv2d(width, self.cell_kinds, 1)
        pooled = 2 * width + num_globals
        row_actions = self.rows["count"] if self.rows else 0
        if self.rows:
            self.row_in = nn.Linear(self.rows["features"], width)
            self.row_context = nn.Linear(pooled, width)
            self.row_logit = nn.Linear(width, 1)
        extra = s["num_actions"] - self.cell_kinds * self.side**2 - row_actions
        self.extra_logits = nn.Sequential(nn.Linear(pooled, width), activation(), nn.Linear(width, extra))
        self.register_buffer("order", self._order(s, row_actions, extra), persistent=False)
        critic_in = channels * (self.window // CRITIC_POOL) ** 2 + num_globals
        self.critic = hidden_layers(critic_in, critic, activation)
        self.latent_dim_pi = (
            1  # SB3 sizes its action_net by this; ActorCritic (and the SB3 wrapper) replace it by the identity (a
        )
        # num_actions x num_actions layer would take seconds to initialise: 26M weights for Kings Cribbage)
        self.latent_dim_vf = critic[-1]

    def _order(self, s: dict, row_actions: int, extra: int) -> torch.Tensor:
        """Where each action's logit sits in [cell logits (kind-major), row logits, the rest]."""
        position = np.full(s["num_actions"], -1, dtype=np.int64)
        cell_actions = self.cell_kinds * self.side**2
        position[self.cell_base : self.cell_base + cell_actions] = np.arange(cell_actions)
        if self.rows:
            first = self.rows["first_action"]
            position[first : first + row_actions] = cell_actions + np.arange(row_actions)
        rest = np.flatnonzero(position < 0)
        assert rest.size == extra, "the cell and row actions overlap"
        position[rest] = cell_actions + row_actions + np.arange(extra)
        return torch.as_tensor(position)

    def _inputs(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """(planes [batch, channels, cells], globals [batch, globals], index of each window cell [batch, cells]).

        A window is gathered straight from the observation: the whole board's planes are never copied out
        (for Chromino 11 x 45 x 45 floats a row, most of them outside the window)."""
        area = self.side**2
        segments = [features[:, o : o + c * area].reshape(-1, c, area) for o, c in self.runs]
        globals_ = torch.index_select(features, 1, self.global_index)
        if self.window == self.side:
            return torch.cat(segments, dim=1), globals_, None
        occupied = segments[0].amax(dim=1)  # planes are counts and indicators: a cell is occupied if any is > 0
        for segment in segments[1:]:
            occupied = torch.maximum(occupied, segment.amax(dim=1))
        occupied = (occupied > 0).float().reshape(-1, self.side, self.side)
        origin = [self._origin(occupied.amax(dim=axis)) for axis in (2, 1)]  # rows, columns
        index = self.window_cells.unsqueeze(0) + (origin[0] * self.side + origin[1]).unsqueeze(1)
        flat = (self.channel_starts[None, :, None] + index.unsqueeze(1)).flatten(1)
        planes = torch.gather(features, 1, flat).reshape(-1, len(self.channel_starts), self.window**2)
        return planes, globals_, index

    @staticmethod
    def _runs(starts: list[int], area: int) -> list[tuple[int, int]]:
        """The channels as (offset, channels) runs that lie back to back in the observation, each one view."""
        runs = [(starts[0], 1)]
        for start in starts[1:]:
            offset, channels = runs[-1]
            runs[-1:] = [(offset, channels + 1)] if start == offset + channels * area else [runs[-1], (start, 1)]
        return runs

    def _origin(self, any_on: torch.Tensor) -> torch.Tensor:
        """First row (column) of the window: centred on the occupied span, kept on the board."""
        first = torch.argmax(any_on * (self.side - self.axis), dim=1).float()
        last = torch.argmax(any_on * (self.axis + 1), dim=1).float()
        start = torch.floor((first + last) / 2) - self.window // 2
        return torch.clamp(start, 0, self.side - self.window).long()

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self._actor(self._row_features(features), *self._inputs(features))

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        planes, globals_, _ = self._inputs(features)
        return self._critic(planes, globals_)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Both heads, the window gathered once."""
        planes, globals_, index = self._inputs(features)
        return self._actor(self._row_features(features), planes, globals_, index), self._critic(planes, globals_)

    def forward_split(self, features: torch.Tensor, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The actor on `rows` only and the critic on all (`sb3.skip_forced`), the window gathered once."""
        planes, globals_, index = self._inputs(features)
        chosen = (
            self._row_features(features)[rows],
            planes[rows],
            globals_[rows],
            None if index is None else index[rows],
        )
        return self._actor(*chosen), self._critic(planes, globals_)

    def _row_features(self, features: torch.Tensor) -> torch.Tensor | None:
        """The per-action feature rows' segment [batch, count * features] (a view), or None."""
        if not self.rows:
            return None
        o, n, f = self.rows["offset"], self.rows["count"], self.rows["features"]
        return features[:, o : o + n * f]

    def _actor(
        self,
        row_features: torch.Tensor | None,
        planes: torch.Tensor,
        globals_: torch.Tensor,
        index: torch.Tensor | None,
    ) -> torch.Tensor:
        batch = planes.shape[0]
        x = planes.reshape(batch, -1, self.window, self.window)
        if self.training and torch.is_grad_enabled():  # an update: channels-last convolutions cost half on a CPU
            x = x.contiguous(memory_format=torch.channels_last)
        h = self.blocks(self.act(self.stem(x) + self.global_in(globals_)[:, :, None, None]))
        cells = self.cell_logits(h).reshape(batch, self.cell_kinds, -1)
        if index is not None:  # back from the window to the board; cells outside it get 0
            board = torch.zeros(batch, self.cell_kinds, self.side**2, dtype=cells.dtype)
            cells = board.scatter(2, index.unsqueeze(1).expand(-1, self.cell_kinds, -1), cells)
        pooled = torch.cat([h.mean(dim=(2, 3)), h.amax(dim=(2, 3)), globals_], dim=1)
        parts = [cells.reshape(batch, -1)]
        if self.rows:
            parts.append(self._row_logits(row_features, pooled))
        parts.append(self.extra_logits(pooled))
        return torch.index_select(torch.cat(parts, dim=1), 1, self.order)

    def _row_logits(self, row_features: torch.Tensor, pooled: torch.Tensor) -> torch.Tensor:
        """One logit per row, by the shared scorer. Equal rows (a palindrome's two readings lay the same
        colours) are equally good moves and must tie exactly: float32 matrix products round a row
        differently by where it sits, and torch and onnxruntime would then break the tie differently.
        In float64 those differences vanish when rounded back to float32. The rows' mean is taken off:
        a choice among rows does not see it, and left free it drifted to logits near 100, where float32
        rounding alone exceeds the export check's tolerance."""
        rows = row_features.reshape(-1, self.rows["count"], self.rows["features"]).double()
        hidden = nn.functional.linear(rows, self.row_in.weight.double(), self.row_in.bias.double())
        context = nn.functional.linear(
            pooled.double(), self.row_context.weight.double(), self.row_context.bias.double()
        )
        hidden = self.act(hidden + context.unsqueeze(1))
        logits = nn.functional.linear(hidden, self.row_logit.weight.double(), self.row_logit.bias.double()).squeeze(2)
        return (logits - logits.mean(dim=1, keepdim=True)).float()

    def _critic(self, planes: torch.Tensor, globals_: torch.Tensor) -> torch.Tensor:
        x = planes.reshape(planes.shape[0], -1, self.window, self.window)
        pooled = nn.functional.avg_pool2d(x, CRITIC_POOL).flatten(1)
        return self.critic(torch.cat([pooled, globals_], dim=1))

    def logit_heads(self) -> list[nn.Module]:
        return [self.cell_logits, self.extra_logits[-1]] + ([self.row_logit] if self.rows else [])
