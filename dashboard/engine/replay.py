"""Replay API: one LRU/any-policy cache (`replay_single_cache`) and a whole cluster (`simulate`)."""

from __future__ import annotations

import numpy as np

from dashboard.core.types import (
    TIER_NAMES,
    ClusterConfig,
    ClusterEvent,
    ReplayOutcome,
    RouterConfig,
    TierConfig,
    Trace,
)
from dashboard.engine import routers, single_cache
from dashboard.engine.cluster_kernel import run_cluster
from dashboard.engine.latency import latency_model
from dashboard.engine.policies import lfu, policy_info
from dashboard.engine.policies.dispatch import block_tie_keys, next_use_of_accesses
from dashboard.engine.policies.learned import LearnedOptions, continuation_keys, feature_values
from dashboard.engine.policies.learned_blocks import BlockRules, block_rules, no_block_rules
from dashboard.engine.policies.lru import replay_lru_single
from dashboard.engine.policies.state import BlockInfo, CacheSnapshot, CacheState, snapshot
from dashboard.engine.policies.state_pool import give_back, take_state
from dashboard.engine.sessions import session_structure
from dashboard.engine.slab_ids import id_space, new_slabs, trace_ids

__all__ = ["LearnedOptions", "replay_single_cache", "simulate", "cache_snapshots", "block_hit_ratio"]


def block_hit_ratio(hits: np.ndarray, trace: Trace) -> float:
    """Sum of prefix hits / sum of blocks."""
    total = trace.num_block_accesses
    return float(np.sum(hits, dtype=np.int64) / total) if total else 0.0


def learned_inputs(trace: Trace, options: LearnedOptions) -> tuple[np.ndarray, BlockRules]:
    """The learned policy's per-request score keys and block rules, from one session structure."""
    structure = session_structure(trace)
    return learned_request_keys(trace, options, structure), learned_block_rules(trace, options, structure)


def learned_request_keys(trace: Trace, options: LearnedOptions, structure: tuple | None = None) -> np.ndarray:
    """The learned policy's per-request score keys (online: each uses only the trace's past).

    structure: session_structure(trace) when the caller already has it."""
    if options.probabilities is not None:
        return _keys_from_probabilities(trace, options)
    parent, _, turns = structure or session_structure(trace)
    features = feature_values(*request_features(trace, parent, turns))
    return continuation_keys(
        trace.arrival_s,
        parent,
        features,
        float(options.horizon_s),
        float(options.decay_s),
        float(options.prior_weight),
    )


def learned_block_rules(trace: Trace, options: LearnedOptions, structure: tuple | None = None) -> BlockRules:
    """The learned policy's block rules per request (online, like its keys); inert when switched off."""
    if not options.block_rules:
        return no_block_rules(trace.num_requests)
    parent, _, _ = structure or session_structure(trace)
    return block_rules(
        trace.arrival_s,
        trace.offsets,
        trace.block_ids,
        trace.input_tokens,
        int(trace.block_tokens),
        parent,
        float(options.horizon_s),
        float(options.prior_weight),
        trace.num_blocks,
    )


def _keys_from_probabilities(trace: Trace, options: LearnedOptions) -> np.ndarray:
    p = np.asarray(options.probabilities, np.float64)
    if p.shape != (trace.num_requests,):
        raise ValueError(
            f"learned probabilities: expected one per request ({trace.num_requests}), got shape {p.shape}"
        )
    if not np.all((p > 0.0) & (p <= 1.0)):
        raise ValueError("learned probabilities must lie in (0, 1]")
    return np.log(p) + trace.arrival_s / float(options.decay_s)


def request_features(trace: Trace, parent: np.ndarray, turns: np.ndarray) -> tuple[np.ndarray, ...]:
    """(turn, idle s since the session's previous request or −1, prompt growth in blocks, input
    tokens, type code) per request: what the learned policy predicts from. Never the request's
    own output length: that is known only after decoding."""
    sizes = np.diff(trace.offsets)
    has_parent = parent >= 0
    previous = np.maximum(parent, 0)
    idle = np.where(has_parent, trace.arrival_s - trace.arrival_s[previous], -1.0)
    growth = np.where(has_parent, sizes - sizes[previous], sizes)
    return (
        turns.astype(np.int64),
        idle.astype(np.float64),
        growth.astype(np.int64),
        trace.input_tokens.astype(np.int64),
        trace.type_codes.astype(np.int64),
    )


