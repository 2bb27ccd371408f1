"""Prometheus text exposition (format 0.0.4) of exported series at one instant, by prometheus_client."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import Metric

from dashboard.sim.exporter import Series

_HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def family_of(metric: str, histogram_bases: set[str]) -> tuple[str, str]:
    """(family name as prometheus_client names it, TYPE) of a sample name."""
    for suffix in _HISTOGRAM_SUFFIXES:
        if metric.endswith(suffix) and metric[: -len(suffix)] in histogram_bases:
            return metric[: -len(suffix)], "histogram"
    if metric.endswith("_total"):  # prometheus_client appends _total to a counter family's name
        return metric[: -len("_total")], "counter"
    return metric, "gauge"


class _Snapshot:
    """A one-shot collector: every series' value at one scrape position, grouped by family."""

    def __init__(self, series: list[Series], index: int) -> None:
        self._series = series
        self._index = index

    def collect(self) -> Iterator[Metric]:
        bases = {s.metric[: -len("_bucket")] for s in self._series if s.metric.endswith("_bucket")}
        families: dict[str, Metric] = {}
        for s in self._series:
            name, kind = family_of(s.metric, bases)
            family = families.get(name)
            if family is None:
                family = families[name] = Metric(name, f"kvscope simulated {kind}", kind)
            family.add_sample(s.metric, dict(s.labels), float(s.values[self._index]))
        yield from families.values()


def render(series: list[Series], index: int = -1) -> str:
    """Text exposition of every series' value at position index, grouped by family."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Snapshot(series, index))
    return generate_latest(registry).decode("utf-8")
