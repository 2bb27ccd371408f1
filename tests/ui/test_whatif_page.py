"""The What-if page on Streamlit's AppTest: scenarios side by side, state in the URL, overload flagged, saved runs reopen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.services.replay import ReplayRequest, run_replay
from dashboard.services.saved_replays import save_replay
from dashboard.services.traces import import_trace
from dashboard.store.db import open_store
from tests.conftest import data_dir
from tests.ui.apptest import app_at

PAGE = "app_pages/whatif.py"
MOONCAKE = data_dir() / "traces" / "mooncake-fast25" / "conversation_trace.jsonl"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """A store holding the Mooncake conversation trace as 'conv' and two saved replays of it."""
    path = tmp_path_factory.mktemp("whatif") / "kvscope.duckdb"
    store = open_store(path)
    import_trace(store, MOONCAKE, "mooncake", "conv")
    from dashboard.services.traces import load_stored_trace

    trace = load_stored_trace(store, "conv")
    for name, req in (
        ("one-pod", ReplayRequest(num_pods=1, hbm_blocks=18279)),
        (
            "four-precise",
            ReplayRequest(num_pods=4, router="precise_prefix", hbm_blocks=4569, cpu_blocks=13710),
        ),
    ):
        save_replay(store, name, "conv", run_replay(trace, req))
    store.close()
    return path


def open_page(monkeypatch, db: Path, query: dict[str, str] | None = None) -> AppTest:
    monkeypatch.setenv("KVSCOPE_DB", str(db))
    at = app_at(PAGE, 180, query)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def miss_ratio_chart(at: AppTest) -> dict:
    """The Plotly spec of the page's miss-ratio curve."""
    (spec,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Miss-ratio" in c.proto.spec]
    return spec


def table(at: AppTest):
    return at.dataframe[-1].value  # the comparison table (the saved-runs table comes first)


def test_the_page_compares_two_scenarios_of_the_sample_by_default(monkeypatch, db):
    at = open_page(monkeypatch, db)
    rows = table(at)
    assert list(rows["scenario"]) == ["S1", "S2"]
    assert rows["token hit (%)"][1] > rows["token hit (%)"][0]  # prefix routing beats round robin
    assert len(at.get("plotly_chart")) == 6  # waterfall, tiers, pods, TTFT, over time, curve
    assert "sample_data/requests.parquet --pods 8 --router round_robin" in at.code[0].value


def test_four_scenarios_on_a_stored_trace_run_side_by_side(monkeypatch, db):
    at = open_page(monkeypatch, db, {"whatif_trace": "stored:conv", "whatif_n": "4"})
    rows = table(at)
    assert list(rows["scenario"]) == ["S1", "S2", "S3", "S4"]
    assert (rows["token hit (%)"] <= 37.37).all()  # never above the trace's unlimited-cache ceiling
    assert at.code[0].value.count("kvscope replay conv --db ") == 4


def test_changing_scenario_widgets_and_submitting_reruns_that_scenario(monkeypatch, db):
    # NOTE: AppTest has no browser, so a user's edit cannot reach the URL here (the frontend writes
    # it); tests/ui/test_whatif_browser.py checks that in Chromium.
    at = open_page(monkeypatch, db, {"whatif_trace": "stored:conv"})
    before = table(at)
    at.number_input(key="whatif_s2_pods").set_value(2)
    at.selectbox(key="whatif_s2_router").set_value("precise_prefix")
    at.button(key="whatif_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    after = table(at)
    assert after["cluster"][1].startswith("2 pods · precise_prefix")
    assert after["token hit (%)"][1] != before["token hit (%)"][1]
    assert after["token hit (%)"][0] == before["token hit (%)"][0]  # S1 untouched


def test_a_shared_url_restores_every_scenario(monkeypatch, db):
    query = {
        "whatif_trace": "stored:conv",
        "whatif_n": "3",
        "whatif_s1_pods": "4",
        "whatif_s2_policy": "oracle",
        "whatif_s3_cpu": "9000",
        "whatif_s3_wprefix": "5.0",
    }
    at = open_page(monkeypatch, db, query)
    assert at.number_input(key="whatif_s1_pods").value == 4
    assert at.selectbox(key="whatif_s2_policy").value == "oracle"
    assert at.number_input(key="whatif_s3_wprefix").value == 5.0
    clusters = list(table(at)["cluster"])
    assert clusters[0].startswith("4 pods") and "oracle" in clusters[1] and "CPU 9,000" in clusters[2]
    assert "--scorer-weights 2,2,5" in at.code[0].value
    # NOTE: S2's policy gets its own curve beside LRU's, sampled on this trace (the oracle replays on
    # lazy heaps) and labelled so
    mrc = miss_ratio_chart(at)
    names = [t.get("name") for t in mrc["data"]]
    assert names[:2] == ["lru (exact): one cache of that capacity", "oracle (sampled 5%, measured ±0.14)"]
    assert mrc["data"][1]["line"]["dash"] == "dash"
    # NOTE: and checked by an exact replay at each scenario's HBM over all pods, marked ×
    checked = mrc["data"][2]
    assert checked["name"] == "oracle: exact replay there" and checked["marker"]["symbol"] == "x"
    hbm_over_pods = {
        int(c.split(" pods")[0]) * int(c.split("HBM ")[1].split()[0].replace(",", "")) for c in clusters
    }
    assert sorted(checked["x"]) == sorted(hbm_over_pods)
    (note,) = [c.value for c in at.caption if c.value.startswith("Curves marked sampled are approximate")]
    assert "against exact replays at the capacities marked ×, the curves are off by at most: oracle" in note


def test_the_exact_curves_switch_draws_each_other_policys_exact_sweep(monkeypatch, db):
    switched = {"whatif_s1_policy": "lfu", "whatif_exact_curves": "true"}
    at = open_page(monkeypatch, db, {"whatif_trace": "stored:conv", "whatif_n": "1"} | switched)
    assert at.toggle(key="whatif_exact_curves").value
    assert [t.get("name") for t in miss_ratio_chart(at)["data"]][:2] == [
        "lru (exact): one cache of that capacity",
        "lfu (exact)",
    ]
    assert not any("Curves marked sampled" in c.value for c in at.caption)


def test_a_one_pod_replay_of_mooncake_is_flagged_overloaded_with_both_rates(monkeypatch, db):
    at = open_page(monkeypatch, db, {"whatif_trace": "stored:conv", "whatif_n": "1", "whatif_s1_pods": "1"})
    assert bool(table(at)["overloaded"][0])
    (warning,) = [w.value for w in at.warning]
    assert "S1 is overloaded" in warning and "uncached tokens/s" in warning and "compute at most" in warning


def test_saved_runs_are_listed_and_reopen_as_scenarios(monkeypatch, db):
    at = open_page(monkeypatch, db)
    saved = at.dataframe[0].value
    assert {"one-pod", "four-precise"} <= set(saved["name"])
    at.multiselect(key="whatif_saved_pick").set_value(["one-pod", "four-precise"]).run()
    at.button(key="whatif_reopen").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="whatif_trace").value == "stored:conv"
    assert at.number_input(key="whatif_s2_pods").value == 4
    assert at.number_input(key="whatif_s2_cpu").value == 13710
    assert at.query_params["whatif_trace"] == "stored:conv"  # reopened runs land in the URL too
    assert at.query_params["whatif_s2_pods"] == "4" and at.query_params["whatif_s1_pods"] == "1"
    note = next(c.value for c in at.caption if c.value.startswith("Reopened saved runs"))
    assert "one-pod → S1: saved 28.44%, now 28.44%" in note


def page_text(at: AppTest) -> str:
    blocks = [at.caption, at.error, at.warning, at.code, at.markdown]
    return "\n".join(str(e.value) for kind in blocks for e in kind)


def test_an_uploaded_trace_is_compared_and_named_by_its_file_never_the_temp_copy(monkeypatch, db):
    at = open_page(monkeypatch, db)
    at.file_uploader(key="whatif_upload").set_value(
        ("my conversation.jsonl", MOONCAKE.read_bytes(), "application/json")
    )
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.exception] + [e.value for e in at.error]
    assert at.selectbox(key="whatif_trace").value.startswith("upload:my conversation.jsonl#")
    assert at.query_params["whatif_trace"].startswith("upload:my conversation.jsonl#")
    assert "kvscope replay 'my conversation.jsonl' --pods 8" in at.code[0].value
    assert any(c.value.startswith("my conversation.jsonl: 12,031 requests") for c in at.caption)
    assert "kvscope-uploads" not in page_text(at)
    # a copied link: the capacities followed the switch from the sample to this trace, so it reopens them
    shared = open_page(monkeypatch, db, {"whatif_trace": at.query_params["whatif_trace"]})
    assert shared.selectbox(key="whatif_trace").value == at.selectbox(key="whatif_trace").value
    assert shared.code[0].value == at.code[0].value


def test_an_unreadable_upload_is_reported_under_its_own_name(monkeypatch, db):
    at = open_page(monkeypatch, db)
    at.file_uploader(key="whatif_upload").set_value(
        ("broken.jsonl", b'{"timestamp": 0}\n', "application/json")
    )
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (error,) = [e.value for e in at.error]
    assert error.startswith("Cannot read broken.jsonl:") and "kvscope-uploads" not in error
