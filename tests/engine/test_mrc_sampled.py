"""Sampled miss-ratio curves: within their stated error of the exact sweep, chains kept whole, deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.core.types import MissRatioCurve, Trace
from dashboard.engine import mrc_windows
from dashboard.engine.mrc import REFERENCE_FRACTIONS, default_capacities, exact_is_quick, lru_mrc, policy_mrc
from dashboard.engine.mrc_sampled import (
    DEFAULT_RATE,
    MEASURED_MAX_ABS_ERROR,
    capacity_rates,
    corrected,
    sample_requests,
    sampled_policy_mrc,
    sampling_units,
)
from dashboard.engine.mrc_windows import (
    NUM_WINDOWS,
    warmups,
    window_curves,
    window_requests,
    window_share,
    window_trunk_share,
)
from dashboard.engine.policies import policy_info, policy_names
from dashboard.engine.readers import read_trace
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import replay_single_cache
from dashboard.engine.sub_traces import sub_trace

CAPACITIES = np.array([1_827, 9_139, 18_279, 45_697, 91_395])  # 1/5/10/25/50% of the unique blocks


@pytest.fixture(scope="module")
def conversation(mooncake_conversation):
    return read_mooncake(mooncake_conversation)


def max_abs_error(approx, exact) -> float:
    return float(
        max(
            np.abs(approx.block_hit_ratio - exact.block_hit_ratio).max(),
            np.abs(approx.token_hit_ratio - exact.token_hit_ratio).max(),
        )
    )


def test_every_sampled_policy_has_a_measured_error():
    assert (
        set(MEASURED_MAX_ABS_ERROR)
        == {p for p in policy_names() if not exact_is_quick(p)}
        == set(policy_names()) - {"lru", "fifo", "lfu"}
    )


@pytest.mark.parametrize("policy", ["s3fifo", "arc", "learned"])
def test_sampled_curve_is_within_its_stated_error_at_every_point(conversation, policy):
    sampled = sampled_policy_mrc(conversation, policy, CAPACITIES)
    exact = policy_mrc(conversation, policy, CAPACITIES)
    assert sampled.curve.capacity_blocks.tolist() == CAPACITIES.tolist()
    assert sampled.max_abs_error == MEASURED_MAX_ABS_ERROR[policy]
    assert max_abs_error(sampled.curve, exact) <= sampled.max_abs_error
    assert sampled.label().startswith(f"{policy} (sampled 5%, measured ±")


@pytest.mark.parametrize("policy", ["learned", "oracle"])
def test_sampled_curve_of_the_synthetic_trace_is_within_its_stated_error_for_every_seed(
    mooncake_synthetic, policy
):
    # NOTE: this trace set these two bounds (docs/whatif.md): every point of the default grid, seeds 0-2
    trace = read_mooncake(mooncake_synthetic)
    exact = policy_mrc(trace, policy)
    for seed in range(3):
        sampled = sampled_policy_mrc(trace, policy, seed=seed)
        assert max_abs_error(sampled.curve, exact) <= MEASURED_MAX_ABS_ERROR[policy], seed


def test_sampled_curve_of_the_embedded_sample_is_within_its_stated_error():
    trace = read_trace(SAMPLE_DATA_DIR / "requests.parquet")
    caps = (np.array(REFERENCE_FRACTIONS)[[1, 2, 4]] * trace.num_blocks).astype(np.int64)  # 5/10/50%
    sampled = sampled_policy_mrc(trace, "arc", caps)
    assert max_abs_error(sampled.curve, policy_mrc(trace, "arc", caps)) <= MEASURED_MAX_ABS_ERROR["arc"]


def test_capacities_near_the_trunk_are_sampled_at_a_higher_rate_and_replayed_exactly_from_half():
    caps = np.array([200, 284, 300, 425, 1_000, 2_000, 3_000, 4_000])
    # room for 142 blocks beside 284 trunk blocks: at 1,000, 5% of 716 is 36 and 20% is 143;
    # at 3,000, 5% of 2,716 is 136; from 40% on, and in a cache no larger than the trunk, the whole
    # trace is replayed
    assert capacity_rates(caps, 284, 0.05).tolist() == [1.0, 1.0, 1.0, 1.0, 0.2, 0.1, 0.1, 0.05]
    assert capacity_rates(caps, 0, 0.05).tolist() == [0.05] * caps.size
    # a rate the user asked for is kept where no raise is needed, however high
    assert capacity_rates(caps, 284, 0.6).tolist() == [1.0, 1.0, 1.0, 1.0, 0.6, 0.6, 0.6, 0.6]


# Worst |sampled − exact| on the embedded sample (every default capacity, seeds 0-2), rounded up:
# S3-FIFO 0.039, ARC 0.019, LFU 0.125 and learned 0.011 before its capacities near the trunk were
# replayed over windows (LFU 0.074 after; its curve is exact now: exact_is_quick).
SAMPLE_WINDOWED_ERROR = {"s3fifo": 0.023, "arc": 0.015, "learned": 0.010}


def test_sampled_s3fifo_near_the_embedded_samples_shared_prompts_is_within_its_bound():
    # NOTE: 5% of the sample's sessions beside its 284 trunk blocks missed by 0.164 at 425 blocks,
    # where S3-FIFO's main queue of the miniature cache could not hold the trunk; a cache no larger
    # than 1.5 × the trunk is replayed whole, and the trunk fills over a third of the miniature
    # caches of 1,000 and 4,000 blocks, which are replayed over windows of time instead
    trace = read_trace(SAMPLE_DATA_DIR / "requests.parquet")
    caps = np.array([425, 1_000, 4_000])
    sampled = sampled_policy_mrc(trace, "s3fifo", caps)
    assert (
        sampled.num_trunk_blocks == 284
        and sampled.raised_capacities == 1
        and sampled.windowed_capacities == 2
    )
    assert max_abs_error(sampled.curve, policy_mrc(trace, "s3fifo", caps)) <= SAMPLE_WINDOWED_ERROR["s3fifo"]


@pytest.mark.parametrize("policy", sorted(SAMPLE_WINDOWED_ERROR))
def test_windows_near_the_trunk_keep_the_embedded_samples_curve_within_their_measured_error(policy):
    trace = read_trace(SAMPLE_DATA_DIR / "requests.parquet")
    caps = default_capacities(trace.num_blocks)[::2]
    sampled = sampled_policy_mrc(trace, policy, caps, seed=1)
    assert sampled.windowed_capacities >= 8
    assert max_abs_error(sampled.curve, policy_mrc(trace, policy, caps)) <= SAMPLE_WINDOWED_ERROR[policy]


@pytest.mark.parametrize("policy", policy_names())
def test_every_policy_replays_its_capacities_near_the_trunk_over_windows(policy):
    """The learned policy's predictor carries more of the past than a warm-up replays, yet near the
    trunk the windows beat its miniatures too (docs/whatif.md): 1,000 and 4,000 blocks of the sample
    are replayed over windows for every policy but LRU, FIFO and LFU (exact: exact_is_quick)."""
    trace = read_trace(SAMPLE_DATA_DIR / "requests.parquet")
    sampled = sampled_policy_mrc(trace, policy, np.array([1_000, 4_000]))
    assert sampled.windowed_capacities == (0 if exact_is_quick(policy) else 2)
    assert sampled.raised_capacities == 0 and sampled.is_exact == exact_is_quick(policy)


def ten_block_requests() -> Trace:
    return build_trace(
        arrival_s=np.arange(1000.0),
        block_counts=np.full(1000, 10),
        raw_block_ids=np.arange(10_000) % 777,
        input_tokens=np.full(1000, 160),
        output_tokens=np.ones(1000, np.int64),
        block_tokens=16,
        source="ten-block requests",
    )


def test_windows_are_evenly_spaced_share_of_the_trace_each_after_its_warm_up():
    requests, counted = window_requests(ten_block_requests(), warm=35.0)
    # five windows of 200 accesses (20 requests) each, centred on 1,000, 3,000 … 9,000 accesses,
    # each after 35 accesses of warm-up: from the request holding access 865 (86) up to the one
    # before access 1,100
    assert NUM_WINDOWS == 5 and window_share(10_000) == 0.1
    assert requests[:24].tolist() == list(range(86, 110)) and requests.size == 5 * 24
    assert counted[:25].tolist() == [False] * 4 + [True] * 20 + [False]
    assert int(counted.sum()) == 100 and requests[-24:].tolist() == list(range(886, 910))


def test_windows_count_a_fixed_number_of_accesses_once_the_trace_is_long(monkeypatch):
    """The windows' error follows how many requests they count: a long trace's windows count
    WINDOW_ACCESSES (5% of the 100M-access scale trace), a short one's at most 10% of it."""
    assert window_share(100_000_000) == 0.05 and window_share(10_000_000) == 0.1
    monkeypatch.setattr(mrc_windows, "WINDOW_ACCESSES", 500)
    requests, counted = window_requests(ten_block_requests(), warm=0.0)
    # five windows of 100 accesses (10 requests), centred on 1,000, 3,000 … 9,000 accesses
    assert requests[:10].tolist() == list(range(95, 105)) and counted.all() and requests.size == 50


