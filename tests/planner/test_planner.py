"""The planner: its hit ratios are the exact LRU curve's, its answers are the smallest pod counts that meet."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dashboard.core.config import SAMPLE_TRACE, SAMPLE_TRACE_LABEL
from dashboard.engine.mrc import lru_mrc
from dashboard.engine.plan_math import HitOracle, mg1_wait_s
from dashboard.engine.readers import read_trace
from dashboard.services import planner
from dashboard.services.planner import PlanRequest
from dashboard.services.planner_traces import load_planner_trace
from dashboard.ui import planner_charts


@pytest.fixture(scope="module")
def trace(mooncake_conversation):
    return read_trace(str(mooncake_conversation), "mooncake")


@pytest.fixture(scope="module")
def oracle(trace):
    return HitOracle(trace)


def test_oracle_token_hits_equal_the_exact_lru_curve_at_every_capacity(trace, oracle):
    caps = np.array([0, 1827, 18279, 60000, trace.num_blocks])
    curve = lru_mrc(trace, caps)
    got = [oracle.hit_tokens(c).sum() / trace.input_tokens.sum() for c in caps]
    np.testing.assert_allclose(got, curve.token_hit_ratio, rtol=1e-12)


def test_a_hit_target_gets_the_smallest_pod_count_that_reaches_it(trace, oracle):
    result = planner.plan(trace, PlanRequest(target="hit", target_value=0.3, hardware=("h100-sxm",)), oracle)
    option = result.options[0]
    assert option.point.token_hit_ratio >= 0.3
    fewer = planner.evaluate_pods(
        oracle,
        planner.latency_model("h100-sxm", "llama-3.1-8b"),
        option.hbm_blocks_per_pod,
        option.cpu_blocks_per_pod,
        option.num_pods - 1,
    )
    assert fewer.token_hit_ratio < 0.3 or fewer.utilization > planner.MAX_UTILIZATION


def test_an_unreachable_hit_target_says_so_instead_of_a_pod_count(trace, oracle):
    result = planner.plan(
        trace, PlanRequest(target="hit", target_value=0.95, hardware=("gh200",), max_pods=64), oracle
    )
    assert result.options[0].num_pods is None and "not met" in result.options[0].note


def test_cpu_tier_hits_behind_nvlink_c2c_cost_less_ttft_than_behind_pcie(trace, oracle):
    result = planner.plan(trace, PlanRequest(hardware=("gh200", "h100-sxm"), target_value=0.3), oracle)
    gh200, h100 = result.options
    assert gh200.cpu_hit_ttft_s < h100.cpu_hit_ttft_s
    assert gh200.gpu_hit_ttft_s <= gh200.cpu_hit_ttft_s < gh200.miss_ttft_s


def test_cost_is_pods_times_the_price_per_gpu_hour(trace, oracle):
    result = planner.plan(
        trace, PlanRequest(target_value=0.3, hardware=("h200",), price_per_gpu_hour=3.5), oracle
    )
    option = result.options[0]
    assert option.cost_per_hour == pytest.approx(option.num_pods * 3.5)


def test_the_export_caption_carries_each_hardware_options_answer_or_why_there_is_none(trace, oracle):
    req = PlanRequest(target_value=0.3, hardware=("h200", "h100-sxm"), price_per_gpu_hour=3.5, max_pods=64)
    met = planner.plan(trace, req, oracle)
    inputs, _, _ = planner.caption_parts(met)
    h200 = met.options[0]
    assert inputs.startswith("plan for token hit ratio ≥ 30%; model llama-3.1-8b; $3.5/GPU-hour;")
    assert (
        f"h200: {h200.num_pods} pod{'s' if h200.num_pods > 1 else ''}, "
        f"{h200.hbm_kv_bytes_per_pod / 1e9:.1f} GB HBM + {h200.cpu_kv_bytes_per_pod / 1e9:.1f} GB CPU KV per pod, "
        f"${h200.num_pods * 3.5:.2f}/h"
    ) in inputs
    assert "h100-sxm: " in inputs
    unmet = planner.plan(trace, PlanRequest(target_value=0.95, hardware=("gh200",), max_pods=64), oracle)
    assert planner.caption_parts(unmet)[0].endswith("; gh200: target not met with 64 pods")


def test_the_curve_contains_the_answer(trace, oracle):
    option = planner.plan(trace, PlanRequest(target_value=0.3, hardware=("gh200",)), oracle).options[0]
    assert option.point in option.curve
    ratios = [p.token_hit_ratio for p in option.curve]
    assert ratios == sorted(ratios)  # more pods, more pooled cache, never fewer hits


def test_a_saturated_pod_has_an_unbounded_wait():
    wait, rho = mg1_wait_s(np.array([1.0, 1.0]), arrivals_per_s=2.0)
    assert rho == 2.0 and wait == float("inf")


@pytest.mark.parametrize(
    ("text", "flag"), [("hit", "--target"), ("ttft-p90=abc", "not a number"), ("latency=1", "--target")]
)
def test_bad_targets_are_refused_with_the_reason(text, flag):
    with pytest.raises(ValueError, match=flag):
        planner.parse_target(text)


def test_the_side_by_side_tier_curves_show_pcie_cpu_hits_falling_behind_with_length():
    gh200, h100 = planner.tier_ttft_by_length(("gh200", "h100-sxm"), "llama-3.1-8b")
    gaps = [h - g for g, h in zip(gh200.cpu_hit_s, h100.cpu_hit_s, strict=True)]
    assert all(gap > 0 for gap in gaps) and gaps == sorted(gaps)
    assert all(g <= c < m for g, c, m in zip(h100.gpu_hit_s, h100.cpu_hit_s, h100.miss_s, strict=True))


def test_the_tier_chart_labels_each_log_tick_with_its_whole_value_and_unit():
    """Plotly's "D2" ticks labelled 2× and 5× with a bare "2" and "5", read as seconds on a TTFT axis."""
    curves = planner.tier_ttft_by_length(("gh200", "h100-sxm"), "llama-3.1-8b")
    fig = planner_charts.tier_ttft_chart(curves, "llama-3.1-8b")
    seconds = [s for c in curves for s in (*c.gpu_hit_s, *c.cpu_hit_s, *c.miss_s)]
    y = fig.layout.yaxis
    assert y.type == "log" and y.dtick is None
    assert all(label.endswith((" ms", " s")) for label in y.ticktext)
    assert y.tickvals[0] <= min(seconds) and y.tickvals[-1] >= max(seconds)
    x = fig.layout.xaxis
    assert x.type == "log" and x.dtick is None and x.tickformat == "~s"
    assert {f"{v:.0e}"[0] for v in x.tickvals} == {"1", "2", "5"}
    assert x.tickvals[0] <= min(curves[0].prompt_tokens) < max(curves[0].prompt_tokens) <= x.tickvals[-1]


