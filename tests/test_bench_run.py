"""`python -m bench.run`: which modules it runs, its one-line refusal, how a partial rerun merges, and its timing helpers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.run import Result, medians_note, merged, module_names, paired_medians, render_markdown

REPO = Path(__file__).resolve().parent.parent


def row(module: str, name: str, value: float) -> dict:
    """A results.json row as bench.run writes it."""
    return {"name": name, "command": "c", "value": value, "unit": "s", "module": module, "ratio": None}


def test_every_bench_module_is_listed_and_nothing_else():
    on_disk = sorted(p.stem for p in (REPO / "bench").glob("bench_*.py"))
    assert module_names() == on_disk
    listed = subprocess.run(
        [sys.executable, "-m", "bench.run", "--list"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0 and listed.stdout.split() == on_disk


def test_an_unknown_module_is_one_line_exit_2_and_the_reports_stay_as_they_were():
    before = [(REPO / f).read_bytes() for f in ("BENCHMARKS.md", "bench/results.json")]
    done = subprocess.run(
        [sys.executable, "-m", "bench.run", "bench_replay", "bench_nope"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "'bench_nope'" in done.stderr and "bench_replay" in done.stderr
    assert done.stdout == ""  # NOTE: refused before bench_replay ran
    assert [(REPO / f).read_bytes() for f in ("BENCHMARKS.md", "bench/results.json")] == before


def test_a_partial_rerun_replaces_its_modules_rows_and_keeps_the_others_in_place():
    stored = [row("bench_a", "a1", 1.0), row("bench_b", "b1", 2.0), row("bench_a", "a_gone", 3.0),
              row("bench_c", "c1", 4.0)]  # fmt: skip
    new = [("bench_a", Result("a1", "c", 10.0, "s")), ("bench_a", Result("a_new", "c", 11.0, "s"))]
    out = merged(new, {"bench_a"}, stored)
    assert [(m, r.name, r.value) for m, r in out] == [
        ("bench_a", "a1", 10.0),  # replaced where it stood
        ("bench_a", "a_new", 11.0),  # a new row goes after its module's other rows
        ("bench_b", "b1", 2.0),
        ("bench_c", "c1", 4.0),
    ]  # a_gone: its module reran without it


def test_a_missed_target_is_marked_in_the_table():
    table = render_markdown([
        Result("fast", "cmd", 1.0, "s", "base", 2.0, target="≤ 1.5×", is_met=True),
        Result("slow", "cmd", 4.0, "s", "base", 2.0, target="≤ 1.5×", is_met=False),
    ])  # fmt: skip
    assert "| fast | 1 s | 2 (base) | 0.50× | ≤ 1.5× | yes |  | `cmd` |" in table
    assert "| slow | 4 s | 2 (base) | 2.00× | ≤ 1.5× | **no** |  | `cmd` |" in table


def test_each_row_keeps_the_day_it_was_measured_and_the_header_names_every_day():
    stored = [
        row("bench_a", "a1", 1.0) | {"measured": "2026-12-04"},
        row("bench_b", "b1", 2.0) | {"measured": "2026-12-05"},
    ]
    new = [("bench_a", Result("a1", "c", 10.0, "s", measured="2026-12-07"))]
    out = merged(new, {"bench_a"}, stored)
    assert [(r.name, r.measured) for _, r in out] == [("a1", "2026-12-07"), ("b1", "2026-12-05")]
    table = render_markdown([r for _, r in out])
    assert "measured on 2026-12-05 and 2026-12-07 (" in table
    assert "| a1 | 10 s |  |  |  |  | 2026-12-07 | `c` |" in table and "| 2026-12-05 |" in table


def test_paired_medians_alternate_only_runs_as_many_and_the_note_says_which():
    calls: list[str] = []
    paired_medians(lambda: calls.append("a"), lambda: calls.append("b"), (2, 2))
    assert calls == ["a", "b", "a", "b"]
    calls.clear()
    paired_medians(lambda: calls.append("a"), lambda: calls.append("b"), (3, 1))
    assert calls == ["a", "a", "a", "b"]
    assert medians_note((2, 2), "curves", "sweeps") == "medians of 2 curves and 2 sweeps, alternating"
    assert medians_note((3, 1), "curves", "sweep") == "medians of 3 curves and 1 sweep"
