"""Prometheus text exposition (format 0.0.4) of exported series at one instant."""

from __future__ import annotations

from dashboard.engine.exporter import Series

_SUFFIXES = ("_bucket", "_sum", "_count")


def family_of(metric: str, histogram_bases: set[str]) -> tuple[str, str]:
    """(family name, TYPE) of a sample name."""
    for suffix in _SUFFIXES:
        if metric.endswith(suffix) and metric[: -len(suffix)] in histogram_bases:
            return metric[: -len(suffix)], "histogram"
    return metric, "counter" if metric.endswith("_total") else "gauge"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def render(series: list[Series], index: int = -1) -> str:
    """Text exposition of every series' value at position index, grouped by family."""
    bases = {s.metric[: -len("_bucket")] for s in series if s.metric.endswith("_bucket")}
    families: dict[str, tuple[str, list[str]]] = {}
    for s in series:
        family, kind = family_of(s.metric, bases)
        labels = ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(s.labels.items()))
        line = f"{s.metric}{{{labels}}} {float(s.values[index])!r}"
        families.setdefault(family, (kind, []))[1].append(line)
    out = []
    for family, (kind, lines) in families.items():
        out += [f"# HELP {family} kvscope simulated {kind}", f"# TYPE {family} {kind}", *lines]
    return "\n".join(out) + "\n"
