"""Eviction policies: the one registry of names, ids and descriptions.

Each policy lives in its own module with hit / insert / evict kernels over a shared CacheState
(see state.py); dispatch.py routes a cache's integer id to its module.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PolicyInfo:
    """A registered policy: its kernel id, what it does and whether it is only a reference."""

    name: str
    policy_id: int
    description: str
    is_reference: bool = False  # reads the future; a ceiling, not something to deploy
    uses_heap: bool = False
    reads_block_keys: bool = False  # reads BlockInfo's score / next_use, refreshed per access only then
    keeps_block_keys: bool = False  # keeps CacheState.k1 / k2 per block; allocated only then (state.py)


def _registry() -> dict[str, PolicyInfo]:
    from dashboard.engine.policies import arc, fifo, learned, lfu, lru, oracle, s3fifo

    rows = [
        PolicyInfo(lru.NAME, lru.POLICY_ID, lru.DESCRIPTION),
        PolicyInfo(fifo.NAME, fifo.POLICY_ID, fifo.DESCRIPTION),
        PolicyInfo(lfu.NAME, lfu.POLICY_ID, lfu.DESCRIPTION, uses_heap=True, keeps_block_keys=True),
        PolicyInfo(s3fifo.NAME, s3fifo.POLICY_ID, s3fifo.DESCRIPTION, keeps_block_keys=True),  # k2: frequency
        PolicyInfo(arc.NAME, arc.POLICY_ID, arc.DESCRIPTION),
        PolicyInfo(
            oracle.NAME,
            oracle.POLICY_ID,
            oracle.DESCRIPTION,
            is_reference=True,
            uses_heap=True,
            reads_block_keys=True,
            keeps_block_keys=True,
        ),
        PolicyInfo(
            learned.NAME,
            learned.POLICY_ID,
            learned.DESCRIPTION,
            uses_heap=True,
            reads_block_keys=True,
            keeps_block_keys=True,
        ),
    ]
    return {row.name: row for row in rows}


POLICIES: dict[str, PolicyInfo] = _registry()


def policy_names() -> tuple[str, ...]:
    """Names of every registered policy, in registry order."""
    return tuple(POLICIES)


def policy_info(name: str) -> PolicyInfo:
    """The registered policy called name, or a ValueError listing the known ones."""
    try:
        return POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(POLICIES)}") from None
