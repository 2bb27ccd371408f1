"""The Traces page's icicle of the most shared prefixes names the requests it does not show."""

from __future__ import annotations

import numpy as np

from dashboard.core.trace_stats import ROOT, PrefixTree
from dashboard.ui.trace_charts import OTHER_COLOR, prefix_icicle


def tree(first_block_counts: list[int], total: int) -> PrefixTree:
    """Chains of one block each under the root, holding the given numbers of requests."""
    n = len(first_block_counts)
    return PrefixTree(
        node_ids=np.arange(n, dtype=np.int64),
        parent_ids=np.full(n, ROOT, np.int64),
        depth_blocks=np.zeros(n, np.int64),
        num_requests=np.asarray(first_block_counts, np.int64),
        prefix_tokens=np.full(n, 64, np.int64),
        num_requests_total=total,
    )


def test_requests_outside_the_shown_prefixes_are_a_named_grey_box_not_a_blank():
    icicle = prefix_icicle(tree([50, 20], 100), 64).data[0]
    assert icicle.branchvalues == "total"
    assert list(icicle.labels[-1:]) == ["other first blocks"] and icicle.values[-1] == 30
    assert icicle.parents[-1] == "root" and icicle.marker.colors[-1] == OTHER_COLOR
    assert sum(v for v, p in zip(icicle.values, icicle.parents, strict=True) if p == "root") == 100


def test_a_shared_prefix_whose_shown_children_hold_few_of_its_requests_names_the_rest():
    # The conversation trace's shape: every request shares the first block, then diverges
    shape = PrefixTree(
        node_ids=np.array([0, 1, 2], np.int64),
        parent_ids=np.array([ROOT, 0, 0], np.int64),
        depth_blocks=np.array([0, 1, 1], np.int64),
        num_requests=np.array([100, 3, 2], np.int64),
        prefix_tokens=np.array([512, 1024, 1024], np.int64),
        num_requests_total=100,
    )
    icicle = prefix_icicle(shape, 512).data[0]
    others = {
        p: v
        for p, v, label in zip(icicle.parents, icicle.values, icicle.labels, strict=True)
        if "other" in label
    }
    assert others == {"b0": 95}  # not under the root, which its one child covers; none under the leaves


def test_no_other_box_when_the_shown_prefixes_hold_every_request():
    icicle = prefix_icicle(tree([60, 40], 100), 64).data[0]
    assert "other first blocks" not in icicle.labels and len(icicle.labels) == 3
