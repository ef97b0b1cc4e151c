"""KRZ GRTN: the cooperative consonant-clue game.

Layers: `tiles` (the letter tiles), `pictures` (the picture deck and its features), `actions` (the
action layout), `rules` (Game and State), `observe` (the Observer), `render` (text and pictures);
`tabletop.envs.krz_grtn_v1` composes them into the environment.
"""
