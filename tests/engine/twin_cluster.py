"""Pure-Python twin of the cluster kernel: routers, staged tier lookup, demotion, FCFS timing."""

from __future__ import annotations

import numpy as np

from dashboard.core.types import TIER_NAMES, ClusterConfig, ClusterEvent, Trace
from dashboard.engine.latency import latency_model
from tests.engine.twins import TwinCache, block_info, block_score, next_uses, refresh_info, supersede_twin

TIER_WEIGHT = {"gpu": 1.0, "cpu": 0.8, "disk": 0.5}
MASK64 = (1 << 64) - 1


def lcg(state: list[int]) -> int:
    state[0] = (state[0] * 6364136223846793005 + 1442695040888963407) & MASK64
    return (state[0] >> 33) & 0x7FFFFFFF


def staged(caches: list[TwinCache], blocks: list[int], weights: list[float]) -> float:
    k, total = 0, 0.0
    for cache, w in zip(caches, weights, strict=True):
        while k < len(blocks) and blocks[k] in cache:
            total, k = total + w, k + 1
    return total


def epp_pick(matched: list[float], m: int, weights: tuple, queue: list[int], kv: list[float]) -> int:
    max_q = max(queue)
    scores = [
        weights[0] * (1 - queue[p] / max_q if max_q > 0 else 1.0)
        + weights[1] * (1 - kv[p])
        + weights[2] * (matched[p] / m if m else 0.0)
        for p in range(len(matched))
    ]
    return scores.index(max(scores))


class ClusterTwin:
    """State of the whole simulated cluster, advanced one request at a time."""

    def __init__(self, trace: Trace, config: ClusterConfig, affinity: np.ndarray) -> None:
        self.trace, self.config, self.affinity = trace, config, affinity
        self.pods = [
            [TwinCache(t.policy, t.capacity_blocks) for t in config.tiers] for _ in range(config.num_pods)
        ]
        total = sum(t.capacity_blocks for t in config.tiers)
        self.views = [TwinCache("lru", total) for _ in range(config.num_pods)]
        self.info, self.nus, self.tick = block_info(trace), next_uses(trace), 0
        self.rr, self.rng, self.last_cold = 0, [config.router.seed & MASK64], [-1.0] * config.num_pods
        gpu = [t for t in config.tiers if t.name == "gpu"] or [config.tiers[0]]
        self.hbm = gpu[0].capacity_blocks
        self.free_at = [0.0] * config.num_pods
        self.running: list[tuple[float, float, int, int]] = []  # (start, finish, pod, blocks)
        self.lat = latency_model(config.hardware, config.model)

    def route(self, router, i: int, blocks: list[int], now: float) -> tuple[int, float]:
        num_pods = self.config.num_pods
        queue = [sum(1 for s, _, p, _ in self.running if p == q and s > now) for q in range(num_pods)]
        inflight = [sum(b for _, f, p, b in self.running if p == q and f > now) for q in range(num_pods)]
        kv = [min(x / self.hbm, 1.0) if self.hbm > 0 else 1.0 for x in inflight]
        if router.name == "round_robin":
            self.rr += 1
            return (self.rr - 1) % num_pods, 0.0
        if router.name == "random":
            return lcg(self.rng) % num_pods, 0.0
        if router.name == "session_affinity":
            return int(self.affinity[i]), 0.0
        if router.name == "least_loaded":
            return min(range(num_pods), key=lambda p: (queue[p], kv[p], p)), 0.0
        if router.name == "precise_prefix":
            weights = [TIER_WEIGHT[t.name] for t in self.config.tiers]
            matched = [staged(self.pods[p], blocks, weights) for p in range(num_pods)]
        else:
            matched = [staged([self.views[p]], blocks, [1.0]) for p in range(num_pods)]
        if router.name == "no_hit_lru" and max(matched) == 0.0:
            best = min(range(num_pods), key=lambda p: (self.last_cold[p], p))
            self.last_cold[best] = i
            return best, 0.0
        w = (router.queue_weight, router.kv_weight, router.prefix_weight)
        best = epp_pick(matched, len(blocks), w, queue, kv)
        return best, (matched[best] / len(blocks) if blocks else 0.0)

    def cascade(self, caches: list[TwinCache], b: int) -> int:
        stored, t, cur = 0, 0, b
        while True:
            if cur in caches[t]:
                caches[t].touch(cur, self.tick, self.info)
                return stored
            v = caches[t].insert(cur, self.tick, self.info)
            if v < 0 or not self.config.enable_offload or t + 1 >= len(caches):
                return stored
            if t == 0 and v not in caches[1]:
                stored += 1
            cur, t = v, t + 1

    def serve(self, i: int, pod: int, blocks: list[int], scores, rules) -> tuple[list[int], int]:
        caches, tiers = self.pods[pod], self.config.tiers
        hit_tier, hits = [], [0, 0, 0]
        for t, cache in enumerate(caches):
            while len(hit_tier) < len(blocks) and blocks[len(hit_tier)] in cache:
                hit_tier.append(t)
                hits[TIER_NAMES.index(tiers[t].name)] += 1
        stored = 0
        for k in range(len(blocks) - 1, -1, -1):
            b = blocks[k]
            self.tick += 1
            refresh_info(self.info, b, self.nus[i][k], block_score(scores, rules, i, k == len(blocks) - 1))
            if b in caches[0]:
                caches[0].touch(b, self.tick, self.info)
                continue
            if k < len(hit_tier) and hit_tier[k] > 0 and b in caches[hit_tier[k]]:
                caches[hit_tier[k]].touch(b, self.tick, self.info)
            stored += self.cascade(caches, b)
        return hits, stored


