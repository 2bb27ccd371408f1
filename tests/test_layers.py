"""DESIGN.md's layer rules, checked by walking every module's imports."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "dashboard"

# Rank of each layer: a module may import dashboard layers of lower or equal rank only.
# store, ingest and engine share a rank: they are peers that never import each other (DESIGN.md).
PEERS = ("engine", "ingest", "store")
PRESENTATION = ("ui", "app_pages", "app")  # reach the store, ingest, sim and engine only through services
RANKS = {
    "core": 0,
    "engine": 1,
    "ingest": 1,
    "store": 1,
    "sim": 1.5,  # the simulated cluster: built on engine and core, beside services' other inputs
    "services": 4,
    "commands": 5,
    "cli": 5,
    "ui": 5,
    "app_pages": 6,
    "app": 7,
    "__main__": 8,
    "__init__": 0,
}
# Third-party packages only some layers may use.
ONLY_IN = {
    "streamlit": {"ui", "app_pages", "app"},
    "duckdb": {"store"},
    "requests": {"ingest"},
    "urllib3": {"ingest"},
    "http": {"ingest"},
}


def layer_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "queries" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_imports_only_lower_layers(path: Path) -> None:
    layer = layer_of(path)
    assert layer in RANKS, f"{path}: unknown layer {layer!r}; add it to DESIGN.md and RANKS"
    for name in imports_of(path):
        parts = name.split(".")
        if parts[0] == "dashboard" and len(parts) > 1:
            target = parts[1]
            assert RANKS[target] <= RANKS[layer] or target == layer, (
                f"{path.relative_to(PACKAGE)} ({layer}) imports {name} ({target}), a higher layer"
            )
            assert layer != "sim" or target in ("core", "engine", "sim"), (
                f"{path.relative_to(PACKAGE)} (sim) imports {name}: the simulator uses engine and core only"
            )
            assert layer not in PRESENTATION or target in ("core", "services", *PRESENTATION), (
                f"{path.relative_to(PACKAGE)} ({layer}) imports {name}: pages and ui/ go through services"
            )
            assert not (layer in PEERS and target in PEERS and target != layer), (
                f"{path.relative_to(PACKAGE)} ({layer}) imports {name}: store, ingest and engine are peers"
            )
        allowed = ONLY_IN.get(parts[0])
        assert allowed is None or layer in allowed, (
            f"{path.relative_to(PACKAGE)} ({layer}) imports {parts[0]}, allowed only in {sorted(allowed)}"
        )


def test_layer_walk_sees_the_engine() -> None:
    # Guards the test itself: an empty walk would pass every rule.
    assert any(layer_of(p) == "engine" for p in MODULES)


def test_engine_holds_no_simulator_code() -> None:
    # The simulator (workload, scenarios, exporter, exposition) lives in dashboard/sim/ (DESIGN.md).
    engine = {p.stem for p in (PACKAGE / "engine").glob("*.py")}
    assert not engine & {"workload", "scenario", "exporter", "dialects", "exposition"}
    assert not any(
        name.startswith("dashboard.sim") for p in MODULES if layer_of(p) == "engine" for name in imports_of(p)
    )


def test_the_peer_rule_is_checked_on_real_modules() -> None:
    # Guards the rule itself: each peer has modules, so a violation would be seen.
    assert {layer_of(p) for p in MODULES} >= set(PEERS)


_SQL = re.compile(
    r"^\s*(SELECT|WITH|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|COPY|ATTACH)\b.*\b(FROM|INTO|TABLE|SET|AS|TO)\b",
    re.DOTALL,  # NOTE: the house writes SQL keywords in capitals; prose ("copy … into") is not SQL
)


def sql_strings(path: Path) -> list[str]:
    """String constants of a module that read as SQL statements (docstrings left out)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and _SQL.match(node.value)
    ]


@pytest.mark.parametrize(
    "path", [p for p in MODULES if layer_of(p) != "store"], ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_no_sql_text_outside_the_store(path: Path) -> None:
    assert not sql_strings(path), f"{path.relative_to(PACKAGE)}: SQL belongs in queries/ (DESIGN.md)"


def test_the_sql_check_sees_sql(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        '"""Doc: SELECT x FROM y is prose here."""\nQ = "SELECT a FROM t"\nH = "run one SELECT"\n'
    )
    assert sql_strings(module) == ["SELECT a FROM t"]
