"""The compiled cluster replay: route, staged tier lookup, tail-first update with demotion, FCFS timing."""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine import routers as R
from dashboard.engine import views as V
from dashboard.engine.latency import prefill_seconds, time_heap_pop, time_heap_push
from dashboard.engine.policies import lru
from dashboard.engine.policies.dispatch import contains, insert, rescore, run_start, touch, touch_run
from dashboard.engine.policies.state import clear_cache
from dashboard.engine.slab_ids import give_ids, replay_ids
from dashboard.engine.stack_distance import max_request_blocks
from dashboard.engine.top_lru import demote, serve_top_lru


@njit(cache=True, _nrt=False, inline="always")
def insert_cascade(
    st: tuple,
    first_cache: int,
    num_tiers: int,
    b: int,
    tick: int,
    info: tuple,
    enable_offload: bool,
    view: int,
) -> int:
    """Insert b (absent from the top tier) there; each eviction is demoted one tier down. Returns
    blocks written below the top.

    view >= 0: the pod's EPP view kept as the top tier's victim list (views.py), told of the insert.
    """
    v = insert(st, first_cache, b, tick, info)
    if view >= 0:
        V.follow_top_insert(st, view, b, v)
    if v < 0 or not enable_offload or num_tiers == 1:
        return 0
    return demote(st, info, first_cache, num_tiers, v, tick)


@njit(cache=True, _nrt=False, inline="always")
def choose_pod(
    rid: int,
    weights: np.ndarray,
    i: int,
    blocks: np.ndarray,
    st: tuple,
    num_tiers: int,
    view_base: int,
    victim_views: bool,
    tier_weight: np.ndarray,
    queue_len: np.ndarray,
    kv_util: np.ndarray,
    counters: np.ndarray,
    rng: np.ndarray,
    affinity_pod: int,
    last_cold: np.ndarray,
    matched: np.ndarray,
    ones: np.ndarray,
) -> tuple:
    """(pod, predicted match ratio) for request i under router rid; matched is per-pod scratch."""
    num_pods = queue_len.shape[0]
    m = blocks.shape[0]
    if rid == R.ROUND_ROBIN:
        counters[0] += 1
        return (counters[0] - 1) % num_pods, 0.0
    if rid == R.RANDOM:
        return R.lcg_next(rng) % num_pods, 0.0
    if rid == R.SESSION_AFFINITY:
        return affinity_pod, 0.0
    if rid == R.LEAST_LOADED:
        best = 0
        for p in range(1, num_pods):
            if queue_len[p] < queue_len[best] or (
                queue_len[p] == queue_len[best] and kv_util[p] < kv_util[best]
            ):
                best = p
        return best, 0.0
    for p in range(num_pods):
        if rid == R.PRECISE_PREFIX:
            matched[p] = R.staged_match(st, p * num_tiers, num_tiers, blocks, tier_weight)
        elif victim_views:
            matched[p] = V.victim_view_match(st, view_base + p, p * num_tiers, blocks)
        else:
            matched[p] = R.staged_match(st, view_base + p, 1, blocks, ones)
    if rid == R.NO_HIT_LRU and R.array_max(matched) == 0.0:
        best = 0
        for p in range(1, num_pods):
            if last_cold[p] < last_cold[best]:
                best = p
        last_cold[best] = i
        return best, 0.0
    best = R.score_pods(matched, m, weights, queue_len, kv_util)
    return best, (matched[best] / m if m > 0 else 0.0)