def simulate_twin(
    trace: Trace,
    config: ClusterConfig,
    events: tuple[ClusterEvent, ...],
    affinity: np.ndarray,
    scores: np.ndarray | None = None,
    rules: dict | None = None,
) -> dict[str, list]:
    """Per-request pod, hits by tier, cached tokens, timing, stored blocks and predicted ratio."""
    tw = ClusterTwin(trace, config, affinity)
    restarts = sorted((e.time_s, e.pod) for e in events if e.kind == "restart")
    switches = sorted((e.time_s, e.router) for e in events if e.kind == "router")
    router, out = (
        config.router,
        {k: [] for k in ("pod", "hits", "cached", "ttft", "finish", "stored", "pred")},
    )
    for i in range(trace.num_requests):
        now, blocks = float(trace.arrival_s[i]), trace.blocks_of(i).tolist()
        while restarts and restarts[0][0] <= now:
            p = restarts.pop(0)[1]
            tw.pods[p] = [TwinCache(t.policy, t.capacity_blocks) for t in config.tiers]
            tw.views[p] = TwinCache("lru", tw.views[p].capacity)
        while switches and switches[0][0] <= now:
            router = switches.pop(0)[1]
            tw.rng = [router.seed & MASK64]
        pod, pred = tw.route(router, i, blocks, now)
        hits, stored = tw.serve(i, pod, blocks, scores, rules)
        for k in range(len(blocks) - 1, -1, -1):
            b = blocks[k]
            if b in tw.views[pod]:
                tw.views[pod].touch(b, tw.tick, tw.info)
            else:
                tw.views[pod].insert(b, tw.tick, tw.info)
        supersede_twin(trace, tw.info, tw.pods[pod], scores, rules, i)
        inp = int(trace.input_tokens[i])
        cum = [min(sum(hits[: t + 1]) * trace.block_tokens, inp) for t in range(3)]
        cached = [cum[0], cum[1] - cum[0], cum[2] - cum[1]]
        load = cached[1] * tw.lat.cpu_load_s_per_token + cached[2] * tw.lat.disk_load_s_per_token
        u, lat = inp - cum[2], tw.lat
        prefill = (
            lat.request_overhead_s
            + lat.host_s_per_prompt_token * inp
            + lat.prefill_s_per_token * u
            + lat.attention_s_per_token_pair * u * (inp - u + 0.5 * u)
        )
        start = max(now, tw.free_at[pod])
        tw.free_at[pod] = start + load + prefill
        ttft = start - now + load + prefill
        finish = now + ttft + int(trace.output_tokens[i]) * tw.lat.decode_s_per_token
        tw.running.append((start, finish, pod, len(blocks)))
        for key, value in zip(out, (pod, hits, cached, ttft, finish, stored, pred), strict=True):
            out[key].append(value)
    return out
