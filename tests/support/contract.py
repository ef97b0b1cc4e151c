"""The contract test's configurations of every shipped game: every variant, the smallest and largest player counts, both observation and reward modes (the soak and the observation bounds run on them too)."""

from __future__ import annotations

import json

BOTH_MODES = {"observation_mode": "omniscient", "reward": "score"}


CONFIGS: dict[str, list[dict]] = {
    "cromlet_v0": [{}, {"num_players": 6}, {"num_players": 4, "teams": 2}, {"num_players": 6, "teams": 3}, BOTH_MODES],
    "chromino_v1": [
        {},
        {"variant": "junior"},
        {"variant": "expert", "num_players": 8},
        {"variant": "solo", "num_players": 1},
        {"num_players": 8},
        {"variant": "expert", "grid_size": 15, "hand_size": 5, "out_bonus": 5, "tile_penalty": 3},
        BOTH_MODES,
        {"features": ["lookahead"]},
        {"features": ["lookahead"], "variant": "junior", "observation_mode": "omniscient"},
    ],
    "kings_cribbage_v0": [
        {},
        {"num_players": 4},
        {"variant": "solitaire"},
        {"board_size": 5},
        {"board_size": 5, "stall_rounds": 1},
        {"board_size": 26},
        BOTH_MODES,
        {"action_mode": "moves"},
        {"action_mode": "moves", "max_moves": 3, "board_size": 5, "num_players": 4},
        {"action_mode": "moves", "variant": "solitaire", **BOTH_MODES},
    ],
    "krz_grtn_v1": [
        {},
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 6},
        {"blanks_per_player": 0, "levels": [3, 4, 5, 5, 6, 6], "lives": 2},
        {"lives": 0},
        {"level_candidates": [3, 4, 5, 6, 7, 12]},
        BOTH_MODES,
        {"features": ["roles"]},
        {"features": ["roles"], "num_players": 2, "observation_mode": "omniscient"},
    ],
}


CASES = [(env_id, config) for env_id, configs in CONFIGS.items() for config in configs]


IDS = [f"{env_id}-{json.dumps(config, sort_keys=True)}" for env_id, config in CASES]