@njit(cache=True, _nrt=False, inline="always")
def serve_request(
    st: tuple,
    info: tuple,
    first: int,
    tier_ids: np.ndarray,
    blocks: np.ndarray,
    next_use: np.ndarray,
    score: float,
    tail_adjust: float,
    tick: int,
    enable_offload: bool,
    refresh_info: bool,
    hit_row: np.ndarray,
    hit_tier: np.ndarray,
    view: int,
) -> tuple:
    """Staged lookup (hits into hit_row by TIER_NAMES index), then the tail-first update; (stored, tick).

    hit_tier is scratch of at least len(blocks) entries; view >= 0 is the pod's victim view (views.py).
    The last block scores tail_adjust lower (learned_blocks.py: a partial last block).
    """
    num_tiers, m = tier_ids.shape[0], blocks.shape[0]
    k = 0
    for t in range(num_tiers):
        start = k
        while k < m and contains(st, first + t, blocks[k]):
            hit_tier[k] = t
            k += 1
        # NOTE: added once per tier: a store to the outcome row could alias the state, so it costs reloads
        hit_row[tier_ids[t]] += k - start
    num_hits, stored = k, 0
    if not refresh_info and st.pol[first] == lru.POLICY_ID:  # NOTE: the moves below, top tier in registers
        return serve_top_lru(
            st, info, first, num_tiers, blocks, num_hits, hit_tier, view, enable_offload, tick
        )
    k = m - 1
    while k >= 0:
        b = blocks[k]
        resident = contains(st, first, b)
        j = run_start(st, first, blocks, k) if resident else k
        if refresh_info:  # only the oracle and learned policies read these keys
            for q in range(k, j - 1, -1):  # the run j..k (block k alone when absent)
                tick += 1
                info.next_use[blocks[q]] = next_use[q]
                info.score[blocks[q]] = max(
                    info.score[blocks[q]], score + tail_adjust if q == m - 1 else score
                )
        else:
            tick += k - j + 1
        if resident:
            touch_run(st, first, blocks, j, k, tick, info)
            k = j - 1
            continue
        if k < num_hits and hit_tier[k] > 0 and contains(st, first + hit_tier[k], b):
            touch(st, first + hit_tier[k], b, tick, info)
        stored += insert_cascade(st, first, num_tiers, b, tick, info, enable_offload, view)
        k -= 1
    return stored, tick


@njit(cache=True, _nrt=False)
def supersede(
    st: tuple, info: tuple, first: int, num_tiers: int, tail: np.ndarray, key: float, adjust: float
) -> None:
    """Lower by adjust the scores of the blocks of tail that still hold the key their request gave
    them (learned_blocks.py), and re-key them in the pod's tiers."""
    for b in tail:
        if info.score[b] <= key:  # NOTE: a later request that read b raised its score above key
            info.score[b] += adjust
            for t in range(num_tiers):
                if contains(st, first + t, b):
                    rescore(st, first + t, b, info)


@njit(cache=True, _nrt=False, inline="always")
def split_tokens(hit_row: np.ndarray, block_tokens: int, input_tokens: int, cached_row: np.ndarray) -> int:
    """cached_row[t] = token hits served by tier t (gpu first, capped by the input); returns their sum."""
    done, cum = 0, 0
    for t in range(3):
        cum += hit_row[t]
        upto = min(cum * block_tokens, input_tokens)
        cached_row[t] = upto - done
        done = upto
    return done


@njit(cache=True, _nrt=False)
def restart_pod(st: tuple, pod: int, num_tiers: int, view_base: int) -> None:
    """Empty every tier of pod and its EPP view."""
    for t in range(num_tiers):
        clear_cache(st, pod * num_tiers + t)
    if view_base >= 0:
        clear_cache(st, view_base + pod)


@njit(cache=True, _nrt=False, inline="always")
def advance_load(
    now: float, starts: tuple, finishes: tuple, sizes: np.ndarray, queue_len: np.ndarray, inflight: np.ndarray
) -> None:
    """Drop prefills that started and requests that finished by now from the per-pod load."""
    while sizes[0] > 0 and starts[0][0] <= now:
        queue_len[starts[1][0]] -= 1
        sizes[0] = time_heap_pop(starts[0], starts[1], starts[2], sizes[0])
    while sizes[1] > 0 and finishes[0][0] <= now:
        inflight[finishes[1][0]] -= finishes[2][0]
        sizes[1] = time_heap_pop(finishes[0], finishes[1], finishes[2], sizes[1])


