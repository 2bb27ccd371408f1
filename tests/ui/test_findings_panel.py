"""The Overview's findings panel on the sample: it names the routing switch, the restart and the burst."""

from __future__ import annotations

import re
from datetime import date, time
from urllib.parse import parse_qsl

from streamlit.testing.v1 import AppTest

from tests.ui.apptest import APP


def test_overview_lists_the_samples_findings_with_their_causes(monkeypatch, sample_db):
    monkeypatch.setenv("KVSCOPE_DB", str(sample_db))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.sidebar.selectbox(key="sidebar_range").set_value("all data").run()
    assert not at.exception, [e.value for e in at.exception]
    (panel,) = [e for e in at.expander if e.label.startswith("Findings")]
    assert panel.label == "Findings: 4 change(s) in this range"
    text = "\n".join(m.value for m in panel.markdown)
    assert "most likely routing shares shifted" in text
    assert "most likely a pod restarted" in text
    assert "most likely reuse moved to the offload tier" in text


def test_a_findings_link_reopens_the_overview_on_its_window(monkeypatch, sample_db):
    monkeypatch.setenv("KVSCOPE_DB", str(sample_db))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.sidebar.selectbox(key="sidebar_range").set_value("all data").run()
    (panel,) = [e for e in at.expander if e.label.startswith("Findings")]
    link = re.search(r"\[show this window\]\(\?([^)]+)\)", panel.markdown[0].value)
    params = dict(parse_qsl(link.group(1)))
    assert params["sidebar_range"] == "custom" and params["sidebar_from"] == "01:30"

    opened = AppTest.from_file(APP, default_timeout=120)
    opened.query_params.update(params)
    opened.run()
    assert not opened.exception, [e.value for e in opened.exception]
    assert opened.sidebar.selectbox(key="sidebar_range").value == "custom"
    assert opened.sidebar.time_input(key="sidebar_from").value == time(1, 30)
    assert opened.sidebar.time_input(key="sidebar_to").value == time(2, 15)
    assert opened.sidebar.date_input(key="sidebar_to_day").value == date(2026, 11, 30)
