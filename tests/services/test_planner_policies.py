"""Other eviction policies at a plan's pooled capacity: exact replays of one cache that size, LRU's
the plan's own figure (which an LRU replay equals), and the page's curves checked against them."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.engine.mrc import policy_mrc
from dashboard.engine.readers import read_trace
from dashboard.services import planner, planner_policies
from dashboard.services.policy_curves import exact_token_hit_ratios, token_hit_at
from tests.conftest import data_dir

CONVERSATION = data_dir() / "traces" / "mooncake-fast25" / "conversation_trace.jsonl"


@pytest.fixture(scope="module")
def planned():
    trace = read_trace(str(CONVERSATION))
    plan = planner.plan(trace, planner.PlanRequest(target="hit", target_value=0.3))
    return trace, plan, planner_policies.at_plan(trace, plan, ["oracle", "arc"])


def test_each_answer_is_read_at_its_pooled_capacity_and_lru_is_the_plans_own_figure(planned):
    trace, plan, rows = planned
    answered = [o for o in plan.options if o.num_pods is not None]
    assert [r.hardware for r in rows] == [o.hardware for o in answered] and rows
    for row, option in zip(rows, answered, strict=True):
        assert row.pooled_blocks == option.num_pods * max(
            option.hbm_blocks_per_pod, option.cpu_blocks_per_pod
        )
        assert list(row.token_hit_ratio) == ["lru", "oracle", "arc"]
        # NOTE: the planner's one-pass LRU figure and a replay of the LRU kernel agree exactly
        assert row.token_hit_ratio["lru"] == option.point.token_hit_ratio
        assert row.token_hit_ratio["lru"] == exact_token_hit_ratios(trace, "lru", [row.pooled_blocks])[0]


def test_another_policys_figure_is_the_exact_sweep_at_that_capacity(planned):
    trace, _, rows = planned
    for row in rows:
        for policy in ("oracle", "arc"):
            swept = policy_mrc(trace, policy, np.array([row.pooled_blocks])).token_hit_ratio[0]
            assert row.token_hit_ratio[policy] == swept


def test_a_sampled_curve_is_checked_against_the_readouts_once_per_capacity(planned):
    trace, _, rows = planned
    # NOTE: a policy on heaps: sampled on this trace
    sampled = planner_policies.planner_curve(trace, "oracle")
    exact = planner_policies.planner_curve(trace, "arc")
    checks = planner_policies.curve_checks(rows, [sampled, exact])
    assert not sampled.is_exact and exact.is_exact  # an exact curve needs no check
    assert [c.capacity_blocks for c in checks] == sorted({r.pooled_blocks for r in rows})
    by_capacity = {r.pooled_blocks: r.token_hit_ratio["oracle"] for r in rows}
    for check in checks:
        assert check.policy == "oracle" and check.exact == by_capacity[check.capacity_blocks]
        assert check.curve == token_hit_at(sampled.curve, check.capacity_blocks)
        assert check.error <= sampled.max_abs_error


def test_an_option_without_an_answer_has_no_row(planned):
    trace, _, _ = planned
    unmet = planner.plan(trace, planner.PlanRequest(target="hit", target_value=0.99, hardware=("gh200",)))
    assert unmet.options[0].num_pods is None
    assert planner_policies.at_plan(trace, unmet, ["s3fifo"]) == []


def test_each_replay_is_reported_as_it_ends(planned):
    trace, plan, rows = planned
    ended: list[int] = []
    again = planner_policies.at_plan(trace, plan, ["oracle", "arc"], on_replayed=lambda: ended.append(1))
    assert again == rows  # NOTE: on threads, the same figures
    assert (
        len(ended)
        == planner_policies.plan_replays(plan, ["oracle", "arc"])
        == 2 * len({r.pooled_blocks for r in rows})
    )