@njit(cache=True, nogil=True)  # NOTE: nogil: the learned policy's curves replay capacities on threads
def run_cluster(
    arrival_s,
    offsets,
    block_ids,
    input_tokens,
    output_tokens,
    block_tokens,
    req_score,
    rules,
    next_use,
    affinity,
    st,
    info,
    num_pods,
    tier_ids,
    tier_weight,
    enable_offload,
    view_base,
    victim_views,
    seg_time,
    seg_router,
    seg_weights,
    seg_seed,
    ev_time,
    ev_pod,
    lat,
    hbm_capacity,
    refresh_info,
    ids,
    slabs,
):
    """Replay every request in arrival order; returns the ReplayOutcome arrays in field order.

    ids, slabs: slab_ids.new_slabs to number blocks by pod as they are served (ids then fills in), or
    an empty ids to index the caches by the trace's own ids.
    """
    n = arrival_s.shape[0]
    # NOTE: empty where every request writes its entry (only hit blocks are added up): no zeroing pass
    out = (
        np.empty(n, np.int32),  # pod
        np.zeros((n, 3), np.int32),  # hit blocks per tier
        np.empty((n, 3), np.int64),  # cached tokens per tier
        np.empty(n),  # queue s
        np.empty(n),  # load s
        np.empty(n),  # prefill s
        np.empty(n),  # ttft s
        np.empty(n),  # finish s
        np.empty(n, np.int32),  # stored blocks
        np.empty(n),  # predicted hit ratio
    )
    longest = max_request_blocks(offsets)
    scratch = (
        np.zeros((6, num_pods)),  # queue_len, inflight, kv_util, free_at, last_cold, matched
        np.zeros(longest, np.int64),  # hit_tier
        np.zeros(2, np.int64),  # round-robin counter, random router's state
        np.zeros(2, np.int64),  # sizes of the start and finish heaps
        # the prefill-start and finish heaps (time, pod, blocks): nothing past a heap's size is read
        (np.empty(n), np.empty(n, np.int64), np.empty(n, np.int64)),
        (np.empty(n), np.empty(n, np.int64), np.empty(n, np.int64)),
        np.ones(1),  # the EPP view's one tier weight
        np.zeros(longest, np.int32),  # a request's blocks by replay id (slab_ids)
    )
    # NOTE: the loop runs in a function without reference counting: here, every read of a
    # CacheState member would cost an atomic incref/decref (state.py), 5x the whole replay.
    replay_requests(
        (arrival_s, offsets, block_ids, input_tokens, output_tokens, req_score, next_use, affinity),
        block_tokens,
        st,
        info,
        tier_ids,
        tier_weight,
        enable_offload,
        view_base,
        victim_views,
        (seg_time, seg_router, seg_weights, seg_seed),
        (ev_time, ev_pod),
        lat,
        hbm_capacity,
        refresh_info,
        rules,
        (ids, slabs),
        out,
        scratch,
    )
    return out


