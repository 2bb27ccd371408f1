"""`kvscope doctor`: the state of a store file, and a salvage of what is readable into a new one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dashboard.store.health import StoreReport, TableSalvage, inspect_store, salvage


@dataclass(frozen=True)
class SalvageResult:
    """A finished salvage: the new file and what each table kept and lost."""

    source: Path
    target: Path
    tables: tuple[TableSalvage, ...]

    @property
    def num_copied(self) -> int:
        """Rows copied over every table."""
        return sum(t.num_copied for t in self.tables)

    @property
    def num_lost(self) -> int | None:
        """Rows left behind (None when a table's row count itself was unreadable)."""
        lost = [t.num_lost for t in self.tables]
        return None if None in lost else sum(lost)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready fields."""
        return {
            "source": str(self.source),
            "target": str(self.target),
            "num_copied": self.num_copied,
            "num_lost": self.num_lost,
            "tables": [t.__dict__ for t in self.tables],
        }


def diagnose(path: Path) -> StoreReport:
    """Read the whole store read-only and report its state (the file is never written)."""
    return inspect_store(Path(path))


def salvage_store(path: Path, target: Path) -> SalvageResult:
    """Copy what is readable of the store at path into the new file target (ValueError if it exists)."""
    path, target = Path(path), Path(target)
    if not path.is_file():
        raise ValueError(f"no store file at {path} to salvage")
    return SalvageResult(path, target, tuple(salvage(path, target)))


def report_dict(report: StoreReport) -> dict[str, object]:
    """A StoreReport as JSON-ready fields."""
    return {
        "path": str(report.path),
        "state": report.state,
        "message": report.message,
        "size_bytes": report.size_bytes,
        "has_wal": report.has_wal,
        "schema_version": report.schema_version,
        "latest_schema_version": report.latest_schema_version,
        "tables": [{"name": t.name, "num_rows": t.num_rows, "error": t.error} for t in report.tables],
    }


def report_lines(report: StoreReport) -> list[str]:
    """The report as text: the one-line state, then a row per table."""
    lines = [f"{report.state}: {report.message}"]
    if report.size_bytes is not None:
        version = "unknown" if report.schema_version is None else str(report.schema_version)
        lines.append(
            f"  {report.size_bytes:,} bytes{' + write-ahead log' if report.has_wal else ''}; "
            f"schema version {version} (this kvscope: {report.latest_schema_version})"
        )
    for t in report.tables:
        rows = "-" if t.num_rows is None else f"{t.num_rows:,}"
        lines.append(f"  {t.name:<20} {rows:>12}  {'ok' if t.is_ok else t.error}")
    return lines


def salvage_lines(result: SalvageResult) -> list[str]:
    """The salvage as text: the new file, then rows kept and lost per table."""
    lost = "an unknown number of" if result.num_lost is None else f"{result.num_lost:,}"
    lines = [f"salvaged {result.num_copied:,} rows into {result.target}; {lost} rows were unreadable"]
    for t in result.tables:
        kept = f"{t.num_copied:,} copied"
        lines.append(f"  {t.name:<20} {kept:>16}  {'-' if t.num_lost is None else f'{t.num_lost:,}'} lost")
    return lines
