"""The app freezes its long-lived objects after a run that imported modules, so the full collection
Streamlit runs after every script run does not walk them (dashboard/ui/heap.py).

NOTE: in a child process: a freeze is process-wide, and this worker's other tests freeze it too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.sample_store import empty_store
from tests.ui.apptest import APP

PROBE = """
import gc, json, sys
from streamlit.testing.v1 import AppTest
from dashboard.ui import heap
app = AppTest.from_file(sys.argv[1], default_timeout=120).run()
after_run = gc.get_freeze_count()
unfrozen = len(gc.get_objects())
again = heap.freeze_after_imports()  # nothing imported since the app's run
import xml.dom.minidom  # noqa: F401  (modules the app has not imported)
after_import = heap.freeze_after_imports()
print(json.dumps({"exceptions": [e.value for e in app.exception], "frozen": after_run,
                  "unfrozen": unfrozen, "again": again, "after_import": after_import}))
"""


def test_a_run_of_the_app_leaves_its_modules_frozen_and_freezes_again_only_after_new_imports(tmp_path):
    env_db = empty_store(tmp_path / "kvscope.duckdb")
    out = subprocess.run(
        [sys.executable, "-c", PROBE, APP],
        env={**os.environ, "KVSCOPE_DB": str(env_db)},
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["exceptions"] == []
    assert seen["frozen"] > 50_000  # Streamlit, pandas, Plotly, DuckDB … in the permanent generation
    assert seen["unfrozen"] < seen["frozen"] / 10  # what the next collection still walks
    assert seen["again"] is False
    assert seen["after_import"] is True
