"""How strong is an agent: seeded tournaments, win rates against the baselines, round-robin ratings,
and random-play throughput against PettingZoo's classic envs. Needs no torch unless a player does."""
