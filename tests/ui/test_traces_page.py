"""The Traces page in AppTest: import by path and by upload, choose a trace, run SQL, state in the URL."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.services import whatif
from dashboard.services.traces import import_trace
from dashboard.store.db import open_store
from tests.sample_store import copy_of
from tests.ui.apptest import app_at

PAGE = "app_pages/traces.py"
SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "requests.parquet"
TINY = (
    b'{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 1]}\n'
    b'{"timestamp": 1000, "input_length": 700, "output_length": 5, "hash_ids": [0, 1, 2]}\n'
    b'{"timestamp": 2500, "input_length": 300, "output_length": 5, "hash_ids": [0]}\n'
)


def open_page(monkeypatch, db: Path, query: dict[str, str] | None = None) -> AppTest:
    monkeypatch.setenv("KVSCOPE_DB", str(db))
    at = app_at(PAGE, 90, query)
    assert not at.exception, [e.value for e in at.exception]
    return at


def num_stored(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as conn:
        return conn.execute("SELECT count(*) FROM traces").fetchone()[0]


def copies_of(data: bytes) -> list[Path]:
    """Files in the upload directory holding exactly data (other tests may upload other files)."""
    return sorted(
        p for p in whatif.UPLOAD_DIR.iterdir() if p.stat().st_size == len(data) and p.read_bytes() == data
    )


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def run_sql(at: AppTest, sql: str) -> AppTest:
    at.text_area(key="traces_sql").set_value(sql)
    return at.button[1].click().run()  # the SQL form's Run (the import form's button is first)


def build_two_traces(folder: Path) -> Path:
    """A store with the embedded sample (sessions known) imported first, then a 3-request Mooncake trace."""
    return copy_of("two-traces", _import_two_traces, folder / "kvscope.duckdb")


def _import_two_traces(db: Path) -> None:
    tiny = db.with_name("tiny.jsonl")
    tiny.write_bytes(TINY)
    store = open_store(db)
    import_trace(store, SAMPLE, "canonical", "sample")
    import_trace(store, tiny, "mooncake", "tiny")
    store.close()


@pytest.fixture
def two_traces(tmp_path) -> Path:
    return build_two_traces(tmp_path)


def test_traces_page_on_a_missing_store_explains_how_to_import(monkeypatch, tmp_path):
    at = open_page(monkeypatch, tmp_path / "absent.duckdb")
    assert any("No trace is imported" in i.value for i in at.info)
    assert not at.get("plotly_chart") and not (tmp_path / "absent.duckdb").exists()


def test_importing_the_mooncake_trace_by_server_path_shows_its_statistics(
    monkeypatch, tmp_path, mooncake_conversation
):
    db = tmp_path / "kvscope.duckdb"
    at = open_page(monkeypatch, db)
    at.text_input(key="traces_import_path").set_value(str(mooncake_conversation))
    at.text_input(key="traces_import_name").set_value("conv")
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "12,031 requests" in at.success[0].value
    assert at.selectbox(key="traces_name").value == "conv"
    shown = metrics(at)
    assert shown["Requests"] == "12,031" and shown["Unlimited-cache ceiling"] == "36.6%"
    assert shown["Sessions"] == "7,373"
    assert len(at.get("plotly_chart")) == 8  # arrivals, 2 sizes, 2 reuse gaps, turns, turn gaps, icicle
    assert num_stored(db) == 1


def test_uploading_the_same_trace_twice_imports_and_writes_it_once(monkeypatch, tmp_path):
    db = tmp_path / "kvscope.duckdb"
    at = open_page(monkeypatch, db)
    upload = ("my-trace.jsonl", TINY, "application/json")
    at.file_uploader(key="traces_upload").set_value(upload)
    at.button[0].click().run()
    assert "Imported 'my-trace'" in at.success[0].value
    kept = copies_of(TINY)
    written_ns = kept[0].stat().st_mtime_ns
    at.run()  # a plain rerun: no second import
    at.file_uploader(key="traces_upload").set_value(upload)
    at.button[0].click().run()
    assert any("already imported as 'my-trace'" in i.value for i in at.info)
    assert copies_of(TINY) == kept and len(kept) == 1  # keyed by content: no other temp file
    assert kept[0].stat().st_mtime_ns == written_ns  # ...and the kept one is not rewritten
    assert num_stored(db) == 1


def test_a_bad_trace_file_shows_one_error_and_the_page_keeps_working(monkeypatch, two_traces, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"timestamp": 0, "input_length": 5}\n')
    at = open_page(monkeypatch, two_traces)
    at.text_input(key="traces_import_path").set_value(str(bad))
    at.button[0].click().run()
    assert len(at.error) == 1 and "Cannot import bad.jsonl" in at.error[0].value
    assert len(at.get("plotly_chart")) == 8 and num_stored(two_traces) == 2


def test_the_newest_trace_is_shown_by_default(monkeypatch, two_traces):
    at = open_page(monkeypatch, two_traces)
    assert at.selectbox(key="traces_name").value == "tiny"
    assert metrics(at)["Requests"] == "3"


def test_choosing_a_trace_shows_its_statistics(monkeypatch, two_traces):
    at = open_page(monkeypatch, two_traces)
    at.selectbox(key="traces_name").set_value("sample").run()
    shown = metrics(at)
    assert shown["Requests"] != "3" and "from the trace" in at.metric[5].help  # the sample has session ids


def test_a_url_with_a_trace_name_and_tree_size_opens_that_view(monkeypatch, two_traces):
    at = open_page(monkeypatch, two_traces, {"traces_name": "sample", "traces_tree_nodes": "30"})
    assert at.selectbox(key="traces_name").value == "sample"
    assert at.slider(key="traces_tree_nodes").value == 30
    assert at.query_params["traces_name"] == "sample" and at.query_params["traces_tree_nodes"] == "30"


def test_a_url_with_sql_runs_that_query(monkeypatch, two_traces):
    at = open_page(monkeypatch, two_traces, {"traces_sql": "SELECT count(*) AS n FROM trace_requests"})
    assert at.text_area(key="traces_sql").value.startswith("SELECT count(*)")
    assert at.dataframe[-1].value["n"].tolist()[0] > 3
    assert any(c.value.startswith("1 row in ") for c in at.caption)  # not "1 rows"


def test_running_sql_shows_rows_and_offers_them_as_csv(monkeypatch, two_traces):
    at = run_sql(open_page(monkeypatch, two_traces), "SELECT name, num_requests FROM traces ORDER BY name")
    assert at.dataframe[-1].value["name"].tolist() == ["sample", "tiny"]
    assert any(c.value.startswith("2 rows in ") for c in at.caption)
    buttons = at.get("download_button")
    assert len(buttons) == 1 and "Download CSV" in buttons[0].proto.label


def test_sql_that_writes_is_refused_in_one_line_and_the_charts_stay(monkeypatch, two_traces):
    at = run_sql(open_page(monkeypatch, two_traces), "DELETE FROM traces")
    assert len(at.error) == 1 and "read-only" in at.error[0].value and "\n" not in at.error[0].value
    assert len(at.get("plotly_chart")) == 8 and num_stored(two_traces) == 2


def test_sql_that_reads_a_file_is_refused(monkeypatch, two_traces):
    at = run_sql(open_page(monkeypatch, two_traces), "SELECT * FROM read_text('/etc/passwd')")
    assert len(at.error) == 1 and "disabled" in at.error[0].value


def test_importing_another_trace_selects_it(monkeypatch, two_traces, tmp_path):
    third = tmp_path / "third.jsonl"
    third.write_bytes(TINY.replace(b"[0]}", b"[7]}"))
    at = open_page(monkeypatch, two_traces, {"traces_name": "sample"})
    at.text_input(key="traces_import_path").set_value(str(third))
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.selectbox(key="traces_name").value == "third" and metrics(at)["Requests"] == "3"


def test_a_url_naming_an_unknown_trace_falls_back_to_the_newest(monkeypatch, two_traces):
    at = open_page(monkeypatch, two_traces, {"traces_name": "no-such-trace"})
    assert at.selectbox(key="traces_name").value == "tiny" and not at.error
