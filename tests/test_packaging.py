"""A wheel install carries the SQL and the sample data and runs without the source tree."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SMOKE = """
import sys
from dashboard.core.config import QUERIES_DIR
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
assert 'site' in str(QUERIES_DIR) or sys.argv[1] in str(QUERIES_DIR), QUERIES_DIR
store = open_store(sys.argv[1] + '/s.duckdb')
print(len(run_query(store, 'hit_rate', start=0, end=60, step=60)))
"""


def test_wheel_ships_the_queries_and_works_outside_the_checkout(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("kvscope-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "dashboard/queries/hit_rate.sql" in names
    assert any(n.startswith("dashboard/queries/schema/001_") for n in names)
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    out = subprocess.run(
        [sys.executable, "-c", SMOKE, str(unpacked)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(unpacked)},
        check=True,
        capture_output=True,
        text=True,
    )
    assert out.stdout.strip() == "0"
