"""The What-if charts: every one titled with its unit and axis titles, exported as captioned PNG and self-contained HTML."""

from __future__ import annotations

import pytest

from dashboard.core.scenarios import Scenario
from dashboard.engine.readers import read_trace
from dashboard.services import compare
from dashboard.ui.export import caption_text, export_html, export_png, kvscope_version
from dashboard.ui.whatif_panels import CHARTS


@pytest.fixture(scope="module")
def comparison(mooncake_conversation):
    trace = read_trace(str(mooncake_conversation), "mooncake")
    scenarios = (
        Scenario(num_pods=1, router="round_robin", hbm_blocks=18279),
        Scenario(router="precise_prefix", hbm_blocks=2300, cpu_blocks=6900),
    )
    return compare.compare(trace, scenarios, "conversation_trace.jsonl")


@pytest.mark.parametrize("name", list(CHARTS))
def test_every_comparison_chart_has_a_title_with_a_unit_and_axis_titles(comparison, name):
    fig = CHARTS[name](comparison)
    title, subtitle = fig.layout.title.text, fig.layout.title.subtitle.text
    assert title and subtitle and any(unit in subtitle for unit in ("%", "(s", "requests")), subtitle
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert len(fig.data) >= len(comparison.results)


def test_the_html_export_is_one_self_contained_file_captioned_with_inputs_source_and_version(comparison):
    caption = caption_text(*compare.caption_parts(comparison))
    page = export_html(CHARTS["Hit-rate waterfall"](comparison), caption)
    assert "<script src=" not in page and "Plotly.newPlot" in page  # plotly.js inlined, no CDN
    assert "S1: 1 pod · round_robin" in page and "S2: 8 pods · precise_prefix" in page
    assert "conversation_trace.jsonl" in page and f"kvscope {kvscope_version()}" in page


def test_the_png_export_renders_through_chromium(comparison):
    png = export_png(CHARTS["Miss-ratio curve"](comparison), caption_text(*compare.caption_parts(comparison)))
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000


def test_the_ttft_axis_labels_each_tick_with_its_unit_and_spans_every_bar_and_whisker(comparison):
    fig = CHARTS["TTFT by cache outcome"](comparison)
    axis = fig.layout.yaxis
    assert axis.type == "log" and all(label.endswith((" ms", " s")) for label in axis.ticktext)
    rows = [row for r in comparison.results for row in r.summary.ttft_by_outcome_s.values()]
    assert 10.0 ** axis.range[0] <= min(row["p50"] for row in rows)
    assert 10.0 ** axis.range[1] >= max(row["p99"] for row in rows)
