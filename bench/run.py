"""`make bench`: run every bench/bench_*.py, write BENCHMARKS.md and bench/results.json.

Each benchmark module defines run() -> list[Result]. Results carry the exact command that
reproduces them, the median of repeated runs, and a baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import platform
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Result:
    """One benchmark figure with its baseline measured beside it."""

    name: str
    command: str
    value: float
    unit: str
    baseline_name: str = ""
    baseline_value: float | None = None
    target: str = ""
    is_met: bool | None = None
    notes: str = ""
    measured: str = ""  # YYYY-MM-DD: a partial rerun (main) leaves other modules' rows from their own day

    @property
    def ratio(self) -> float | None:
        """value / baseline_value, when there is a baseline."""
        if not self.baseline_value:
            return None
        return self.value / self.baseline_value


def timed_median(fn, repeats: int = 5) -> float:
    """Median wall seconds of fn() over repeats runs."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return median(times)


def interleaved_medians(fn, baseline, repeats: int = 5) -> tuple[float, float]:
    """Median wall seconds of fn() and of baseline(), run alternately repeats times each."""
    pairs = [(timed_median(fn, 1), timed_median(baseline, 1)) for _ in range(repeats)]
    return median(p[0] for p in pairs), median(p[1] for p in pairs)


def paired_medians(fn, baseline, repeats: tuple[int, int]) -> tuple[float, float]:
    """Median wall seconds of fn() over repeats[0] runs and of baseline() over repeats[1]: alternately
    when they run as often (the machine's load then weighs on both alike), else each in a row (a
    baseline that takes minutes runs once)."""
    if repeats[0] == repeats[1]:
        return interleaved_medians(fn, baseline, repeats[0])
    return timed_median(fn, repeats[0]), timed_median(baseline, repeats[1])


def medians_note(repeats: tuple[int, int], what: str, baseline: str) -> str:
    """'medians of 3 curves and 1 sweep', with ', alternating' where paired_medians alternated them."""
    runs = f"medians of {repeats[0]} {what} and {repeats[1]} {baseline}"
    return runs + (", alternating" if repeats[0] == repeats[1] else "")


def peak_rss_kib() -> int:
    """This process's own peak resident set (VmHWM, KiB).

    NOTE: not ru_maxrss: Linux carries a parent's peak into a forked child and across exec, so a
    child of a bench process that once held gigabytes would report those gigabytes as its own.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def render_markdown(results: list[Result]) -> str:
    """BENCHMARKS.md: a table of every figure and the command behind it."""
    lines = [
        "# Benchmarks",
        "",
        f"Produced by `make bench` (`python -m bench.run`), {platform.machine()}, Python "
        f"{platform.python_version()}, {_cores()} cores, measured on {_days(results)} (each row's day "
        "under *measured*: naming modules reruns only those). Figures are medians of repeated runs; "
        "the baseline ran in the same process on the same input.",
        "",
        "| benchmark | value | baseline | ratio | target | met | measured | command |",
        "|---|---:|---:|---:|---|---|---|---|",
    ]
    for r in results:
        base = "" if r.baseline_value is None else f"{r.baseline_value:,.4g} ({r.baseline_name})"
        ratio = "" if r.ratio is None else f"{r.ratio:,.2f}×"
        met = {True: "yes", False: "**no**", None: ""}[r.is_met]
        lines.append(
            f"| {r.name} | {r.value:,.4g} {r.unit} | {base} | {ratio} | {r.target} | {met} | {r.measured} "
            f"| `{r.command}` |"
        )
    notes = [f"- **{r.name}**: {r.notes}" for r in results if r.notes]
    if notes:
        lines += ["", "## Notes", "", *notes]
    return "\n".join(lines) + "\n"


def _days(results: list[Result]) -> str:
    """The days the rows were measured, in order: '2026-12-06 and 2026-12-07'."""
    days = sorted({r.measured for r in results if r.measured})
    return " and ".join([", ".join(days[:-1]), days[-1]] if len(days) > 1 else days) or "an unknown day"


def _cores() -> int:
    import os

    return os.cpu_count() or 1


def module_names() -> list[str]:
    """Every benchmark module (bench/bench_*.py), in name order."""
    import bench

    return sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_"))


def main(argv: list[str]) -> int:
    """Run the benchmark modules named in argv (default: all) and write the reports."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.run",
        description="Run benchmarks and write BENCHMARKS.md and bench/results.json. Naming modules "
        "reruns only those: the other modules' rows stay as they were.",
    )
    parser.add_argument("modules", nargs="*", metavar="MODULE", help="e.g. bench_replay (default: all)")
    parser.add_argument("--list", action="store_true", help="print the benchmark modules and exit")
    args = parser.parse_args(argv)
    known = module_names()
    if args.list:
        print("\n".join(known))
        return 0
    unknown = [name for name in args.modules if name not in known]
    if unknown:
        print(f"bench: no benchmark module {unknown[0]!r}; choose from {', '.join(known)}", file=sys.stderr)
        return 2
    names = args.modules or known
    results: list[tuple[str, Result]] = []
    for name in names:
        print(f"bench: {name} …", file=sys.stderr, flush=True)
        today = time.strftime("%Y-%m-%d")
        results += [
            (name, replace(r, measured=today)) for r in importlib.import_module(f"bench.{name}").run()
        ]
    if args.modules:  # NOTE: some modules only: the other modules' rows stay as they were
        path = ROOT / "bench" / "results.json"
        results = merged(results, set(names), json.loads(path.read_text()) if path.exists() else [])
    (ROOT / "BENCHMARKS.md").write_text(render_markdown([r for _, r in results]))
    payload = [asdict(r) | {"ratio": r.ratio} | ({"module": m} if m else {}) for m, r in results]
    (ROOT / "bench" / "results.json").write_text(json.dumps(payload, indent=2) + "\n")
    print(render_markdown([r for _, r in results]))
    return 0


def merged(new: list[tuple[str, Result]], rerun: set[str], stored: list[dict]) -> list[tuple[str, Result]]:
    """The stored rows (results.json's) with those of the rerun modules (or of the same name)
    replaced by new ones; a rerun module's stored row it no longer produces is dropped."""
    fresh = {r.name: (m, r) for m, r in new}
    fields = Result.__dataclass_fields__
    out, placed = [], set()
    for row in stored:
        if row.get("module") in rerun and row["name"] not in fresh:
            continue
        if row["name"] in fresh:
            out.append(fresh[row["name"]])
            placed.add(row["name"])
        else:
            out.append((row.get("module", ""), Result(**{k: v for k, v in row.items() if k in fields})))
    for m, r in new:  # NOTE: a new row goes after its module's other rows, not at the end
        if r.name not in placed:
            at = max((i + 1 for i, (mod, _) in enumerate(out) if mod == m), default=len(out))
            out.insert(at, (m, r))
    return out


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
