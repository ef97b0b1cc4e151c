"""Kings Cribbage: make or extend crib hands (runs, pairs, fifteens) of 2-5 tiles on a square board.

Layers: `tiles` (tile kinds and faces), `scoring` (crib hands), `rack` and `movegen` (every legal move),
`rules` (Game and State), `observe` (the Observer), `render` (text and pictures);
`tabletop.envs.kings_cribbage_v0` composes them into the environment.
"""