def _block_info(trace: Trace, needed: bool) -> BlockInfo:
    n_blocks = trace.num_blocks if needed else 0  # NOTE: empty when no policy reads them
    return BlockInfo(
        score=np.full(n_blocks, -np.inf),
        next_use=np.zeros(n_blocks, np.int64),
        tie=block_tie_keys(trace.offsets, trace.block_ids, n_blocks) if needed else np.zeros(0, np.int64),
    )


def _policy_inputs(trace: Trace, names: set[str], options: LearnedOptions) -> tuple:
    for name in names:
        policy_info(name)
    if "learned" in names:
        keys, rules = learned_inputs(trace, options)
    else:
        keys, rules = np.zeros(trace.num_requests), no_block_rules(trace.num_requests)
    if "oracle" in names:
        next_use = next_use_of_accesses(trace.offsets, trace.block_ids, trace.num_blocks)
    else:
        # NOTE: read only when a policy reads block keys (the learned one then reads zeros); else
        # empty: 8 bytes per block access is 800 MB at 10^8 accesses.
        reads_keys = any(policy_info(nm).reads_block_keys for nm in names)
        next_use = np.zeros(trace.num_block_accesses if reads_keys else 0, np.int64)
    return keys, rules, next_use


def _state(trace: Trace, caps: list[int], names: list[str], space: int | None = None) -> tuple:
    """An empty state for caps; space: the block ids it indexes (the trace's, unless slab_ids renumbers)."""
    n_blocks = max(trace.num_blocks, 1)
    caps = [min(int(c), n_blocks) for c in caps]
    n_blocks = max(space or 0, n_blocks)
    heap_slots = max(
        [2 * c + 16 for c, nm in zip(caps, names, strict=True) if policy_info(nm).uses_heap] or [1]
    )
    ids = np.array([policy_info(nm).policy_id for nm in names], np.int64)
    key_blocks = n_blocks if any(policy_info(nm).keeps_block_keys for nm in names) else 0
    return take_state(np.array(caps, np.int64), ids, n_blocks, heap_slots, key_blocks)


def replay_single_cache(
    trace: Trace, capacity_blocks: int, policy: str = "lru", learned: LearnedOptions | None = None
) -> np.ndarray:
    """Per-request prefix-hit block counts (int32 [n]) of one cache of capacity_blocks under policy."""
    if capacity_blocks < 0:
        raise ValueError(f"capacity_blocks must be >= 0, got {capacity_blocks}")
    info = policy_info(policy)
    if policy == "lru":
        return replay_lru_single(trace.offsets, trace.block_ids, trace.num_blocks, int(capacity_blocks))
    if policy == "lfu" and trace.num_block_accesses < lfu.KEPT:
        return lfu.replay_lfu_single(trace.offsets, trace.block_ids, trace.num_blocks, int(capacity_blocks))
    if info.policy_id in single_cache.POLICY_IDS:
        return replay_in_single_kernel(trace, int(capacity_blocks), policy)
    config = ClusterConfig(
        num_pods=1,
        tiers=(TierConfig("gpu", int(capacity_blocks), policy),),
        router=RouterConfig("round_robin"),
    )
    return simulate(trace, config, learned=learned).hit_blocks[:, 0].copy()


def replay_in_single_kernel(trace: Trace, capacity_blocks: int, policy: str) -> np.ndarray:
    """replay_single_cache through single_cache.py's kernel (each policy's own lists or heap), for a
    policy it runs (else ValueError), even where replay_single_cache has a faster path (LFU's)."""
    info = policy_info(policy)
    st = _state(trace, [capacity_blocks], [policy])
    next_use = (
        next_use_of_accesses(trace.offsets, trace.block_ids, trace.num_blocks)
        if info.reads_block_keys
        else np.zeros(0, np.int64)
    )
    hits = np.zeros(trace.num_requests, np.int32)
    single_cache.replay_policy_single(
        trace.offsets,
        trace.block_ids,
        next_use,
        st,
        _block_info(trace, info.reads_block_keys),
        info.policy_id,
        hits,
    )
    give_back(st)
    return hits


