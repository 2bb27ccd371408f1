"""Fixtures shared by every test: the real traces and vLLM recordings in tests/data and a fresh DuckDB store."""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pytest

from dashboard.core.config import THREADS_ENV_VAR
from dashboard.store.db import Store, open_store
from tests.live_stack import start_live_stack
from tests.sample_store import empty_store
from tests.scheduling import LongestFirst
from tests.shared_process import RUN_DIR_ENV, begin_session, is_session_owner, stop_every_shared

REPO_ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS_DIR = REPO_ROOT / "test-artifacts"


DATA_DIR = REPO_ROOT / "tests" / "data"


def data_dir() -> Path:
    """tests/data in the checkout (traces/, real-vllm/), or $KVSCOPE_SHARED laid out the same way."""
    # NOTE: a clone must test green with nothing beside it, so the data lives in the repo.
    return Path(os.environ.get("KVSCOPE_SHARED") or DATA_DIR)


shared_dir = data_dir  # the old name, for tests written before the data moved into the repo


@pytest.fixture(scope="session")
def traces_dir() -> Path:
    """The real public traces; missing ones fail loudly rather than skip."""
    path = data_dir() / "traces"
    assert path.is_dir(), f"real traces not found at {path}"
    return path


@pytest.fixture(scope="session")
def real_vllm_dir() -> Path:
    """The recorded real vLLM scrapes and vLLM/LMCache stat-logger files (README.md there)."""
    path = data_dir() / "real-vllm"
    assert path.is_dir(), f"real vLLM recordings not found at {path}"
    return path


@pytest.fixture(scope="session")
def mooncake_conversation(traces_dir: Path) -> Path:
    """Mooncake FAST'25 conversation trace (JSONL)."""
    return traces_dir / "mooncake-fast25" / "conversation_trace.jsonl"


@pytest.fixture(scope="session")
def mooncake_synthetic(traces_dir: Path) -> Path:
    """Mooncake FAST'25 synthetic trace (JSONL): a second trace with prefix hashes, tuned on by nothing."""
    return traces_dir / "mooncake-fast25" / "synthetic_trace.jsonl"


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the worker's browser tests; each page a test opens starts with no
    cookies, site storage or Streamlit session (tests/ui/browser.py) and the test closes it.

    NOTE: the browser tests run one after another on one worker (tests/scheduling.py); a Chromium
    and a Playwright driver started for each cost a second of both cores every time.
    """
    from tests.ui.browser import launched_chromium

    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="session")
def system_chromium() -> str:
    """The system Chromium kaleido drives for PNG export: skipped without one, failed in CI."""
    from tests.ui.browser import chromium

    return chromium()


@pytest.fixture(scope="session", autouse=True)
def components_scanned_once():
    """Streamlit's scan for installed components, done once per worker instead of once per AppTest.

    NOTE: each new AppTest reads the metadata of every installed package (~0.14 s of CPU, a few
    hundred times a session); the installed packages cannot change while the tests run.
    """
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    manifest_scanner.scan_component_manifests = functools.cache(scan)
    yield
    manifest_scanner.scan_component_manifests = scan


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """A new, migrated DuckDB file in a temp dir."""
    s = open_store(empty_store(tmp_path / "kvscope.duckdb"))
    yield s
    s.close()


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """Where tests leave screenshots and other files for people to look at."""
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    return ARTIFACTS_DIR


def pytest_configure(config: pytest.Config) -> None:
    """The session's run folder, made before any xdist worker starts (they inherit it); one DuckDB
    thread per process; jemalloc as Arrow's pool in the test processes. (numpy's transparent huge
    pages are off in every process: importing dashboard above set that, and the workers inherit it.)

    NOTE: the tests cut and re-cut the sample's metric table (tests/sample_store.py's SampleRows),
    and pyarrow's default mimalloc hands freed huge pages back to the kernel, which zeroes them
    again on the next cut: tests/services/test_window_cache.py took 15.1 CPU-s with it and 12.1
    with jemalloc. kvscope itself keeps pyarrow's default: on its own paths jemalloc measured no
    better (the Overview's frames 3% slower, reading the sample's requests.parquet 124 against 85 ms).
    Neither DuckDB's allocator flush thresholds at 16 GB nor glibc's mmap and trim thresholds moved
    the page faults or the CPU of the store, export and block-rollup modules (2026-12-06).
    """
    begin_session()
    # NOTE: three workers share two cores, so a second DuckDB thread per process mostly contends:
    # the six DuckDB-heaviest modules took 50-52 CPU-s with one thread against 55-57 with two (the
    # workers, and the apps and commands they start, inherit the variable). The whole suite's wall
    # time moved within its noise (164-171 s with it, 166 s without, 2026-12-05).
    os.environ.setdefault(THREADS_ENV_VAR, "1")
    if "jemalloc" in pa.supported_memory_backends():
        pa.set_memory_pool(pa.jemalloc_memory_pool())


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: one worker more than there are cores ($PYTEST_XDIST_AUTO_NUM_WORKERS still decides).

    NOTE: many tests wait (Prometheus's first scrape, a client's backoff, Chromium drawing, a
    subprocess's timer); with one worker per core those waits left a fifth of the cores' time
    idle, and one worker more fills it. A fourth did not pay: on 2 cores, alternating `make test`
    runs (2026-12-06) took 157, 165 and 164 s with four workers against 166, 168 and 147 s with
    three, and two workers took 188 s against three's 158.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return (os.cpu_count() or 1) + 1


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadscope` with the browser tests in one unit and the longest units first (tests/scheduling.py)."""
    return LongestFirst(config, log) if config.getvalue("dist") == "loadscope" else None


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the live stack early when a collected test needs it: its scrapes pile up meanwhile."""
    needs = {"live_stack", "exporters"}
    if any(needs & set(getattr(item, "fixturenames", ())) for item in session.items):
        start_live_stack()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The main process ends what the session shared; a worker leaves it to the others."""
    if is_session_owner():
        stop_every_shared()
        shutil.rmtree(os.environ[RUN_DIR_ENV], ignore_errors=True)


@pytest.fixture(scope="session")
def live_stack():
    """Real Prometheus with enough one-second scrapes of two vLLM-named exporters."""
    return start_live_stack().wait_until_ready()


@pytest.fixture(scope="session")
def exporters():
    """The live stack's exporters (pod-a, pod-b)."""
    return start_live_stack().exporters
