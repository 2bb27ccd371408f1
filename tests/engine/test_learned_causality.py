"""The learned policy is online: nothing after a request, not even its own output length, shapes it.

Replaying the first N requests alone gives the same per-request hits as the full trace and leaves
every cache exactly as the full replay leaves it after N (`cache_snapshots(upto=N)`, whose inputs
are worked out from the whole trace), at N = 25, 50 and 75% of the Mooncake conversation trace.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from dashboard.core.types import ClusterConfig, RouterConfig, TierConfig, Trace
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import (
    LearnedOptions,
    cache_snapshots,
    learned_block_rules,
    learned_request_keys,
    simulate,
)

FRACTIONS = (0.25, 0.5, 0.75)
CONFIGS = {  # small caches, so the learned scores decide many evictions before N
    "one cache": ClusterConfig(1, (TierConfig("gpu", 2_000, "learned"),), RouterConfig("round_robin")),
    "2 pods, prefix router, learned HBM and CPU": ClusterConfig(
        2, (TierConfig("gpu", 800, "learned"), TierConfig("cpu", 1_600, "learned")), RouterConfig("prefix")
    ),
}


@pytest.fixture(scope="module")
def conversation(mooncake_conversation) -> Trace:
    return read_mooncake(mooncake_conversation)


def first_requests(trace: Trace, n: int) -> Trace:
    """The trace as it stood after its first n requests (ids are numbered by first appearance)."""
    accesses = int(trace.offsets[n])
    return dataclasses.replace(
        trace,
        arrival_s=trace.arrival_s[:n],
        offsets=trace.offsets[: n + 1],
        block_ids=trace.block_ids[:accesses],
        input_tokens=trace.input_tokens[:n],
        output_tokens=trace.output_tokens[:n],
        num_blocks=int(trace.block_ids[:accesses].max()) + 1,
        session_ids=trace.session_ids[:n],
        turns=trace.turns[:n],
        type_codes=trace.type_codes[:n],
    )


@pytest.mark.parametrize("fraction", FRACTIONS)
@pytest.mark.parametrize("name", list(CONFIGS))
def test_replaying_the_first_n_alone_gives_the_same_hits_and_cache_state(
    conversation, name, fraction
) -> None:
    config = CONFIGS[name]
    n = int(conversation.num_requests * fraction)
    head = first_requests(conversation, n)
    full_hits = simulate(conversation, config).hit_blocks[:n]
    np.testing.assert_array_equal(simulate(head, config).hit_blocks, full_hits)
    assert full_hits[:, 0].sum() > 0  # the caches were used, and with two tiers both served hits
    assert full_hits[:, 1].sum() > 0 or len(config.tiers) == 1
    after_head = cache_snapshots(head, config)
    assert after_head == cache_snapshots(conversation, config, upto=n)
    assert all(len(s.blocks) > 0 for s in after_head)


def test_every_request_keys_the_same_whatever_comes_after_it(conversation) -> None:
    # The scores and block rules are where the future could leak in (the rules' events resolve
    # later requests); at many cut points a leak shows at the cut.
    full = learned_request_keys(conversation, LearnedOptions())
    full_rules = learned_block_rules(conversation, LearnedOptions())
    assert (full_rules.tail_adjust < 0).sum() > 0 and (full_rules.sup_parent >= 0).sum() > 0
    for n in np.linspace(50, conversation.num_requests - 1, 60).astype(int):
        head = first_requests(conversation, n)
        np.testing.assert_array_equal(learned_request_keys(head, LearnedOptions()), full[:n])
        for got, want in zip(learned_block_rules(head, LearnedOptions()), full_rules, strict=True):
            np.testing.assert_array_equal(got, want[:n])


@pytest.mark.parametrize("fraction", FRACTIONS)
def test_no_output_length_from_request_n_on_changes_anything_up_to_n(conversation, fraction) -> None:
    # Request N−1's own output is only known after it decoded, after its blocks were scored.
    n = int(conversation.num_requests * fraction)
    rng = np.random.default_rng(n)
    output = conversation.output_tokens.copy()
    output[n - 1 :] = rng.integers(1, 4_000, conversation.num_requests - n + 1)
    changed = dataclasses.replace(conversation, output_tokens=output)
    np.testing.assert_array_equal(
        learned_request_keys(changed, LearnedOptions())[:n],
        learned_request_keys(conversation, LearnedOptions())[:n],
    )
    config = CONFIGS["one cache"]
    assert cache_snapshots(changed, config, upto=n) == cache_snapshots(conversation, config, upto=n)


def test_the_snapshots_tell_a_different_past_apart(conversation) -> None:
    # The comparisons above could not pass by accident: within a few requests of the middle, one
    # request more leaves another state (not every one does: a block scored lowest on arrival is
    # evicted at once, and a hit on a block holding a higher score changes nothing).
    config = CONFIGS["one cache"]
    n = conversation.num_requests // 2
    states = [cache_snapshots(conversation, config, upto=i) for i in range(n, n + 10)]
    assert sum(a != b for a, b in itertools.pairwise(states)) >= 3
