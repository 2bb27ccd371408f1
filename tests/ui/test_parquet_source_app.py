"""The app over a Parquet export ($KVSCOPE_SOURCE): the same Overview as over the store, read-only."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.cli import main
from tests.ui.apptest import app_at


@pytest.fixture(scope="module")
def exported(sample_db: Path, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("app-export") / "history"
    assert main(["export", "--parquet", str(target), "--db", str(sample_db)]) == 0
    return target


def run_app(monkeypatch, env: dict[str, str], page: str | None = None) -> AppTest:
    for name in ("KVSCOPE_DB", "KVSCOPE_SOURCE", "KVSCOPE_PROMETHEUS_URL", "KVSCOPE_SCRAPE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return app_at(page, 120)


def test_the_overview_over_the_export_shows_what_it_shows_over_the_store(monkeypatch, sample_db, exported):
    over_store = run_app(monkeypatch, {"KVSCOPE_DB": str(sample_db)})
    over_export = run_app(monkeypatch, {"KVSCOPE_SOURCE": str(exported)})
    assert not over_export.exception, [e.value for e in over_export.exception]
    assert not over_export.error, [e.value for e in over_export.error]
    assert len(over_export.get("plotly_chart")) == len(over_store.get("plotly_chart")) > 0
    assert [m.value for m in over_export.metric] == [m.value for m in over_store.metric]
    captions = [c.value for c in over_export.sidebar.caption]
    assert f"Parquet export (read-only): `{exported}`" in captions
    assert "480 series · 691,200 samples" in captions


@pytest.mark.parametrize("page", ["app_pages/whatif.py", "app_pages/traces.py", "app_pages/planner.py"])
def test_every_other_page_renders_over_the_export(monkeypatch, exported, page):
    at = run_app(monkeypatch, {"KVSCOPE_SOURCE": str(exported)}, page)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_the_traces_page_over_the_export_refuses_an_import_in_one_line(monkeypatch, exported, tmp_path):
    at = run_app(monkeypatch, {"KVSCOPE_SOURCE": str(exported)}, "app_pages/traces.py")
    assert not at.exception, [e.value for e in at.exception]
    at.text_input(key="traces_import_path").set_value(str(tmp_path / "t.jsonl"))
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("takes no imports" in e.value for e in at.error), [e.value for e in at.error]
    assert not list(tmp_path.iterdir())


def test_a_live_collector_with_an_export_is_one_error_line(monkeypatch, exported):
    at = run_app(
        monkeypatch, {"KVSCOPE_SOURCE": str(exported), "KVSCOPE_PROMETHEUS_URL": "http://127.0.0.1:9"}
    )
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] and "read-only Parquet export" in at.error[0].value


def test_a_source_that_is_not_an_export_is_one_error_line(monkeypatch, tmp_path):
    at = run_app(monkeypatch, {"KVSCOPE_SOURCE": str(tmp_path / "absent")})
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1 and "absent does not exist" in at.error[0].value