def test_a_sampled_request_keeps_its_whole_chain_and_every_request_sharing_it(conversation):
    keys, is_trunk = sampling_units(conversation)
    chosen = sample_requests(conversation, 0.1, seed=3)
    kept = np.zeros(conversation.num_requests, bool)
    kept[chosen] = True
    # A unit is all in or all out: every request with a kept request's key is kept.
    assert kept[np.isin(keys, keys[chosen])].all()
    # No request left out reads a non-trunk block of a kept one.
    sub = sub_trace(conversation, chosen)
    kept_blocks = np.unique(np.concatenate([conversation.blocks_of(i) for i in chosen]))
    light = np.zeros(conversation.num_blocks, bool)
    light[kept_blocks[~is_trunk[kept_blocks]]] = True
    reader = np.repeat(np.arange(conversation.num_requests), np.diff(conversation.offsets))
    assert kept[reader[light[conversation.block_ids]]].all()
    # Each kept request reads its whole chain in the sub-trace, renumbered one to one.
    for j, i in enumerate(chosen):
        assert (kept_blocks[sub.blocks_of(j)] == conversation.blocks_of(i)).all()
    assert sub.num_blocks == kept_blocks.size


def test_a_shared_system_prompt_is_trunk_and_sessions_are_the_units():
    # Every request starts with block 0 (a system prompt); two sessions then grow their own chains.
    # Block 1 is read by 9 of the 14 accesses: under the 70% trunk share, so session 1's unit starts there.
    requests = [[0, 1], [0, 2], [0, 1, 3], [0, 2, 4], [0, 1, 3, 5]]
    trace = build_trace(
        arrival_s=np.arange(5, dtype=float),
        block_counts=np.array([len(r) for r in requests]),
        raw_block_ids=np.array([b for r in requests for b in r]),
        input_tokens=np.array([4 * len(r) for r in requests]),
        output_tokens=np.zeros(5),
        block_tokens=4,
        source="sessions",
    )
    keys, is_trunk = sampling_units(trace, trunk_share=0.7)
    assert is_trunk.tolist() == [True] + [False] * 5
    assert keys.tolist() == [1, 2, 1, 2, 1]


