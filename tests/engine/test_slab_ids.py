"""Blocks numbered by pod as they are served (slab_ids.py) replay exactly as the trace's own ids do:
the same outcome array for array, and the same cache contents reported in the trace's ids."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.core.types import ClusterConfig, ClusterEvent, RouterConfig, TierConfig, Trace
from dashboard.engine import replay
from dashboard.engine import slab_ids as slab
from dashboard.engine.policies import state_pool
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.slab_ids import id_space, new_slabs, slab_size, trace_ids, unseen_id
from tests.engine.test_mrc import trace_of

TIER_NAMES = ("gpu", "cpu", "disk")


@pytest.fixture(scope="module")
def conversation(mooncake_conversation) -> Trace:
    return read_mooncake(mooncake_conversation)


def config(pods: int, router: str, policy: str, caps: tuple[int, ...]) -> ClusterConfig:
    tiers = tuple(TierConfig(name, cap, policy) for name, cap in zip(TIER_NAMES, caps, strict=False))
    return ClusterConfig(num_pods=pods, tiers=tiers, router=RouterConfig(router))


def replayed(trace: Trace, cfg: ClusterConfig, events: tuple, by_slab: bool, monkeypatch) -> tuple:
    """(outcome, cache snapshots half-way) on fresh states, with or without slab numbering."""
    monkeypatch.setattr(replay, "_uses_slab_ids", replay._uses_slab_ids if by_slab else lambda *_: False)
    state_pool.clear()  # NOTE: a pooled state keeps stale keys in rows no policy of it reads
    outcome = replay.simulate(trace, cfg, events)
    state_pool.clear()
    return outcome, replay.cache_snapshots(trace, cfg, events, upto=trace.num_requests // 2)


CONFIGS = [
    (8, "prefix", "lru", (2_284, 4_569)),
    (3, "prefix", "lru", (300, 700, 1_500)),
    (2, "prefix", "s3fifo", (1_500, 3_000)),
    (3, "precise_prefix", "arc", (900, 1_800)),
    (4, "no_hit_lru", "fifo", (1, 1)),
    (3, "round_robin", "lru", (1_000, 2_000)),
    (2, "session_affinity", "s3fifo", (2_000, 500)),
    (8, "prefix", "s3fifo", (2_284,)),
    (3, "precise_prefix", "fifo", (900,)),
]


@pytest.mark.parametrize("pods, router, policy, caps", CONFIGS)
def test_numbering_by_slab_changes_no_outcome_and_no_cache_content(
    conversation, monkeypatch, pods, router, policy, caps
) -> None:
    cfg = config(pods, router, policy, caps)
    assert replay._uses_slab_ids(cfg, [policy]), "the configuration must take the slab path"
    restart = (ClusterEvent(float(conversation.arrival_s[4_000]), "restart", pod=1),)
    slab_out, slab_snaps = replayed(conversation, cfg, restart, True, monkeypatch)
    own_out, own_snaps = replayed(conversation, cfg, restart, False, monkeypatch)
    for field in own_out.__dataclass_fields__:
        assert np.array_equal(getattr(slab_out, field), getattr(own_out, field), equal_nan=True), field
    assert slab_snaps == own_snaps
    assert sum(len(s.blocks) for s in own_snaps) > 0


@pytest.mark.parametrize(
    "cfg, policies, used",
    [
        (config(8, "prefix", "lru", (100, 200)), ["lru"], True),
        (config(1, "prefix", "lru", (100, 200)), ["lru"], False),  # one pod: its ids are already dense
        (config(8, "prefix", "lru", (100,)), ["lru"], False),  # one LRU tier: measured slower
        (config(8, "prefix", "s3fifo", (100,)), ["s3fifo"], True),
        (config(8, "prefix", "lfu", (100, 200)), ["lfu"], False),  # a heap compacts in id order
        (config(8, "prefix", "learned", (100, 200)), ["learned"], False),  # keys indexed by trace id
        (config(8, "prefix", "oracle", (100, 200)), ["oracle"], False),
    ],
)
def test_slab_numbering_is_taken_only_where_it_cannot_change_a_hit_and_pays(cfg, policies, used) -> None:
    assert replay._uses_slab_ids(cfg, policies) is used


def test_a_request_listing_a_block_twice_gives_it_one_id_and_slabs_open_as_they_fill() -> None:
    # NOTE: their Python bodies: compiled without reference counting, a slice they return is boxed
    # as its parent array when called from Python (in the kernel it is the slice)
    replay_ids, give_ids = slab.replay_ids.py_func, slab.give_ids.py_func
    num_blocks, pods = 10, 2
    ids, slabs = new_slabs(num_blocks, pods)
    unseen, size = unseen_id(num_blocks, pods), slab_size(num_blocks, pods)
    local = np.zeros(8, np.int32)
    request = np.array([3, 7, 3, 1, 0, 2, 4], np.int32)
    got, fresh = replay_ids(request, ids, unseen, local)
    assert fresh and list(got) == [unseen] * 7
    give_ids(request, got, ids, unseen, 1, slabs)
    assert got[0] == got[2]  # the same block, the same id
    assert len({int(x) for x in got}) == 6 and all(0 <= x < unseen for x in got)
    assert list(got[:2]) == [0, 1] and got[6] == size  # the first slab full, pod 1 opened the next
    other = np.array([3, 9], np.int32)
    got2, fresh2 = replay_ids(other, ids, unseen, np.zeros(2, np.int32))
    assert fresh2 and got2[0] == got[0] and got2[1] == unseen
    give_ids(other, got2, ids, unseen, 0, slabs)
    assert got2[1] == 2 * size  # pod 0's first slab comes after the two pod 1 opened
    back = trace_ids(ids, id_space(num_blocks, pods))
    assert [int(back[x]) for x in got] == [3, 7, 3, 1, 0, 2, 4] and back[got2[1]] == 9


def test_a_small_trace_grows_the_id_space_by_its_size_or_one_id_per_pod_at_most(monkeypatch) -> None:
    trace = trace_of([[0, 1, 2], [0, 1, 3], [4], [0, 1, 2, 5]], [48, 48, 16, 64], 16)
    for pods in (2, 3, 8):
        assert id_space(trace.num_blocks, pods) <= trace.num_blocks + max(trace.num_blocks, pods) + 1
    cfg = config(8, "prefix", "lru", (2, 2))
    slab_out, slab_snaps = replayed(trace, cfg, (), True, monkeypatch)
    own_out, own_snaps = replayed(trace, cfg, (), False, monkeypatch)
    assert np.array_equal(slab_out.hit_blocks, own_out.hit_blocks) and slab_snaps == own_snaps
    assert own_out.hit_blocks.sum() > 0