def _check_config(config: ClusterConfig) -> list[int]:
    if config.num_pods < 1:
        raise ValueError(f"ClusterConfig.num_pods must be >= 1, got {config.num_pods}")
    if not config.tiers:
        raise ValueError("ClusterConfig.tiers must name at least one tier")
    ids = []
    for tier in config.tiers:
        if tier.name not in TIER_NAMES:
            raise ValueError(f"TierConfig.name {tier.name!r} is not one of {TIER_NAMES}")
        if tier.capacity_blocks < 0:
            raise ValueError(
                f"TierConfig {tier.name}: capacity_blocks must be >= 0, got {tier.capacity_blocks}"
            )
        policy_info(tier.policy)
        ids.append(TIER_NAMES.index(tier.name))
    if ids != sorted(set(ids)):
        raise ValueError(f"ClusterConfig.tiers must be distinct and in order {TIER_NAMES}, got {ids}")
    return ids


def _schedule(config: ClusterConfig, events: tuple[ClusterEvent, ...]) -> tuple:
    for ev in events:
        if ev.kind not in ("restart", "router"):
            raise ValueError(f"ClusterEvent.kind must be 'restart' or 'router', got {ev.kind!r}")
        if ev.kind == "restart" and not 0 <= ev.pod < config.num_pods:
            raise ValueError(f"ClusterEvent restart: pod {ev.pod} not in 0..{config.num_pods - 1}")
        if ev.kind == "router" and ev.router is None:
            raise ValueError("ClusterEvent router: the router field is required")
    switches = sorted((ev for ev in events if ev.kind == "router"), key=lambda ev: ev.time_s)
    segs = [(-np.inf, config.router)] + [(ev.time_s, ev.router) for ev in switches]
    restarts = sorted((ev.time_s, ev.pod) for ev in events if ev.kind == "restart")
    return segs, restarts


def simulate(
    trace: Trace,
    config: ClusterConfig,
    events: tuple[ClusterEvent, ...] = (),
    learned: LearnedOptions | None = None,
) -> ReplayOutcome:
    """Replay trace through config's pods × tiers and router; events restart pods or switch routers."""
    outcome, st, _ = _simulate(trace, config, events, learned)
    give_back(st)
    return outcome


def cache_snapshots(
    trace: Trace,
    config: ClusterConfig,
    events: tuple[ClusterEvent, ...] = (),
    learned: LearnedOptions | None = None,
    upto: int | None = None,
) -> list[CacheSnapshot]:
    """What each cache (pod × tier, pod-major, then the router's views) holds after the replay.

    upto=N stops after the first N requests, every input still worked out from the whole trace:
    the state a full replay passes through after N (the causality tests compare it).
    """
    _, st, ids = _simulate(trace, config, events, learned, upto)
    back = trace_ids(ids, st.where.shape[0]) if ids.shape[0] else None
    snapshots = [_in_trace_ids(snapshot(st, c), back) for c in range(st.cap.shape[0])]
    view_base = config.num_pods * len(config.tiers)
    if st.cap.shape[0] > view_base and config.tiers[0].policy == "lru":  # victim views (views.py)
        for pod in range(config.num_pods):
            top = snapshots[pod * len(config.tiers)]
            snapshots[view_base + pod] = _full_view(snapshots[view_base + pod], top)
    give_back(st)
    return snapshots


def _in_trace_ids(snap: CacheSnapshot, back: np.ndarray | None) -> CacheSnapshot:
    """snap in the trace's block ids, where back maps the replay's (slab_ids.trace_ids)."""
    if back is None:
        return snap
    blocks = tuple(sorted((int(back[b]), *rest) for b, *rest in snap.blocks))
    lists = tuple(tuple(int(back[b]) for b in members) for members in snap.lists)
    return CacheSnapshot(blocks, lists, snap.counts)


def _uses_slab_ids(config: ClusterConfig, names: list[str]) -> bool:
    """Whether blocks are numbered by pod as served (slab_ids.py): several pods under list policies,
    but not pods of one LRU tier (no lower tier to demote into).

    NOTE: on the conversation trace, 8 pods: with a CPU tier 0.84-0.93 of the time (LRU, S3-FIFO;
    2-8 pods), HBM alone under S3-FIFO 0.87, ARC 0.95, FIFO 0.97; HBM alone under LRU 1.09-1.12:
    its lean loop (top_lru.serve_alone) pays the id lookup and saves less than it costs.
    """
    lists_only = not any(policy_info(nm).uses_heap or policy_info(nm).reads_block_keys for nm in names)
    lone_lru = config.tiers[0].policy == "lru" and (len(config.tiers) == 1 or not config.enable_offload)
    return config.num_pods > 1 and lists_only and not lone_lru


