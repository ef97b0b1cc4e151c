"""Cromlet: claim cromlets at the right moment with the cards you are dealt.

Layers: `board` (the printed board), `rules` (Game and State), `observe` (the Observer), `render`
(text and pictures); `tabletop.envs.cromlet_v0` composes them into the environment.
"""
