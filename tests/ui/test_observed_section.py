"""The Overview's "Observed vs replayed" section: run only when chosen, then two charts and the verdicts."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests.ui.apptest import APP


def test_the_replay_runs_only_when_asked_and_then_shows_both_sides_and_what_the_gap_means(
    monkeypatch, sample_db
):
    monkeypatch.setenv("KVSCOPE_DB", str(sample_db))
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not any("Replayed:" in c.value for c in at.caption)
    at.radio(key="overview_section").set_value("Observed vs replayed").run()
    assert not at.exception, [e.value for e in at.exception]
    (caption,) = [c.value for c in at.caption if c.value.startswith("Replayed:")]
    assert "requests routed as observed" in caption and "llama-3.1-8b on h100-sxm" in caption
    verdicts = [m.value for m in at.markdown if m.value.startswith("- GPU hit rate")]
    assert verdicts and "replay within" in verdicts[0]
    # Both charts mark the sample's events and findings, as every other time chart does
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    charts = {spec["layout"]["title"]["text"]: spec for spec in specs}
    for title in ("Hit rate, cluster", "TTFT, cluster"):
        labels = {a["text"] for a in charts[title]["layout"].get("annotations", [])}
        assert {"routing", "restart", "burst", "finding: routing"} <= labels, (title, labels)


def test_a_link_with_the_replay_on_reopens_the_section_with_its_hardware(monkeypatch, sample_db):
    monkeypatch.setenv("KVSCOPE_DB", str(sample_db))
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(overview_section="Observed vs replayed", overview_replay_hw="h20")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (caption,) = [c.value for c in at.caption if c.value.startswith("Replayed:")]
    assert "on h20" in caption
    verdicts = [m.value for m in at.markdown if m.value.startswith("- TTFT p99")]
    assert verdicts and "over the observed" in verdicts[0]
