"""The Overview's windows fall on the store's sample blocks (1, 5, 30 min), so a render reads blocks
(issue #17 item 1); short ranges keep their old steps."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from dashboard.core.selection import BLOCK_LEVELS_S, all_data_range, choose_step, time_range

LAST = datetime(2026, 12, 7, 13, 41, 45)
LENGTHS_S = [900, 3600, 3 * 3600, 6 * 3600, 86400, 3 * 86400, 7 * 86400, 7 * 86400 + 1800, 30 * 86400, 12345]


@pytest.mark.parametrize("length_s", LENGTHS_S)
def test_presets_and_all_data_ranges_lie_on_a_block_level(length_s):
    for tr in (time_range(LAST, length_s), all_data_range(LAST - timedelta(seconds=length_s), LAST)):
        level = max(b for b in BLOCK_LEVELS_S if b <= tr.step_s)
        for edge in (tr.start, tr.end):
            assert (edge - datetime(1970, 1, 1)).total_seconds() % level == 0
        assert tr.step_s % level == 0
        assert 60 <= tr.length_s / tr.step_s <= 121 or tr.length_s <= 7200  # all data adds an edge


def test_the_ranges_the_sample_tests_use_keep_their_steps():
    assert [choose_step(s) for s in (900, 3600, 6 * 3600)] == [60, 60, 180]
    assert choose_step(86400) == 900 and choose_step(7 * 86400) == 5400
