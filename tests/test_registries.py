"""One source of truth per registry: every policy, router, trace format, page, subcommand and query
has its doc entry, its golden figure on the bundled Mooncake trace, and a test that runs it.

Adding a registry entry without the rest fails here, naming what is missing.
"""

from __future__ import annotations

import ast
import pkgutil
import re
from pathlib import Path

import pandas as pd
import pytest

from dashboard import commands
from dashboard.core.config import QUERIES_DIR
from dashboard.core.types import ClusterConfig, RouterConfig, TierConfig, Trace
from dashboard.engine.policies import POLICIES
from dashboard.engine.readers import READERS
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import replay_single_cache, simulate
from dashboard.engine.routers import ROUTERS
from dashboard.store.db import open_store
from dashboard.store.queries import list_queries, load_query, run_query
from tests.sample_store import sample_store as copy_of_sample_store
from tests.store.helpers import through_a_relation

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
TESTS = ROOT / "tests"

# Block hits on the Mooncake conversation trace (12,031 requests, 288,500 block accesses).
# Policies: one cache of 18,279 blocks (10% of unique blocks). Routers: 4 pods of 4,569 HBM and
# 9,138 CPU blocks, LRU. A faster engine must give these exactly; a changed policy updates its row.
POLICY_GOLDEN_HITS = {
    "lru": 80_466,
    "fifo": 71_692,
    "lfu": 56_238,
    "s3fifo": 70_693,
    "arc": 81_969,
    "oracle": 105_710,
    "learned": 85_397,
}
ROUTER_GOLDEN_HITS = {  # (HBM hits, CPU-tier hits)
    "round_robin": (33_738, 16_613),
    "random": (32_674, 15_399),
    "least_loaded": (33_370, 16_820),
    "prefix": (77_309, 22_564),
    "precise_prefix": (77_881, 21_539),
    "session_affinity": (79_682, 23_049),
    "no_hit_lru": (77_309, 22_564),
}


def readme_table(first_header: str) -> list[str]:
    """First-column entries (backticks stripped) of the README table whose header starts so."""
    lines = README.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line.split("|")[1].strip().strip("`"))
    return rows


def all_test_sources() -> str:
    return "\n".join(p.read_text() for p in TESTS.rglob("*.py") if p.name != Path(__file__).name)


@pytest.fixture(scope="module")
def conversation(mooncake_conversation: Path) -> Trace:
    return read_mooncake(mooncake_conversation)


# --- policies -----------------------------------------------------------------------------------


def test_every_policy_has_a_readme_row_and_a_golden_figure() -> None:
    assert readme_table("policy") == list(POLICIES)
    assert set(POLICY_GOLDEN_HITS) == set(POLICIES)


@pytest.mark.parametrize("policy", list(POLICIES))
def test_policy_golden_hits(conversation: Trace, policy: str) -> None:
    assert int(replay_single_cache(conversation, 18_279, policy).sum()) == POLICY_GOLDEN_HITS[policy]


def test_every_policy_is_described_in_the_engine_docs() -> None:
    engine_doc = (ROOT / "docs" / "engine.md").read_text()
    missing = [name for name in POLICIES if f"`{name}`" not in engine_doc]
    assert not missing, f"docs/engine.md lacks {missing}"


# --- routers ------------------------------------------------------------------------------------


def test_every_router_has_a_readme_row_and_a_golden_figure() -> None:
    assert readme_table("router") == list(ROUTERS)
    assert set(ROUTER_GOLDEN_HITS) == set(ROUTERS)


@pytest.mark.parametrize("router", list(ROUTERS))
def test_router_golden_hits(conversation: Trace, router: str) -> None:
    tiers = (TierConfig("gpu", 4_569), TierConfig("cpu", 9_138))
    outcome = simulate(conversation, ClusterConfig(num_pods=4, tiers=tiers, router=RouterConfig(router)))
    hits = (int(outcome.hit_blocks[:, 0].sum()), int(outcome.hit_blocks[:, 1].sum()))
    assert hits == ROUTER_GOLDEN_HITS[router]


# --- trace formats ------------------------------------------------------------------------------


def test_every_format_has_a_readme_row_and_a_reader_test() -> None:
    assert readme_table("format") == list(READERS)
    text = all_test_sources()
    missing = [fmt for fmt in READERS if f'"{fmt}"' not in text]
    assert not missing, f"no test names the format(s) {missing}"


# --- pages --------------------------------------------------------------------------------------


