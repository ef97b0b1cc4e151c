"""Self-play training of MaskablePPO: the config schema, the trainer and its run folder, the single-seat
env, the opponent pool, the callbacks around PPO updates and the logs that survive a resume."""
