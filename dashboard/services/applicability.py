"""Which panels apply to the stack in the store, from what the stack says about itself."""

from __future__ import annotations

from dashboard.core import applicability
from dashboard.store.db import Store
from dashboard.store.queries import run_query


def stack_config(store: Store, present: set[str] | None = None) -> applicability.StackConfig:
    """The KV-connector configuration the stored info metrics and connector families describe."""
    present = set(run_query(store, "metric_names")["metric"]) if present is None else present
    rows = run_query(store, "stack_cache_config")
    labels = [
        {
            "kv_offloading_backend": r.kv_offloading_backend or "",
            "kv_offloading_size": r.kv_offloading_size or "",
        }
        for r in rows.itertuples()
    ]
    return applicability.stack_config(present, labels)


def missing(store: Store, keys: tuple[str, ...]) -> dict[str, str]:
    """For each catalog key whose panel does not apply (not exported, or not configured): its 'needs …' text."""
    present = set(run_query(store, "metric_names")["metric"])
    return applicability.unavailable(keys, present, stack_config(store, present))
