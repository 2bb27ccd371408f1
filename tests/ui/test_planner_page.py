"""The Planner page on Streamlit's AppTest: it plans the sample, keeps its inputs in the URL, reports bad profiles."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.services.traces import import_trace
from dashboard.store.db import open_store
from tests.conftest import data_dir
from tests.ui.apptest import app_at
from tests.ui.fixtures import build_store

PAGE = "app_pages/planner.py"


@pytest.fixture(scope="module")
def filled_db(tmp_path_factory) -> Path:
    return build_store(tmp_path_factory.mktemp("planner") / "kvscope.duckdb")


@pytest.fixture(scope="module")
def conversation_db(tmp_path_factory) -> Path:
    """A store holding the Mooncake conversation trace as 'conv' (288,500 block accesses: sampled curves)."""
    path = tmp_path_factory.mktemp("planner-conv") / "kvscope.duckdb"
    store = open_store(path)
    import_trace(
        store, data_dir() / "traces" / "mooncake-fast25" / "conversation_trace.jsonl", "mooncake", "conv"
    )
    store.close()
    return path


def planner_page(monkeypatch, db: Path) -> AppTest:
    monkeypatch.setenv("KVSCOPE_DB", str(db))
    at = app_at(PAGE, 120)
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_planner_plans_the_sample_for_every_default_hardware(monkeypatch, filled_db):
    at = planner_page(monkeypatch, filled_db)
    assert not at.error, [e.value for e in at.error]
    rows = at.dataframe[0].value
    assert list(rows["hardware"]) == ["gh200", "h100-sxm", "h200"]
    assert (rows["pods"] >= 1).all() and (rows["token hit ratio (%)"] >= 80).all()
    assert len(at.get("plotly_chart")) == 2  # the curve and TTFT by tier
    # The answer comes before what it rests on: the long link text had pushed pods and cost off-screen
    assert list(rows.columns[:5]) == ["hardware", "pods", "$ per hour", "token hit ratio (%)", "TTFT p90 (s)"]
    assert list(rows.columns[-2:]) == ["CPU link", "note"]


def test_planner_plans_the_embedded_sample_without_a_store(monkeypatch, tmp_path):
    # NOTE: the browser test that opened the Planner with no store now shares the sample's app
    # (tests/ui/test_shared_links_browser.py); a store that is not there is checked here instead.
    at = planner_page(monkeypatch, tmp_path / "absent.duckdb")
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) >= 2
    assert not (tmp_path / "absent.duckdb").exists()


def test_a_shared_url_restores_the_planner_inputs(monkeypatch, filled_db):
    monkeypatch.setenv("KVSCOPE_DB", str(filled_db))
    at = app_at(PAGE, 120, {"planner_target": "ttft-p90", "planner_ttft": "0.2", "planner_price": "4.0"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="planner_target").value == "ttft-p90"
    assert at.number_input(key="planner_ttft").value == 0.2
    rows = at.dataframe[0].value
    assert (rows["TTFT p90 (s)"].dropna() <= 0.2).all()
    assert (rows["$ per hour"].dropna() == 4.0 * rows["pods"].dropna()).all()
    assert at.query_params["planner_target"] == "ttft-p90" and at.query_params["planner_price"] == "4.0"


def test_each_hardware_can_have_its_own_price_and_the_link_and_command_line_keep_it(monkeypatch, filled_db):
    monkeypatch.setenv("KVSCOPE_DB", str(filled_db))
    at = app_at(PAGE, 120, {"planner_price": "2.5", "planner_price_gh200": "6.5"})
    assert not at.exception, [e.value for e in at.exception]
    rows = at.dataframe[0].value.set_index("hardware")
    # gh200 at its own price, the others at the price for all: not pods × one price for every option
    assert rows.loc["gh200", "$ per hour"] == 6.5 * rows.loc["gh200", "pods"]
    assert rows.loc["h200", "$ per hour"] == 2.5 * rows.loc["h200", "pods"]
    assert at.number_input(key="planner_price_gh200").value == 6.5
    assert at.number_input(key="planner_price_h200").value is None  # empty: the price above
    (line,) = [c.value for c in at.caption if "Same plan on the command line" in c.value]
    assert "--price-per-gpu-hour 2.5 --hardware-price gh200=6.5 " in line


def test_changing_a_planner_widget_replans(monkeypatch, filled_db):
    at = planner_page(monkeypatch, filled_db)
    before = at.dataframe[0].value
    at.number_input(key="planner_price").set_value(10.0).run()
    at.multiselect(key="planner_hardware").set_value(["gh200", "h20"]).run()
    assert not at.exception, [e.value for e in at.exception]
    after = at.dataframe[0].value
    assert list(after["hardware"]) == ["gh200", "h20"]
    assert after["$ per hour"][0] == 10.0 * after["pods"][0] != before["$ per hour"][0]


def test_an_empty_hardware_choice_is_an_error_and_the_page_survives(monkeypatch, filled_db):
    at = planner_page(monkeypatch, filled_db)
    at.multiselect(key="planner_hardware").set_value([]).run()
    assert not at.exception
    assert any("--hardware" in e.value for e in at.error)


def policy_chart(at: AppTest) -> dict:
    """The Plotly spec of the page's eviction-policy chart."""
    (spec,) = [
        json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Eviction policies" in c.proto.spec
    ]
    return spec


