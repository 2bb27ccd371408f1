"""bench/read_floor.py: the reading floor parses every integer of a real trace, on any number of parts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench.read_floor import count_integers, read_floor

TRACE = Path(__file__).resolve().parent / "data" / "traces" / "mooncake-fast25" / "conversation_trace.jsonl"


def integers_by_json(path: Path) -> tuple[int, int]:
    """(how many integers, their sum) over every record's values, as Python's json reads them."""
    count = total = 0
    for line in path.read_text().splitlines():
        for value in json.loads(line).values():
            values = value if isinstance(value, list) else [value]
            count += len(values)
            total += sum(values)
    return count, total


def test_the_floor_parses_every_integer_of_the_conversation_trace_as_json_does():
    expected = integers_by_json(TRACE)
    buf = np.fromfile(TRACE, np.uint8)
    assert count_integers(buf, 1) == expected
    # NOTE: a part boundary may split one integer in two, so more parts count at least as many
    assert count_integers(buf, 2)[0] in (expected[0], expected[0] + 1)


@pytest.mark.parametrize("text, expected", [(b"", (0, 0)), (b"7", (1, 7)), (b'{"a": [10, 2]}\n', (2, 12))])
def test_digit_runs_at_the_edges_count_once(text, expected):
    assert count_integers(np.frombuffer(text, np.uint8), 1) == expected


def test_read_floor_reports_both_passes_and_the_integers():
    touch_s, parse_s, found = read_floor(TRACE, 2, repeats=1)
    assert touch_s > 0 and parse_s > 0
    assert found in (integers_by_json(TRACE)[0], integers_by_json(TRACE)[0] + 1)