def _full_view(victims: CacheSnapshot, top: CacheSnapshot) -> CacheSnapshot:
    """A victim view as the LRU cache it stands for: the top tier's blocks and its victims, oldest first."""
    blocks = tuple(sorted(victims.blocks + top.blocks))
    lists = (victims.lists[0] + top.lists[0],) + victims.lists[1:]
    return CacheSnapshot(blocks, lists, (victims.counts[0] + top.counts[0],) + victims.counts[1:])


def _simulate(
    trace: Trace,
    config: ClusterConfig,
    events: tuple[ClusterEvent, ...],
    learned: LearnedOptions | None,
    upto: int | None = None,
) -> tuple[ReplayOutcome, CacheState, np.ndarray]:
    """The outcome, the state the caches ended in, and the replay id of each trace block (empty
    when the caches index the trace's own ids)."""
    tier_ids = _check_config(config)
    segs, restarts = _schedule(config, events)
    infos = [routers.router_info(r.name) for _, r in segs]
    num_pods = config.num_pods
    caps = [t.capacity_blocks for t in config.tiers] * num_pods
    names = [t.policy for t in config.tiers] * num_pods
    view_base, victim_views = -1, False
    if any(info.uses_view for info in infos):
        view_base = len(caps)
        total = sum(t.capacity_blocks for t in config.tiers)
        victim_views = config.tiers[0].policy == "lru"  # views.py: the view is the top tier + its victims
        if victim_views:
            total -= config.tiers[0].capacity_blocks
        caps, names = caps + [total] * num_pods, names + ["lru"] * num_pods
    if _uses_slab_ids(config, names):
        ids, slabs = new_slabs(trace.num_blocks, num_pods)
        st = _state(trace, caps, names, id_space(trace.num_blocks, num_pods))
    else:
        ids, slabs = np.zeros(0, np.int32), np.zeros((1, 2), np.int64)
        st = _state(trace, caps, names)
    keys, rules, next_use = _policy_inputs(trace, set(names), learned or LearnedOptions())
    if any(r.name == "session_affinity" for _, r in segs):
        _, session, _ = session_structure(trace)
        affinity = routers.affinity_pods(session, num_pods, config.router.seed)
    else:
        affinity = np.zeros(trace.num_requests, np.int32)
    reads_keys = any(policy_info(nm).reads_block_keys for nm in set(names))
    gpu = [t for t in config.tiers if t.name == "gpu"] or [config.tiers[0]]
    n = trace.num_requests if upto is None else int(upto)
    accesses = int(trace.offsets[n])
    out = run_cluster(
        trace.arrival_s[:n],
        trace.offsets[: n + 1],
        trace.block_ids[:accesses],
        trace.input_tokens[:n],
        trace.output_tokens[:n],
        trace.block_tokens,
        keys[:n],
        BlockRules(*(a[:n] for a in rules)),
        next_use[:accesses],
        affinity[:n],
        st,
        _block_info(trace, reads_keys),
        num_pods,
        np.array(tier_ids, np.int64),
        np.array([routers.TIER_MATCH_WEIGHTS[t.name] for t in config.tiers]),
        bool(config.enable_offload),
        view_base,
        victim_views,
        np.array([t for t, _ in segs], np.float64),
        np.array([info.router_id for info in infos], np.int64),
        np.array([[r.queue_weight, r.kv_weight, r.prefix_weight] for _, r in segs], np.float64),
        np.array([r.seed for _, r in segs], np.int64),
        np.array([t for t, _ in restarts], np.float64),
        np.array([p for _, p in restarts], np.int64),
        latency_model(config.hardware, config.model).as_array(),
        np.full(num_pods, gpu[0].capacity_blocks, np.float64),
        reads_keys,
        ids,
        slabs,
    )
    pod, hit_blocks, cached, queue_s, load_s, prefill_s, ttft_s, finish_s, stored, predicted = out
    outcome = ReplayOutcome(
        pod=pod,
        hit_blocks=hit_blocks,
        num_blocks=np.diff(trace.offsets[: n + 1]).astype(np.int32),
        cached_tokens=cached,
        queue_s=queue_s,
        load_s=load_s,
        prefill_s=prefill_s,
        ttft_s=ttft_s,
        finish_s=finish_s,
        stored_blocks=stored,
        predicted_hit_ratio=predicted,
    )
    return outcome, st, ids
