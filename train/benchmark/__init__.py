"""The benchmark: tasks over the games, algorithm families behind one key, a resumable runner, reports."""
