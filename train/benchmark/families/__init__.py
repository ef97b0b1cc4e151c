"""Algorithm families: each trains a learner on a benchmark task through the `Family` protocol (base.py)."""
