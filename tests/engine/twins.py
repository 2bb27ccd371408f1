"""Slow, obvious pure-Python twins of the compiled replay kernels, written from the documented rules."""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from dashboard.core.types import Trace


class TwinCache:
    """One cache under a named policy; dicts and explicit minimum searches, no cleverness."""

    def __init__(self, policy: str, capacity: int) -> None:
        self.policy, self.capacity = policy, capacity
        self.order: OrderedDict[int, None] = OrderedDict()  # lru/fifo: oldest first
        self.keys: dict[int, tuple] = {}  # lfu/oracle/learned
        self.small: OrderedDict[int, None] = OrderedDict()  # s3fifo queues, oldest first
        self.main: OrderedDict[int, None] = OrderedDict()
        self.ghost: OrderedDict[int, None] = OrderedDict()
        self.freq: dict[int, int] = {}
        self.b2: OrderedDict[int, None] = OrderedDict()  # arc: t1 = small, t2 = main, b1 = ghost, b2
        self.target = 0

    def __contains__(self, b: int) -> bool:
        if self.policy in ("lru", "fifo"):
            return b in self.order
        if self.policy in ("s3fifo", "arc"):
            return b in self.small or b in self.main
        return b in self.keys

    def size(self) -> int:
        if self.policy in ("lru", "fifo"):
            return len(self.order)
        if self.policy in ("s3fifo", "arc"):
            return len(self.small) + len(self.main)
        return len(self.keys)

    def touch(self, b: int, tick: int, info: dict) -> None:
        if self.policy == "lru":
            self.order.move_to_end(b)
        elif self.policy == "lfu":
            self.keys[b] = (self.keys[b][0] + 1, tick)
        elif self.policy == "s3fifo":
            self.freq[b] = min(self.freq[b] + 1, 3)
        elif self.policy == "oracle":
            self.keys[b] = (-info["next_use"][b], info["tie"][b])
        elif self.policy == "learned":
            self.keys[b] = (max(self.keys[b][0], info["score"][b]), info["tie"][b])
        elif self.policy == "arc":
            self.small.pop(b, None)
            self.main.pop(b, None)
            self.main[b] = None

    def rescore(self, b: int, info: dict) -> None:
        """b's score changed (a superseded tail): the learned policy re-keys it, the others ignore it."""
        if self.policy == "learned" and b in self.keys:
            self.keys[b] = (info["score"][b], info["tie"][b])

    def insert(self, b: int, tick: int, info: dict) -> int:
        """Insert absent b; return the evicted block or -1."""
        if self.policy == "arc":
            return self._insert_arc(b)
        if self.policy in ("lru", "fifo"):
            self.order[b] = None
        elif self.policy == "lfu":
            self.keys[b] = (1, tick)
        elif self.policy == "oracle":
            self.keys[b] = (-info["next_use"][b], info["tie"][b])
        elif self.policy == "learned":
            self.keys[b] = (info["score"][b], info["tie"][b])
        else:
            self.freq[b] = 0
            if b in self.ghost:
                del self.ghost[b]
                self.main[b] = None
            else:
                self.small[b] = None
        return self.evict() if self.size() > self.capacity else -1

    def evict(self) -> int:
        if self.policy in ("lru", "fifo"):
            return self.order.popitem(last=False)[0]
        if self.policy == "s3fifo":
            return self._evict_s3()
        victim = min(self.keys, key=lambda b: self.keys[b])
        del self.keys[victim]
        return victim

    def _insert_arc(self, b: int) -> int:
        """ARC as in the paper: REPLACE (if the cache is full) before the block is added."""
        c, full = self.capacity, self.size() >= self.capacity
        if b in self.ghost or b in self.b2:
            if b in self.ghost:
                self.target = min(c, self.target + max(len(self.b2) // len(self.ghost), 1))
                del self.ghost[b]
                victim = self._arc_replace(False) if full else -1
            else:
                self.target = max(0, self.target - max(len(self.ghost) // len(self.b2), 1))
                del self.b2[b]
                victim = self._arc_replace(True) if full else -1
            self.main[b] = None
            return victim
        victim = -1
        if len(self.small) + len(self.ghost) >= c:
            if self.ghost:
                self.ghost.popitem(last=False)
                victim = self._arc_replace(False) if full else -1
            else:
                self.small[b] = None
                return self.small.popitem(last=False)[0]
        else:
            if self.size() + len(self.ghost) + len(self.b2) >= 2 * c and self.b2:
                self.b2.popitem(last=False)
            victim = self._arc_replace(False) if full else -1
        self.small[b] = None
        return victim

    def _arc_replace(self, is_from_b2: bool) -> int:
        t1 = len(self.small)
        if t1 >= 1 and (t1 > self.target or (is_from_b2 and t1 == self.target)):
            b = self.small.popitem(last=False)[0]
            self.ghost[b] = None
        else:
            b = self.main.popitem(last=False)[0]
            self.b2[b] = None
        return b

    def _evict_s3(self) -> int:
        share = max(1, self.capacity // 10)
        if len(self.small) >= share or not self.main:
            while self.small:
                b = self.small.popitem(last=False)[0]
                if self.freq[b] > 1:
                    self.main[b] = None
                else:
                    self.ghost[b] = None
                    if len(self.ghost) > max(self.capacity - share, 0):
                        self.ghost.popitem(last=False)
                    return b
        while True:
            b = self.main.popitem(last=False)[0]
            if self.freq[b] > 0:
                self.freq[b] -= 1
                self.main[b] = None
            else:
                return b


def block_info(trace: Trace) -> dict:
    """Global per-block keys: depth tie key, oracle next use, learned score."""
    tie = {}
    for i in range(trace.num_requests):
        for depth, b in enumerate(trace.blocks_of(i).tolist()):
            tie[b] = -(depth * 2**31 + b)
    return {"tie": tie, "next_use": {}, "score": {}}


def next_uses(trace: Trace) -> list[list[int]]:
    """next_uses[i][k]: the next request after i using block k of request i (n if none)."""
    n = trace.num_requests
    out = []
    for i in range(n):
        row = []
        for b in trace.blocks_of(i).tolist():
            later = [j for j in range(i + 1, n) if b in trace.blocks_of(j).tolist()]
            row.append(later[0] if later else n)
        out.append(row)
    return out


def refresh_info(info: dict, b: int, next_use: int, score: float) -> None:
    """What the kernel records about block b just before touching it."""
    info["next_use"][b] = next_use
    info["score"][b] = max(info["score"].get(b, -math.inf), score)


def replay_single_twin(
    trace: Trace, capacity: int, policy: str, scores: np.ndarray | None = None, rules: dict | None = None
) -> list[int]:
    """Per-request prefix hits of one cache: look up, then touch/insert tail first (rules: block_rules_twin)."""
    cache, info, nus = TwinCache(policy, capacity), block_info(trace), next_uses(trace)
    hits, tick = [], 0
    for i in range(trace.num_requests):
        blocks = trace.blocks_of(i).tolist()
        h = 0
        while h < len(blocks) and blocks[h] in cache:
            h += 1
        hits.append(h)
        for k in range(len(blocks) - 1, -1, -1):
            tick += 1
            refresh_info(info, blocks[k], nus[i][k], block_score(scores, rules, i, k == len(blocks) - 1))
            if blocks[k] in cache:
                cache.touch(blocks[k], tick, info)
            else:
                cache.insert(blocks[k], tick, info)
        supersede_twin(trace, info, [cache], scores, rules, i)
    return hits


def block_score(scores: np.ndarray | None, rules: dict | None, i: int, is_last: bool) -> float:
    """The score request i gives one of its blocks: its key, lowered for its last block by the tail rule."""
    if scores is None:
        return -math.inf
    return float(scores[i]) + (rules["tail"][i] if rules and is_last else 0.0)


def supersede_twin(trace: Trace, info: dict, caches: list, scores, rules: dict | None, i: int) -> None:
    """Lower the superseded tail of request i's parent that still holds the parent's key; re-key it."""
    if scores is None or not rules or i not in rules["sup"]:
        return
    p, start, adjust = rules["sup"][i]
    for b in trace.blocks_of(p).tolist()[start:]:
        if info["score"].get(b, -math.inf) <= float(scores[p]):
            info["score"][b] = info["score"].get(b, -math.inf) + adjust
            for cache in caches:
                cache.rescore(b, info)


def block_rules_twin(trace: Trace, parent: list[int], horizon_s: float, prior_weight: float) -> dict:
    """learned_blocks.block_rules from its docstring: per request, log rates over events resolved by it."""
    n, arrival = trace.num_requests, trace.arrival_s.tolist()
    blocks = [trace.blocks_of(i).tolist() for i in range(n)]
    partial = [int(trace.input_tokens[i]) < len(blocks[i]) * trace.block_tokens for i in range(n)]

    def shared(i: int) -> int:
        a, b, k = blocks[parent[i]], blocks[i], 0
        while k < min(len(a), len(b)) and a[k] == b[k]:
            k += 1
        return k

    tail_events, sup_events = [], []  # (resolved at request index, read again?)
    sup = {}
    for c in range(n):
        p = parent[c]
        if p < 0:
            continue
        if partial[p] and blocks[p]:
            tail_events.append((c, shared(c) == len(blocks[p])))
        if shared(c) < len(blocks[p]):
            b = blocks[p][shared(c)]
            readers = [j for j in range(c + 1, n) if b in blocks[j]]
            if readers and arrival[readers[0]] <= arrival[c] + horizon_s:
                sup_events.append((readers[0], True))
            else:
                later = [j for j in range(n) if arrival[j] > arrival[c] + horizon_s]
                sup_events.append((later[0] if later else n, False))
            sup[c] = (p, shared(c))

    def log_rate(events: list, i: int) -> float:
        done = [ok for at, ok in events if at <= i]
        return math.log((sum(done) + 0.5 * prior_weight) / (len(done) + prior_weight))

    tail = [log_rate(tail_events, i) if partial[i] and blocks[i] else 0.0 for i in range(n)]
    return {"tail": tail, "sup": {c: (p, start, log_rate(sup_events, c)) for c, (p, start) in sup.items()}}


def continuation_keys_twin(arrival, parent, features, horizon_s, decay_s, prior_weight) -> list[float]:
    """Online per-feature-value continuation rates, summed in log-odds; each key uses only earlier resolutions."""
    n = len(arrival)
    cont, total = {}, {}
    resolved, keys = [False] * n, []
    g_cont = g_total = 0
    for i in range(n):
        t, p = arrival[i], parent[i]
        events = []
        if p >= 0 and not resolved[p]:
            events.append((p, t - arrival[p] <= horizon_s))
            resolved[p] = True
        for j in range(i):
            if not resolved[j] and arrival[j] + horizon_s < t:
                resolved[j] = True
                events.append((j, False))
        for j, ok in events:
            g_cont, g_total = g_cont + ok, g_total + 1
            for v in features[j]:
                cont[v] = cont.get(v, 0) + ok
                total[v] = total.get(v, 0) + 1
        rate = (g_cont + 1) / (g_total + 2)
        logit = math.log(rate / (1 - rate))
        for v in features[i]:
            r = (cont.get(v, 0) + prior_weight * rate) / (total.get(v, 0) + prior_weight)
            logit += math.log(r / (1 - r)) - math.log(rate / (1 - rate))
        keys.append(math.log(1 / (1 + math.exp(-logit))) + t / decay_s)
    return keys
