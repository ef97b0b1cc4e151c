"""What a person is told a config or suite key allows is words and numbers: never code, `None` or `null`."""

from __future__ import annotations

import pytest

from tabletop.train.benchmark.suite import TASK
from tabletop.train.selfplay.config import RUN, SECTIONS

CODE = ("None", "null", " // ", " in [", ">=", "<=")


def _params(section, path):
    yield from ((f"{path}{p.name}", p) for p in section.params)
    for name, child in section.children.items():
        yield from _params(child, f"{path}{name}.")


KEYS = (
    [(p.name, p) for p in RUN]
    + [k for name, section in SECTIONS.items() for k in _params(section, f"{name}.")]
    + [(f"tasks.NAME.{p.name}", p) for p in TASK]
)


@pytest.mark.parametrize("key, param", KEYS, ids=[k for k, _ in KEYS])
def test_every_config_keys_allowed_values_read_as_words(key, param):
    text = f"{param.describe_allowed()} {param.doc}"
    assert not any(code in text for code in CODE), f"{key}: {text}"