def test_chosen_policies_get_exact_readouts_and_curves_and_stay_in_the_url(monkeypatch, conversation_db):
    monkeypatch.setenv("KVSCOPE_DB", str(conversation_db))
    query = {"planner_trace": "conv", "planner_hit": "0.3", "planner_policies": ["oracle", "arc"]}
    at = app_at(PAGE, 120, query)
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert at.multiselect(key="planner_policies").value == ["oracle", "arc"]
    plan, readout = at.dataframe[0].value, at.dataframe[1].value
    columns = ["hardware", "pods", "pooled blocks", "lru (%)", "oracle (%)", "arc (%)"]
    assert list(readout.columns) == columns
    assert list(readout["hardware"]) == list(plan["hardware"]) and list(readout["pods"]) == list(plan["pods"])
    assert list(readout["lru (%)"]) == list(plan["token hit ratio (%)"])
    chart = policy_chart(at)
    # NOTE: the oracle, on lazy heaps, is sampled on this trace's 288,500 accesses; ARC's exact sweep is quick
    assert [t["name"] for t in chart["data"]] == [
        "lru (exact)",
        "oracle (sampled 5%, measured ±0.14)",
        "oracle: exact replay at each plan",
        "arc (exact)",
        "arc: exact replay at each plan",
    ]
    exact_marks = chart["data"][2]
    assert [round(y, 1) for y in exact_marks["y"]] == list(readout["oracle (%)"])  # × where the table is
    assert len(chart["layout"]["shapes"]) == len(plan)  # each option's pooled capacity marked
    (note,) = [c.value for c in at.caption if "Curves marked sampled are approximate" in c.value]
    assert (
        "oracle ±0.14" in note
        and "arc" not in note
        and "against exact replays at the capacities marked ×" in note
    )
    assert any(
        "--trace conv --target hit=0.3" in c.value and "--policies oracle arc`" in c.value for c in at.caption
    )
    exports = [b.proto.id for b in at.get("download_button")]
    assert [i.rsplit("-", 1)[-1] for i in exports] == ["planner_export_html", "planner_policy_export_html"]


def test_the_exact_curves_switch_draws_exact_curves_and_keeps_the_table(monkeypatch, conversation_db):
    monkeypatch.setenv("KVSCOPE_DB", str(conversation_db))
    query = {"planner_trace": "conv", "planner_hit": "0.3", "planner_policies": ["oracle"]}
    sampled = app_at(PAGE, 120, query)
    exact = app_at(PAGE, 120, query | {"planner_exact_curves": "true"})
    for at in (sampled, exact):
        assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert exact.toggle(key="planner_exact_curves").value
    assert policy_chart(sampled)["data"][1]["name"] == "oracle (sampled 5%, measured ±0.14)"
    assert policy_chart(exact)["data"][1]["name"] == "oracle (exact)"
    pd.testing.assert_frame_equal(sampled.dataframe[1].value, exact.dataframe[1].value)  # exact either way
    assert not any("Curves marked sampled" in c.value for c in exact.caption)
