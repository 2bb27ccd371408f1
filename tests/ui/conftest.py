"""Fixtures the page tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sample_store import sample_store
from tests.ui.shared_app import sample_app_url


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory) -> Path:
    """The embedded sample in a store, as `make run` loads it. Pages open it read-only: never write it."""
    db = tmp_path_factory.mktemp("ui-sample") / "kvscope.duckdb"
    sample_store(db)
    return db


@pytest.fixture(scope="session")
def app_url() -> str:
    """Streamlit on a store holding the embedded sample: one app for the session (tests/ui/shared_app.py)."""
    return sample_app_url()
