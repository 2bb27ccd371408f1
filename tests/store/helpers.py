"""Build small, hand-checkable sample sets for the SQL tests."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import duckdb
import pandas as pd

from dashboard.store.db import Store, migration_files
from dashboard.store.queries import bind_params, load_read_query

T0 = datetime(2026, 1, 1)
SCRAPE_S = 15


def at(i: int) -> datetime:
    """Timestamp of scrape number i (i ≥ 1), SCRAPE_S apart after T0."""
    return T0 + timedelta(seconds=SCRAPE_S * i)


def counter_rows(metric: str, labels: dict[str, str], values: list[float], first: int = 1) -> list[tuple]:
    """One sample per scrape, starting at scrape `first`."""
    return [(at(first + i), metric, dict(labels), float(v)) for i, v in enumerate(values)]


def frame(rows: list[tuple]) -> pd.DataFrame:
    """Rows of (ts, metric, labels, value) as the frame write_samples takes."""
    return pd.DataFrame(rows, columns=["ts", "metric", "labels", "value"])


def store_at_version(path: Path, last_version: int) -> Store:
    """A store with only the migrations up to last_version applied, as an older kvscope left it."""
    store = Store(path=path, connection=duckdb.connect(str(path)))
    cur = store.cursor()
    cur.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
        " applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
    )
    for file in migration_files():
        version = int(file.name[:3])
        if version <= last_version:
            cur.execute(file.read_text())
            cur.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [version, file.stem])
    return store


def through_a_relation(store: Store, name: str, **params) -> pd.DataFrame:
    """A named query's rows as DuckDB's relation API reads them (what run_query did before it read
    the DB-API result)."""
    query = load_read_query(name)
    cur = store.cursor()
    try:
        return cur.sql(query.sql, params=bind_params(query, params)).to_arrow_table().to_pandas()
    finally:
        cur.close()
