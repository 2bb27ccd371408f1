"""Every page renders on a real store without an exception, and guides users on an empty one."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.apptest import APP
from tests.ui.fixtures import build_store

PAGES = ("app_pages/overview.py", "app_pages/traces.py", "app_pages/whatif.py", "app_pages/planner.py")


@pytest.fixture(scope="module")
def filled_db(tmp_path_factory) -> Path:
    return build_store(tmp_path_factory.mktemp("ui") / "kvscope.duckdb")


def run_app(monkeypatch, db: Path, page: str | None = None) -> AppTest:
    monkeypatch.setenv("KVSCOPE_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    if page is not None:
        at.switch_page(page).run()
    return at


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_without_exception(monkeypatch, filled_db, page):
    at = run_app(monkeypatch, filled_db, page)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_overview_draws_every_chart_with_data(monkeypatch, filled_db):
    at = run_app(monkeypatch, filled_db)
    assert len(at.get("plotly_chart")) == 4  # the first section: hit rates and TTFT, nothing more to draw
    assert at.metric[0].value.endswith("%")
    infos = []
    for section in ("What explains the hit rate", "KV tiers & routing"):
        at.radio(key="overview_section").set_value(section).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.get("plotly_chart") or section.startswith("What"), (
            section
        )  # the fixture has no explain metrics
        assert not at.warning, [w.value for w in at.warning]  # every metric is exported by the fixture
        infos += [i.value for i in at.info]
    # ...but its CPU tier is vLLM's OffloadingConnector, so LMCache's panels say what they need
    assert [i for i in infos if "LMCache 0.5" in i], infos


def test_overview_on_a_missing_store_explains_how_to_load_data(monkeypatch, tmp_path):
    at = run_app(monkeypatch, tmp_path / "absent.duckdb")
    assert not at.exception
    assert any("load-sample" in i.value for i in at.info)
    assert not at.get("plotly_chart")


def test_whatif_page_replays_the_embedded_sample(monkeypatch, filled_db):
    at = run_app(monkeypatch, filled_db, "app_pages/whatif.py")
    assert not at.exception, [e.value for e in at.exception]
    rows = at.dataframe[-1].value  # one row per scenario (two by default)
    assert list(rows["scenario"]) == ["S1", "S2"]
    assert rows["token hit (%)"].between(0, 100, inclusive="right").all()
    assert len(at.get("plotly_chart")) == 6  # waterfall, tiers, pods, TTFT by outcome, over time, LRU curve
