"""One Streamlit app on the embedded sample for the whole test session, shared by every xdist worker.

NOTE: each browser test used to start its own `streamlit run` on its own copy of the sample, so
each paid for the server's start and for computing every chart cold. The app reads its store
read-only and keeps no state between browser sessions but its caches, so one app serves them all:
each page a test opens is still a new visitor's tab and a new Streamlit session (tests/ui/browser.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.sample_store import sample_store
from tests.shared_process import publish_and_wait, start_shared, stop_requested
from tests.ui.browser import running_app

NAME = "sample-app"


def sample_app_url() -> str:
    """The base URL of the session's app on the embedded sample (started by the first caller)."""
    return start_shared(NAME, "tests.ui.shared_app", timeout_s=120)["url"]


def _serve(info: Path, owner_pid: int) -> None:
    """The app's own process: serve until SIGTERM or until the session's main process is gone."""
    stopping = stop_requested()
    folder = info.parent / NAME
    folder.mkdir()
    db = sample_store(folder / "kvscope.duckdb")
    with running_app({"KVSCOPE_DB": str(db)}) as url:
        publish_and_wait(info, {"url": url}, stopping, owner_pid)


if __name__ == "__main__":
    _serve(Path(sys.argv[1]), int(sys.argv[2]))