def test_same_seed_gives_the_same_curve_and_another_seed_another_sample(conversation):
    first = sampled_policy_mrc(conversation, "s3fifo", CAPACITIES, seed=7)
    again = sampled_policy_mrc(conversation, "s3fifo", CAPACITIES, seed=7)
    assert first.curve.block_hit_ratio.tolist() == again.curve.block_hit_ratio.tolist()
    assert first.curve.token_hit_ratio.tolist() == again.curve.token_hit_ratio.tolist()
    other = sample_requests(conversation, DEFAULT_RATE, seed=8)
    assert other.tolist() != sample_requests(conversation, DEFAULT_RATE, seed=7).tolist()


def test_lru_stays_exact_and_a_full_rate_is_the_exact_sweep(conversation):
    lru = sampled_policy_mrc(conversation, "lru", CAPACITIES)
    assert (
        lru.is_exact
        and lru.curve.block_hit_ratio.tolist() == lru_mrc(conversation, CAPACITIES).block_hit_ratio.tolist()
    )
    caps = np.array([1_827, 18_279])
    full = sampled_policy_mrc(conversation, "arc", caps, rate=1.0)
    assert full.is_exact and full.label() == "arc (exact)"
    assert (
        full.curve.block_hit_ratio.tolist() == policy_mrc(conversation, "arc", caps).block_hit_ratio.tolist()
    )


