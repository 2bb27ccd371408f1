"""Other eviction policies at a plan's pooled capacity: LRU's figure is the plan's own, another
policy's is within its stated bound of an exact replay of one cache that size."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.engine.mrc import curve_from_hits
from dashboard.engine.readers import read_trace
from dashboard.engine.replay import replay_single_cache
from dashboard.services import planner, planner_policies
from dashboard.services.policy_curves import token_hit_at
from tests.conftest import data_dir

CONVERSATION = data_dir() / "traces" / "mooncake-fast25" / "conversation_trace.jsonl"


@pytest.fixture(scope="module")
def planned():
    trace = read_trace(str(CONVERSATION))
    plan = planner.plan(trace, planner.PlanRequest(target="hit", target_value=0.3))
    curves = [planner_policies.planner_curve(trace, p) for p in ("lru", "s3fifo")]
    return trace, plan, curves


def test_each_answer_is_read_at_its_pooled_capacity_with_lru_the_plans_own_figure(planned):
    trace, plan, (lru, s3fifo) = planned
    rows = planner_policies.at_plan(plan, lru, [s3fifo])
    answered = [o for o in plan.options if o.num_pods is not None]
    assert [r.hardware for r in rows] == [o.hardware for o in answered] and rows
    for row, option in zip(rows, answered, strict=True):
        assert row.pooled_blocks == option.num_pods * max(
            option.hbm_blocks_per_pod, option.cpu_blocks_per_pod
        )
        assert row.token_hit_ratio["lru"] == option.point.token_hit_ratio
        gap = token_hit_at(s3fifo.curve, row.pooled_blocks) - token_hit_at(lru.curve, row.pooled_blocks)
        assert row.token_hit_ratio["s3fifo"] == pytest.approx(option.point.token_hit_ratio + gap, abs=1e-12)


def test_another_policys_figure_is_within_its_bound_of_an_exact_replay_at_that_capacity(planned):
    trace, plan, (lru, s3fifo) = planned
    assert not s3fifo.is_exact
    for row in planner_policies.at_plan(plan, lru, [s3fifo]):
        hits = replay_single_cache(trace, row.pooled_blocks, "s3fifo")
        exact = curve_from_hits(trace, np.array([row.pooled_blocks]), [hits]).token_hit_ratio[0]
        assert abs(row.token_hit_ratio["s3fifo"] - exact) <= s3fifo.max_abs_error


def test_an_option_without_an_answer_has_no_row(planned):
    trace, _, (lru, s3fifo) = planned
    unmet = planner.plan(trace, planner.PlanRequest(target="hit", target_value=0.99, hardware=("gh200",)))
    assert unmet.options[0].num_pods is None
    assert planner_policies.at_plan(unmet, lru, [s3fifo]) == []