@njit(cache=True, _nrt=False)
def replay_requests(
    trace, block_tokens, st, info, tier_ids, tier_weight, enable_offload, view_base, victim_views, segs,
    events, lat, hbm_capacity, refresh_info, rules, numbering, out, scratch,
):  # fmt: skip
    """run_cluster's loop over requests, filling out; allocates nothing."""
    arrival_s, offsets, block_ids, input_tokens, output_tokens, req_score, next_use, affinity = trace
    tail_adjust, sup_parent, sup_from, sup_adjust = rules
    seg_time, seg_router, seg_weights, seg_seed = segs
    ev_time, ev_pod = events
    pod_of, hit_blocks, cached, queue_s, load_s, prefill_s, ttft_s, finish_s, stored, predicted = out
    per_pod, hit_tier, counters, sizes, starts, finishes, ones, local = scratch
    ids, slabs = numbering
    by_slab, unseen = ids.shape[0] > 0, st.where.shape[0] - 1  # NOTE: the state spans slab_ids.id_space
    queue_len, inflight, kv_util, free_at, last_cold, matched = (
        per_pod[0], per_pod[1], per_pod[2], per_pod[3], per_pod[4], per_pod[5]
    )  # fmt: skip
    for p in range(last_cold.shape[0]):
        last_cold[p] = -1.0
    rng = counters[1:2]
    rng[0] = seg_seed[0]
    n, num_tiers, num_pods = arrival_s.shape[0], tier_ids.shape[0], queue_len.shape[0]
    seg, ev, tick = 0, 0, 0
    for i in range(n):
        now = arrival_s[i]
        while ev < ev_time.shape[0] and ev_time[ev] <= now:
            restart_pod(st, ev_pod[ev], num_tiers, view_base)
            ev += 1
        while seg + 1 < seg_time.shape[0] and seg_time[seg + 1] <= now:
            seg += 1
            rng[0] = seg_seed[seg]
        advance_load(now, starts, finishes, sizes, queue_len, inflight)
        for p in range(num_pods):
            kv_util[p] = min(inflight[p] / hbm_capacity[p], 1.0) if hbm_capacity[p] > 0 else 1.0
        lo, hi = offsets[i], offsets[i + 1]
        blocks = block_ids[lo:hi]
        fresh = False
        if by_slab:
            blocks, fresh = replay_ids(block_ids[lo:hi], ids, unseen, local)
        pod, predicted[i] = choose_pod(
            seg_router[seg],
            seg_weights[seg],
            i,
            blocks,
            st,
            num_tiers,
            view_base,
            victim_views,
            tier_weight,
            queue_len,
            kv_util,
            counters,
            rng,
            affinity[i],
            last_cold,
            matched,
            ones,
        )
        pod_of[i] = pod
        if fresh:
            give_ids(block_ids[lo:hi], blocks, ids, unseen, pod, slabs)
        stored[i], tick = serve_request(
            st,
            info,
            pod * num_tiers,
            tier_ids,
            blocks,
            next_use[lo:hi],
            req_score[i],
            tail_adjust[i],
            tick,
            enable_offload,
            refresh_info,
            hit_blocks[i],
            hit_tier,
            view_base + pod if victim_views else -1,
        )
        if view_base >= 0 and not victim_views:
            V.plain_view_access(st, view_base + pod, blocks, tick, info)
        if sup_parent[i] >= 0:  # NOTE: the learned policy's rules: its replays keep the trace's ids
            p = sup_parent[i]
            tail = block_ids[offsets[p] + sup_from[i] : offsets[p + 1]]
            supersede(st, info, pod * num_tiers, num_tiers, tail, req_score[p], sup_adjust[i])
        done = split_tokens(hit_blocks[i], block_tokens, input_tokens[i], cached[i])
        load_s[i] = cached[i, 1] * lat[2] + cached[i, 2] * lat[3]
        prefill_s[i] = prefill_seconds(lat, input_tokens[i] - done, input_tokens[i])
        start = max(now, free_at[pod])
        queue_s[i] = start - now
        free_at[pod] = start + load_s[i] + prefill_s[i]
        ttft_s[i] = queue_s[i] + load_s[i] + prefill_s[i]
        finish_s[i] = now + ttft_s[i] + output_tokens[i] * lat[1]
        if start > now:
            queue_len[pod] += 1
            sizes[0] = time_heap_push(starts[0], starts[1], starts[2], sizes[0], start, pod, 0)
        inflight[pod] += hi - lo
        sizes[1] = time_heap_push(finishes[0], finishes[1], finishes[2], sizes[1], finish_s[i], pod, hi - lo)