def test_the_plan_chart_labels_ttft_with_units_and_its_target_at_the_targets_height(trace, oracle):
    req = PlanRequest(target="ttft-p90", target_value=0.3, hardware=("h100-sxm", "h20"), max_pods=64)
    fig = planner_charts.plan_curve_chart(planner.plan(trace, req, oracle))
    ttft = fig.layout.yaxis2
    assert ttft.type == "log" and all(label.endswith((" ms", " s")) for label in ttft.ticktext)
    # Plotly places an annotation on a log axis at the log of its y: at 0.3 it stood at 2 s
    (target,) = [a for a in fig.layout.annotations if a.text == "target"]
    assert target.yref == "y2" and target.y == pytest.approx(math.log10(0.3))
    (line,) = [s for s in fig.layout.shapes if s.line.dash == "dash"]
    assert line.y0 == line.y1 == 0.3 and line.yref == "y2"
    pods = fig.layout.xaxis2  # up to 64 pods: '20', '50', not a bare '2' and '5' after '10'
    assert pods.type == "log" and pods.tickformat == "~s" and 20.0 in pods.tickvals


def test_within_a_decade_the_plan_chart_still_labels_several_ttft_ticks(trace, oracle):
    fig = planner_charts.plan_curve_chart(planner.plan(trace, PlanRequest(target_value=0.3), oracle))
    ttfts = [y for d in fig.data if d.yaxis == "y2" for y in d.y if math.isfinite(y)]  # inf: overloaded
    assert max(ttfts) < 10 * min(ttfts)  # one decade or less
    shown = [t for t in fig.layout.yaxis2.tickvals if min(ttfts) <= t <= max(ttfts)]
    assert len(shown) >= 2


def test_a_plan_of_the_embedded_sample_names_it_in_its_caption_not_this_machines_path():
    sample = load_planner_trace(None, "sample")
    source = planner.caption_parts(planner.plan(sample, PlanRequest(hardware=("h200",))))[2]
    assert source == SAMPLE_TRACE_LABEL and str(SAMPLE_TRACE) not in source