def app_pages() -> list[tuple[str, str]]:
    """(file, title) of every st.Page in app.py."""
    tree = ast.parse((ROOT / "dashboard" / "app.py").read_text())
    pages = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Page":
            title = next(k.value.value for k in node.keywords if k.arg == "title")
            path = node.args[0]
            file = path.values[-1].value if isinstance(path, ast.JoinedStr) else path.value
            pages.append((file.lstrip("/"), title))
    return pages


def test_every_page_has_a_readme_entry_and_a_smoke_test() -> None:
    pages = app_pages()
    assert len(pages) >= 4
    readme_pages = re.findall(r"^- \*\*(.+?)\*\* —", README.split("## Pages", 1)[1], re.M)
    assert [title for _, title in pages] == readme_pages[: len(pages)]
    smoke = (TESTS / "ui" / "test_pages.py").read_text()
    missing = [file for file, _ in pages if file not in smoke]
    assert not missing, f"tests/ui/test_pages.py does not render {missing}"


# --- subcommands --------------------------------------------------------------------------------


def subcommand_names() -> list[str]:
    names = []
    for info in pkgutil.iter_modules(commands.__path__):
        if not info.name.startswith("_"):
            source = (Path(commands.__path__[0]) / f"{info.name}.py").read_text()
            names.append(re.search(r'^NAME = "([^"]+)"', source, re.M).group(1))
    return sorted(names)


def test_every_subcommand_has_a_readme_row_and_a_test() -> None:
    rows = readme_table("command")
    documented = {re.match(r"kvscope ([\w-]+)", row).group(1) for row in rows}
    assert documented == set(subcommand_names())
    text = all_test_sources()
    missing = [name for name in subcommand_names() if f'"{name}"' not in text]
    assert not missing, f"no test runs the subcommand(s) {missing}"


# --- queries ------------------------------------------------------------------------------------

PARAM_VALUES = {
    "step": 1800.0,
    "names": ["vllm:prefix_cache_hits_total"],
    "q": [0.5, 0.99],
    "run_id": 1,
    "run_name": "none",
    "trace_name": "none",
}


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory):
    db = tmp_path_factory.mktemp("registries") / "sample.duckdb"
    copy_of_sample_store(db)
    store = open_store(db, read_only=True)
    yield store
    store.close()


@pytest.mark.parametrize("name", list_queries())
def test_every_query_is_documented_and_returns_its_documented_columns(sample_store, name: str) -> None:
    query = load_query(name)
    header = [line for line in query.sql.splitlines() if line.startswith("--")]
    assert header[0].startswith(f"-- {name}: "), (
        f"{name}.sql: first line must be '-- {name}: what it answers'"
    )
    text = "\n".join(header)
    assert "Grain:" in text and "Columns:" in text, f"{name}.sql: header needs Grain: and Columns:"
    columns_text = text.split("Columns:", 1)[1].replace("--", " ")
    documented = re.findall(r"(\w+) (?:[A-Z]+(?:\[\])?|MAP\([^)]*\)|STRUCT\([^)]*\))(?:,|\s|$)", columns_text)
    bounds = run_query(sample_store, "time_bounds").iloc[0]
    values = {"start": bounds.first_ts, "end": bounds.last_ts, **PARAM_VALUES}
    params = {p.name: values[p.name] for p in query.params if p.catalog_key is None and p.name in values}
    frame = run_query(sample_store, name, **params)
    assert list(frame.columns) == documented, (
        f"{name}.sql: columns {list(frame.columns)} != header {documented}"
    )
    pd.testing.assert_frame_equal(frame, through_a_relation(sample_store, name, **params), check_exact=True)


def test_queries_are_only_top_level_read_files() -> None:
    assert all("/" not in name for name in list_queries())
    assert {p.stem for p in QUERIES_DIR.glob("*.sql")} == set(list_queries())


def test_every_policy_has_an_explicit_branch_in_each_dispatch_function() -> None:
    # No silent default: a policy missing from a chain must not fall through to another's kernel.
    # LRU's branch sits in the inlined entry point, every other policy's in its per-policy chain
    # (which the cluster kernel calls out of line and single_cache.py inlines).
    source = (ROOT / "dashboard" / "engine" / "policies" / "dispatch.py").read_text()

    def body(function: str) -> str:
        return source.split(f"def {function}(", 1)[1].split("\n\n\n", 1)[0]

    for entry, chain in (("touch", "policy_hit"), ("insert", "policy_insert"), ("insert", "policy_evict")):
        branches = set(re.findall(r"p == (\w+)\.POLICY_ID", body(entry) + body(chain)))
        assert branches == set(POLICIES), f"dispatch.{entry}/{chain} branches {sorted(branches)}"
        assert "raise ValueError" in body(chain)
