"""The `moves` network kind (Kings Cribbage with `action_mode="moves"`): one scorer shared by every offered move.

A turn offers up to K whole moves, each described by one row of the Observer's `moves` segment (points, tiles
laid and kept, where they go, the lines they make). Learning "play slot i" as K unrelated outputs would make
the policy relearn the same judgement for every slot; here each move's logit comes from that move's row alone
(plus a context shared by the turn), through weights shared by all slots, so what is learnt about a move holds
wherever it is offered. The parts:

- context: the seat's rack, scores, rack and bag sizes, turn and phase, and the board read by two small
  convolutions (weights shared across cells), pooled;
- a move's embedding: its feature row, the convolved board at the cells it fills (averaged over its tiles:
  what lies around the tiles it lays) and the context; `blocks` residual updates let each move see the best
  (max-pooled) of the real moves offered with it, so a move is judged against its alternatives;
- exchanges (no move exists): the tiles each one returns, scored by a second shared scorer, plus a per-action
  bias from the pooled context (the plain pass is exchange 0, which returns nothing).

The critic is a separate MLP (`hidden`) over the context numbers, the board planes and the best value of each
move feature, so fitting values never moves the policy's weights. Gathers, pooling and small convolutions
only: it exports to ONNX like the MLP.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from tabletop.train.selfplay.policy import StructuredPolicy

GLOBAL_SEGMENTS = ("rack", "scores", "rack_sizes", "bag_sizes", "to_move", "phase", "passes")
BOARD_SEGMENTS = ("board_rank", "board_colour")  # side by side in the layout: the board's channels
BOARD_CHANNELS = 16  # convolution channels over the 13x13 board: the board is context here, not the decision
PLACED = 4  # a move row's `placed` columns per tile: row, column, value, dark


def move_structure(layout, board_size: int) -> dict[str, Any]:
    """Where a moves-mode Kings Cribbage observation keeps what the `moves` network reads, as plain data (saved
    with the model). Raises ValueError for an observation without offered moves (tiles mode)."""
    from tabletop.envs.kings_cribbage.move_features import COLUMNS, NUM_FEATURES
    from tabletop.envs.kings_cribbage.rules import EXCHANGE_CHOICES
    from tabletop.envs.kings_cribbage.scoring import MAX_HAND
    from tabletop.envs.kings_cribbage.tiles import NUM_KINDS

    names = {segment.name for segment in layout.segments}
    if "moves" not in names:
        raise ValueError("network.kind 'moves' reads the offered moves of kings_cribbage_v0 with action_mode='moves'")
    rank, colour = (layout.slice(name) for name in BOARD_SEGMENTS)
    assert rank.stop == colour.start, "the board's planes must lie side by side"
    cells = board_size * board_size
    global_index: list[int] = []
    for name in GLOBAL_SEGMENTS:
        global_index += list(range(layout.slice(name).start, layout.slice(name).stop))
    moves = layout.slice("moves")
    return {
        "board_offset": rank.start,
        "board_channels": (colour.stop - rank.start) // cells,
        "board_size": board_size,
        "global_index": global_index,
        "moves_offset": moves.start,
        "max_moves": (moves.stop - moves.start) // NUM_FEATURES,
        "features": NUM_FEATURES,
        "tiles_column": COLUMNS["tiles"].start,
        "placed_column": COLUMNS["placed"].start,
        "max_hand": MAX_HAND,
        "exchanges_offset": layout.slice("exchanges").start,
        "exchange_choices": EXCHANGE_CHOICES,
        "kinds": NUM_KINDS,
    }


class _Block(nn.Module):
    """One residual update of every move: its own embedding and the best (max-pooled) of the real moves."""

    def __init__(self, width: int, activation: type[nn.Module]):
        super().__init__()
        self.own = nn.Linear(width, width)
        self.best = nn.Linear(width, width, bias=False)
        self.act = activation()

    def forward(self, h: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
        best = torch.where(real, h, torch.full_like(h, -1e4)).amax(dim=1, keepdim=True)  # [batch, 1, width]
        best = torch.where(real.any(dim=1, keepdim=True), best, torch.zeros_like(best))  # no move: nothing to pool
        return h + self.act(self.own(h) + self.best(best))


class MoveExtractor(nn.Module):
    """SB3's `mlp_extractor` slot: flat observation -> (one logit per action, value latent).

    The actor's output already is one logit per action, offered moves first and then the exchanges (the
    action layout of moves mode), so the policy's `action_net` is the identity."""

    def __init__(
        self,
        features: int,
        structure: dict[str, Any],
        width: int,
        blocks: int,
        critic: list[int],
        activation: type[nn.Module],
    ):
        super().__init__()
        s = structure
        self.s = dict(s)
        size, channels = s["board_size"], s["board_channels"]
        self.cells = size * size
        self.register_buffer("global_index", torch.as_tensor(s["global_index"], dtype=torch.long), persistent=False)
        num_globals = len(s["global_index"])
        # context: the seat's numbers and the board
        self.board = nn.Sequential(
            nn.Conv2d(channels, BOARD_CHANNELS, 3, padding=1),
            activation(),
            nn.Conv2d(BOARD_CHANNELS, BOARD_CHANNELS, 3, padding=1),
            activation(),
        )
        self.context = nn.Sequential(nn.Linear(num_globals + 2 * BOARD_CHANNELS, width), activation())
        # moves
        self.move_in = nn.Linear(s["features"] + BOARD_CHANNELS, width)
        self.move_context = nn.Linear(width, width, bias=False)
        self.blocks = nn.ModuleList(_Block(width, activation) for _ in range(blocks))
        self.move_logit = nn.Sequential(nn.Linear(width, width), activation(), nn.Linear(width, 1))
        # exchanges
        self.exchange_in = nn.Linear(s["kinds"], width)
        self.exchange_context = nn.Linear(width, width, bias=False)
        self.exchange_logit = nn.Sequential(activation(), nn.Linear(width, 1))
        self.exchange_bias = nn.Linear(width, s["exchange_choices"])
        self.act = activation()
        sizes = [num_globals + channels * self.cells + s["features"], *critic]
        self.critic = nn.Sequential(*[m for a, b in zip(sizes, sizes[1:]) for m in (nn.Linear(a, b), activation())])
        self.latent_dim_pi = s["max_moves"] + s["exchange_choices"]
        self.latent_dim_vf = sizes[-1]

    # --- reading the flat observation ---------------------------------------------------------------
    def _board(self, obs: torch.Tensor) -> torch.Tensor:
        s = self.s
        start = s["board_offset"]
        size = s["board_size"]
        return obs[:, start : start + s["board_channels"] * self.cells].reshape(-1, s["board_channels"], size, size)

    def _moves(self, obs: torch.Tensor) -> torch.Tensor:
        s = self.s
        start = s["moves_offset"]
        return obs[:, start : start + s["max_moves"] * s["features"]].reshape(-1, s["max_moves"], s["features"])

    def _exchanges(self, obs: torch.Tensor) -> torch.Tensor:
        s = self.s
        start = s["exchanges_offset"]
        return obs[:, start : start + s["exchange_choices"] * s["kinds"]].reshape(-1, s["exchange_choices"], s["kinds"])

    def _cells_of(self, moves: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Per move and tile: the cell it fills (long) and 1.0 for a real tile; from the `placed` columns."""
        s = self.s
        start, hand, size = s["placed_column"], s["max_hand"], s["board_size"]
        placed = moves[:, :, start : start + PLACED * hand].reshape(moves.shape[0], moves.shape[1], hand, PLACED)
        row = torch.round(placed[..., 0] * (size - 1))
        col = torch.round(placed[..., 1] * (size - 1))
        cell = (row * size + col).clamp(0, self.cells - 1).to(torch.long)
        return cell, (placed[..., 2] > 0).to(moves.dtype)

    # --- the two heads -------------------------------------------------------------------------------
    def forward_actor(self, obs: torch.Tensor) -> torch.Tensor:
        batch = obs.shape[0]
        globals_ = torch.index_select(obs, 1, self.global_index)
        board = self.board(self._board(obs)).reshape(batch, BOARD_CHANNELS, self.cells)  # [batch, C, cells]
        context = self.context(torch.cat([globals_, board.mean(dim=2), board.amax(dim=2)], dim=1))
        moves = self._moves(obs)
        cell, tile = self._cells_of(moves)  # [batch, K, hand]
        k, hand = cell.shape[1], cell.shape[2]
        index = cell.reshape(batch, 1, k * hand).expand(batch, BOARD_CHANNELS, k * hand)
        around = torch.gather(board, 2, index).reshape(batch, BOARD_CHANNELS, k, hand)
        around = (around * tile.unsqueeze(1)).sum(dim=3) / tile.sum(dim=2).clamp(min=1).unsqueeze(1)
        h = self.act(
            self.move_in(torch.cat([moves, around.transpose(1, 2)], dim=2)) + self.move_context(context).unsqueeze(1)
        )
        real = moves[:, :, self.s["tiles_column"] : self.s["tiles_column"] + 1] > 0  # [batch, K, 1]
        for block in self.blocks:
            h = block(h, real)
        move_logits = self.move_logit(h).squeeze(2)
        exchanges = self.exchange_in(self._exchanges(obs)) + self.exchange_context(context).unsqueeze(1)
        exchange_logits = self.exchange_logit(exchanges).squeeze(2) + self.exchange_bias(context)
        return torch.cat([move_logits, exchange_logits], dim=1)

    def forward_critic(self, obs: torch.Tensor) -> torch.Tensor:
        globals_ = torch.index_select(obs, 1, self.global_index)
        board = self._board(obs).flatten(1)
        return self.critic(torch.cat([globals_, board, self._moves(obs).amax(dim=1)], dim=1))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(obs), self.forward_critic(obs)

    def logit_heads(self) -> list[nn.Module]:
        return [self.move_logit[-1], self.exchange_logit[-1], self.exchange_bias]


class MovePolicy(StructuredPolicy):
    """MaskableActorCriticPolicy with the `moves` network in its `mlp_extractor` slot."""

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = MoveExtractor(
            self.features_dim, self.structure, self.width, self.blocks, self.critic, self.activation_fn
        )
