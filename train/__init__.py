"""Everything around the games that is not a player: training, evaluation, serving, the `tabletop` command.

Rooms, each importing only the ones below it (and `tabletop.agents`, `tabletop.envs`):

    cli.py        the `tabletop` command: parses arguments, builds an `EnvSpec`, calls a room
    selfplay/     self-play training: config, trainer, seat env, opponent pool, callbacks, run logs
    serving/      a trained policy outside training: ONNX export, the JSON agent server, terminal play
    evaluation/   how strong is an agent: tournaments, win rates against baselines, ratings, benchmarks

`selfplay` evaluates its learner as it trains, so it sits above `evaluation`; `serving` needs neither.
Package inits import nothing, so importing one room never loads another (or torch).
"""
