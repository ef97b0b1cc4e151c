"""Chromino: lay 1×3 colour tiles so that every touching square matches; first to empty the hand wins.

Layers: `tiles` (the 80 tiles), `table` (the grid and the placement search), `actions` (the action
index arithmetic), `rules` (Game and State), `observe` (the Observer), `render` (text and pictures);
`tabletop.envs.chromino_v1` composes them into the environment.
"""
