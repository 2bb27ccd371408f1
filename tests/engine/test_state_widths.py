"""CacheState allocates per-block keys and heaps only for the policies that use them.

k1/k2 are two 8-byte arrays over every block id for every cache (3.8 GB of address space at 10^7
blocks × 24 caches), so make_state gives them zero width unless a policy of the replay keeps
them. That is only safe while no other kernel indexes them: these tests read every kernel's
source and fail when a module starts to touch them without its registry flag.
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

from dashboard.engine import cluster_kernel, routers, top_lru, views
from dashboard.engine.policies import POLICIES, dispatch, lru_registers
from dashboard.engine.replay import _state
from tests.engine.gen import trace_from_paths

KEYS = re.compile(r"\bst\.(k1|k2)\b")
HEAP = re.compile(r"\b(heap_push|heap_pop_live)\b|\bst\.(hk1|hk2|hblk|hsize)\b")


def _policy_module(name: str):
    return importlib.import_module(f"dashboard.engine.policies.{name}")


@pytest.mark.parametrize("name", list(POLICIES))
def test_a_policy_touches_the_block_keys_exactly_when_its_registry_row_says_so(name):
    source = inspect.getsource(_policy_module(name))
    assert bool(KEYS.search(source)) == POLICIES[name].keeps_block_keys, name


@pytest.mark.parametrize("name", list(POLICIES))
def test_a_policy_touches_the_heap_exactly_when_its_registry_row_says_so(name):
    source = inspect.getsource(_policy_module(name))
    assert bool(HEAP.search(source)) == POLICIES[name].uses_heap, name


@pytest.mark.parametrize("module", [dispatch, cluster_kernel, top_lru, lru_registers, routers, views])
def test_no_shared_kernel_reads_the_keys_or_the_heap(module):
    source = inspect.getsource(module)
    assert not KEYS.search(source) and not HEAP.search(source), module.__name__


TRACE = trace_from_paths([[0, 1, 2], [0, 1, 3], [4]])


@pytest.mark.parametrize("names", [["lru"], ["lru", "fifo"], ["arc", "lru"]])
def test_a_replay_whose_policies_keep_no_keys_allocates_none(names):
    st = _state(TRACE, [2] * len(names), names)
    assert st.k1.shape == (len(names), 0) and st.k2.shape == (len(names), 0)
    assert st.hk1.shape[1] == 1


@pytest.mark.parametrize("names", [["lru", "s3fifo"], ["lfu"], ["oracle", "lru"], ["learned"]])
def test_a_replay_with_a_policy_that_keeps_keys_gets_them_for_every_block(names):
    st = _state(TRACE, [2] * len(names), names)
    assert st.k1.shape == (len(names), TRACE.num_blocks) and st.k2.shape == st.k1.shape
