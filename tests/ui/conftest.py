"""Fixtures the page tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.services.sample import load_sample


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory) -> Path:
    """The embedded sample in a store, as `make run` loads it. Pages open it read-only: never write it."""
    db = tmp_path_factory.mktemp("ui-sample") / "kvscope.duckdb"
    load_sample(db)
    return db
