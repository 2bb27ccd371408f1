"""Issue 12.7: the Overview and Traces pages export any chart they drew as a captioned PNG or HTML."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.ui.export import export_html
from tests.ui.apptest import APP
from tests.ui.test_traces_page import build_two_traces, open_page


def offered(at: AppTest, key: str) -> list[str]:
    """Turn the page's export toggle on; the charts it then offers."""
    at.toggle(key=f"{key}_on").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    return list(at.selectbox(key=f"{key}_chart").options)


def test_the_overview_offers_every_chart_of_its_section_with_a_caption(monkeypatch, sample_db):
    monkeypatch.setenv("KVSCOPE_DB", str(sample_db))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not [b for b in at.get("download_button")]  # nothing is built until asked
    titles = offered(at, "overview_export")
    drawn = [c.proto.spec for c in at.get("plotly_chart")]
    assert len(titles) == len(drawn) == 4
    assert titles[0].startswith("Prefix-cache hit rate, HBM")
    assert [b for b in at.get("download_button")]  # Download HTML is ready, PNG behind its toggle
    at.selectbox(key="overview_export_chart").set_value(titles[2]).run()
    assert not at.exception


def test_the_export_caption_names_scope_section_window_and_store(monkeypatch, sample_db):
    import plotly.graph_objects as go

    from dashboard.ui.export import caption_text

    caption = caption_text("cluster · Hit rates & TTFT", "2026-11-30 00:00 → 06:00 UTC", f"store {sample_db}")
    page = export_html(go.Figure(layout={"title": {"text": "t"}}), caption)
    assert "cluster · Hit rates &amp; TTFT" in page and "store " in page and "kvscope " in page


def test_the_traces_page_offers_its_charts(monkeypatch, tmp_path):
    at = open_page(monkeypatch, build_two_traces(tmp_path), {"traces_name": "tiny"})
    titles = offered(at, "traces_export")
    assert len(titles) == len([c for c in at.get("plotly_chart")]) >= 5
    assert any(t.startswith("Arrival rate") for t in titles)
