"""The app on a damaged, truncated, locked or foreign store: one st.error line saying what to do,
no exception box, and the file left as it was."""

from __future__ import annotations

from contextlib import nullcontext

import pytest
from streamlit.testing.v1 import AppTest

from tests.store.test_doctor import digest, healthy_db, held_open, make_store  # noqa: F401 (fixture)
from tests.ui.apptest import APP

ADVICE = {
    "damaged": "kvscope doctor --db",
    "truncated": "kvscope doctor --db",
    "foreign": "is not a DuckDB database file",
    "locked": "is in use by another process",
}


@pytest.mark.parametrize("kind", sorted(ADVICE))
def test_the_app_shows_one_error_line_with_what_to_do(monkeypatch, healthy_db, tmp_path, kind):  # noqa: F811
    db = make_store("healthy" if kind == "locked" else kind, healthy_db, tmp_path)
    before = digest(db)
    monkeypatch.setenv("KVSCOPE_DB", str(db))
    for name in ("KVSCOPE_PROMETHEUS_URL", "KVSCOPE_SCRAPE"):
        monkeypatch.delenv(name, raising=False)
    with held_open(db) if kind == "locked" else nullcontext():
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "\n" not in errors[0], errors
    assert ADVICE[kind] in errors[0] and str(db) in errors[0]
    assert digest(db) == before