def test_a_curve_holding_every_block_is_the_exact_ceiling(conversation):
    caps = np.array([conversation.num_blocks])
    sampled = sampled_policy_mrc(conversation, "arc", caps)
    assert sampled.curve.block_hit_ratio[0] == pytest.approx(lru_mrc(conversation, caps).block_hit_ratio[0])


def test_a_rate_off_the_measured_one_says_its_error_is_not_measured(conversation):
    sampled = sampled_policy_mrc(conversation, "arc", CAPACITIES[:2], rate=0.2)
    assert sampled.max_abs_error is None and sampled.label() == "arc (sampled 20%, error not measured)"


def test_bad_rates_and_policies_are_rejected(conversation):
    with pytest.raises(ValueError, match="sampling rate must be positive"):
        sampled_policy_mrc(conversation, "arc", CAPACITIES, rate=0.0)
    with pytest.raises(ValueError, match="unknown policy"):
        sampled_policy_mrc(conversation, "nope", CAPACITIES)


def test_a_rate_that_keeps_no_request_is_refused(conversation):
    with pytest.raises(ValueError, match="keeps no request of this trace; raise the rate"):
        sampled_policy_mrc(conversation, "arc", CAPACITIES, rate=1e-9)


def test_where_a_policy_hits_all_the_windows_ceiling_hits_its_estimate_is_the_exact_ceiling():
    caps = np.array([10, 20])
    policy = MissRatioCurve(caps, np.array([0.5, 0.9]), np.array([0.4, 0.8]))
    lru = MissRatioCurve(caps, np.array([0.4, 0.85]), np.array([0.3, 0.75]))
    ceiling = MissRatioCurve(caps, np.array([0.9, 0.9]), np.array([0.8, 0.8]))
    exact_lru = MissRatioCurve(
        np.array([10, 20, 99]), np.array([0.38, 0.8, 0.95]), np.array([0.3, 0.7, 0.85])
    )
    windows = corrected(policy, lru, exact_lru, ceiling)
    np.testing.assert_allclose(windows.block_hit_ratio, [0.48, 0.95])  # the LRU control, then the ceiling
    np.testing.assert_allclose(windows.token_hit_ratio, [0.4, 0.85])
    miniature = corrected(policy, lru, exact_lru)  # no ceiling given: the LRU control everywhere
    np.testing.assert_allclose(miniature.block_hit_ratio, [0.48, 0.85])


def test_the_windows_ceiling_is_an_unlimited_cache_over_them():
    trace = read_trace(SAMPLE_DATA_DIR / "requests.parquet")
    caps = np.array([4_000])
    warm = warmups(caps, lru_mrc(trace, caps).block_hit_ratio)
    policy, lru, ceiling = window_curves(trace, "oracle", caps, warm)
    requests, counted = window_requests(trace, float(warm[0]))
    windows = sub_trace(trace, requests)
    hits = replay_single_cache(windows, windows.num_blocks, "lru")[counted]
    assert ceiling.block_hit_ratio[0] == hits.sum() / np.diff(windows.offsets)[counted].sum()
    assert lru.block_hit_ratio[0] < policy.block_hit_ratio[0] < ceiling.block_hit_ratio[0]


@pytest.mark.parametrize("policy", [p for p in policy_names() if not exact_is_quick(p)])
def test_the_policies_on_heaps_reach_further_from_the_trunk_with_windows(policy):
    # the sample's 284 trunk blocks fill 31% of the 920-block miniature of 13,000: over a quarter
    # (policies on lazy heaps, which can pay for more windows), under a third (the others)
    trace = read_trace(SAMPLE_DATA_DIR / "requests.parquet")
    sampled = sampled_policy_mrc(trace, policy, np.array([13_000]))
    assert window_trunk_share(policy) == (1 / 4 if policy_info(policy).uses_heap else 1 / 3)
    assert sampled.windowed_capacities == int(policy_info(policy).uses_heap)
