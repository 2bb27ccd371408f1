"""Capacity planning: per hardware option, the pods whose HBM and CPU tier meet a hit-ratio or TTFT target.

Model (docs/planner.md): N pods pool their caches as one LRU cache (a prefix-affine router);
tiers are inclusive, so GPU hits come from N × HBM blocks and GPU-or-CPU hits from
N × max(HBM, CPU) blocks. TTFT = M/G/1 queueing wait per pod + CPU-tier load + prefill from
engine/latency.py. Load must stay under MAX_UTILIZATION for any target.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from dashboard.core import profiles
from dashboard.core.types import Trace
from dashboard.engine.latency import LatencyModel, latency_model
from dashboard.engine.plan_math import HitOracle, mg1_wait_s, service_seconds

TARGETS = ("hit", "ttft-p50", "ttft-p90", "ttft-p99")
DEFAULT_HARDWARE = ("gh200", "h100-sxm", "h200")
MAX_UTILIZATION = (
    0.8  # NOTE: past ~80% busy an FCFS pod's queue (and TTFT tail) grows without bound in bursts
)
CPU_SHARE = (
    0.5  # NOTE: half the host DRAM for the KV tier; the rest for the OS, the engine and pinned buffers
)
MAX_PODS = 1024
QUANTILES = (0.5, 0.9, 0.99)


@dataclass(frozen=True)
class PlanRequest:
    """What to plan for: a target (`hit` ratio, or `ttft-pXX` seconds), hardware options, model, price."""

    target: str = "hit"
    target_value: float = 0.8
    hardware: tuple[str, ...] = DEFAULT_HARDWARE
    model: str = "llama-3.1-8b"
    price_per_gpu_hour: float | None = None  # None: each profile's own price, if it has one
    cpu_share: float = CPU_SHARE
    max_pods: int = MAX_PODS
    hardware_prices: tuple[tuple[str, float], ...] = ()  # (hardware, USD per GPU-hour): wins over the above

    def price_of(self, name: str) -> float | None:
        """One GPU-hour of hardware name: its own price, else the price for all, else its profile's."""
        own = dict(self.hardware_prices).get(name)
        if own is not None:
            return own
        return (
            self.price_per_gpu_hour
            if self.price_per_gpu_hour is not None
            else profiles.hardware(name).price_per_gpu_hour
        )

    def validate(self) -> None:
        """Raise ValueError naming the bad field."""
        if self.target not in TARGETS:
            raise ValueError(f"--target: unknown target {self.target!r}; known: {', '.join(TARGETS)}")
        if self.target == "hit" and not 0.0 < self.target_value < 1.0:
            raise ValueError(f"--target hit={self.target_value}: a hit ratio is between 0 and 1")
        if self.target != "hit" and not self.target_value > 0.0:
            raise ValueError(
                f"--target {self.target}={self.target_value}: a TTFT bound must be positive seconds"
            )
        if not self.hardware:
            raise ValueError("--hardware: give at least one hardware profile")
        if self.price_per_gpu_hour is not None and self.price_per_gpu_hour < 0:
            raise ValueError(f"--price-per-gpu-hour must not be negative, got {self.price_per_gpu_hour}")
        for name, price in self.hardware_prices:
            if name not in self.hardware:
                raise ValueError(f"--hardware-price {name}={price:g}: {name} is not among --hardware")
            if price < 0:
                raise ValueError(f"--hardware-price {name}={price:g}: a price must not be negative")
        if not 0.0 <= self.cpu_share <= 1.0:
            raise ValueError(f"--cpu-share must be between 0 and 1, got {self.cpu_share}")
        for name in self.hardware:
            profiles.hardware(name)
        profiles.model(self.model)


@dataclass(frozen=True)
class PodsPoint:
    """What N pods give: hit ratios by tier, TTFT quantiles, utilization."""

    num_pods: int
    token_hit_ratio: float
    gpu_token_hit_ratio: float
    ttft_s: dict[str, float]  # p50, p90, p99
    utilization: float


@dataclass(frozen=True)
class HardwarePlan:
    """One hardware option's answer, with the curve it came from."""

    hardware: str
    link_nominal: str
    hbm_kv_bytes_per_pod: float
    cpu_kv_bytes_per_pod: float
    hbm_blocks_per_pod: int
    cpu_blocks_per_pod: int
    gpu_hit_ttft_s: float  # the trace's median prompt, served from each tier, on an idle pod
    cpu_hit_ttft_s: float
    miss_ttft_s: float
    num_pods: int | None  # None: not met within max_pods (or the model does not fit)
    point: PodsPoint | None
    price_per_gpu_hour: float | None
    cost_per_hour: float | None
    curve: tuple[PodsPoint, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Plan:
    """The planner's answer for every hardware option."""

    request: PlanRequest
    trace_source: str
    num_requests: int
    duration_s: float
    block_tokens: int
    options: tuple[HardwarePlan, ...]
    elapsed_s: float = 0.0

    def to_dict(self) -> dict:
        """The `kvscope plan --json` object."""
        return asdict(self)


def hit_oracle(trace: Trace) -> HitOracle:
    """The trace's one-pass hit oracle, for a caller that plans the same trace many times."""
    return HitOracle(trace)


def plan(trace: Trace, req: PlanRequest, oracle: HitOracle | None = None) -> Plan:
    """Plan every hardware option of req for trace (pass a HitOracle to reuse its one pass)."""
    req.validate()
    started = time.perf_counter()
    oracle = oracle or HitOracle(trace)
    options = tuple(_plan_hardware(oracle, req, name) for name in req.hardware)
    duration = float(trace.arrival_s[-1] - trace.arrival_s[0]) if trace.num_requests else 0.0
    return Plan(
        req,
        trace.source,
        trace.num_requests,
        duration,
        trace.block_tokens,
        options,
        time.perf_counter() - started,
    )


def _plan_hardware(oracle: HitOracle, req: PlanRequest, name: str) -> HardwarePlan:
    hw, m = profiles.hardware(name), profiles.model(req.model)
    block_bytes = m.kv_bytes_per_token * oracle.trace.block_tokens
    hbm = profiles.hbm_kv_blocks(hw, m, oracle.trace.block_tokens)
    cpu = int(hw.cpu_dram_bytes * req.cpu_share // block_bytes)
    lat = latency_model(name, req.model)
    median_prompt = float(np.median(oracle.trace.input_tokens)) if oracle.trace.num_requests else 0.0
    price = req.price_of(name)
    base = dict(
        hardware=name,
        link_nominal=hw.link_nominal,
        hbm_kv_bytes_per_pod=float(hbm * block_bytes),
        cpu_kv_bytes_per_pod=float(cpu * block_bytes),
        hbm_blocks_per_pod=hbm,
        cpu_blocks_per_pod=cpu,
        gpu_hit_ttft_s=lat.ttft_s(median_prompt, num_gpu_hit=median_prompt),
        cpu_hit_ttft_s=lat.ttft_s(median_prompt, num_cpu_hit=median_prompt),
        miss_ttft_s=lat.ttft_s(median_prompt),
        price_per_gpu_hour=price,
    )
    if hbm <= 0:
        return HardwarePlan(
            **base,
            num_pods=None,
            point=None,
            cost_per_hour=None,
            note=f"{req.model} does not fit in {name}'s HBM",
        )
    seen: dict[int, PodsPoint] = {}

    def at(num_pods: int) -> PodsPoint:
        if num_pods not in seen:
            seen[num_pods] = evaluate_pods(oracle, lat, hbm, cpu, num_pods)
        return seen[num_pods]

    num_pods = _smallest_meeting(lambda n: _meets(at(n), req), req.max_pods)
    point = at(num_pods) if num_pods is not None else None
    curve = tuple(at(n) for n in _curve_pods(num_pods or req.max_pods))
    cost = None if num_pods is None or price is None else num_pods * price
    note = "" if num_pods is not None else f"target not met with {req.max_pods} pods"
    return HardwarePlan(**base, num_pods=num_pods, point=point, cost_per_hour=cost, curve=curve, note=note)


def evaluate_pods(oracle: HitOracle, lat: LatencyModel, hbm: int, cpu: int, num_pods: int) -> PodsPoint:
    """Hit ratios, TTFT quantiles and utilization of num_pods pods of hbm + cpu blocks each."""
    trace = oracle.trace
    gpu_hit = oracle.hit_tokens(num_pods * hbm)
    all_hit = oracle.hit_tokens(num_pods * max(hbm, cpu)) if cpu > 0 else gpu_hit
    service = service_seconds(lat, trace.input_tokens, gpu_hit, all_hit - gpu_hit)
    duration = float(trace.arrival_s[-1] - trace.arrival_s[0]) if trace.num_requests > 1 else 0.0
    rate_per_pod = trace.num_requests / duration / num_pods if duration > 0 else 0.0
    wait, rho = mg1_wait_s(service, rate_per_pod)
    qs = np.quantile(service, QUANTILES) + wait if service.size and math.isfinite(wait) else [wait] * 3
    quantiles = {f"p{int(q * 100)}": float(v) for q, v in zip(QUANTILES, qs, strict=True)}
    return PodsPoint(
        num_pods,
        float(all_hit.sum()) / oracle.total_tokens,
        float(gpu_hit.sum()) / oracle.total_tokens,
        quantiles,
        rho,
    )


def _meets(point: PodsPoint, req: PlanRequest) -> bool:
    if point.utilization > MAX_UTILIZATION:
        return False
    if req.target == "hit":
        return point.token_hit_ratio >= req.target_value
    return point.ttft_s[req.target.removeprefix("ttft-")] <= req.target_value


def _smallest_meeting(meets, max_pods: int) -> int | None:
    """Smallest N in 1..max_pods with meets(N), by doubling then bisection (meets is monotone in N)."""
    hi = 1
    while not meets(hi):
        if hi >= max_pods:
            return None
        hi = min(hi * 2, max_pods)
    lo = hi // 2 + 1 if hi > 1 else 1
    while lo < hi:
        mid = (lo + hi) // 2
        if meets(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


def _curve_pods(num_pods: int) -> list[int]:
    """About 16 pod counts from 1 to twice the answer, always including the answer."""
    top = max(2 * num_pods, 8)
    grid = np.unique(np.geomspace(1, top, num=16).round().astype(int))
    return sorted({int(n) for n in grid} | {num_pods})


def describe_target(req: PlanRequest) -> str:
    """The target in words, e.g. 'token hit ratio ≥ 80%' or 'TTFT p90 ≤ 0.5 s'."""
    if req.target == "hit":
        return f"token hit ratio ≥ {req.target_value:.0%}"
    return f"TTFT {req.target.removeprefix('ttft-')} ≤ {req.target_value:g} s"


def parse_target(text: str) -> tuple[str, float]:
    """'hit=0.8' or 'ttft-p90=0.5' → (target, value); ValueError naming the flag."""
    name, sep, value = text.partition("=")
    if not sep or name.strip() not in TARGETS:
        raise ValueError(f"--target {text!r}: expected one of {', '.join(t + '=VALUE' for t in TARGETS)}")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"--target {text!r}: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"--target {text!r}: the value must be finite")
    return name.strip(), number


def describe_answer(option: HardwarePlan) -> str:
    """One hardware option's answer in words, e.g. 'h200: 2 pods, 110.9 GB HBM + 125.0 GB CPU KV per
    pod, $20.00/h', or why there is none."""
    if option.num_pods is None:
        return f"{option.hardware}: {option.note}"
    pods = f"{option.num_pods} pod{'s' if option.num_pods > 1 else ''}"
    kv = f"{option.hbm_kv_bytes_per_pod / 1e9:.1f} GB HBM + {option.cpu_kv_bytes_per_pod / 1e9:.1f} GB CPU KV per pod"
    cost = f", ${option.cost_per_hour:,.2f}/h" if option.cost_per_hour is not None else ""
    return f"{option.hardware}: {pods}, {kv}{cost}"


def describe_prices(req: PlanRequest) -> str:
    """The prices a plan used, e.g. '$2.5/GPU-hour', 'gh200 $6.5, h200 $4/GPU-hour' or 'profile prices'."""
    if not req.hardware_prices:
        return "profile prices" if req.price_per_gpu_hour is None else f"${req.price_per_gpu_hour:g}/GPU-hour"
    prices = [
        f"{name} ${price:g}" if price is not None else f"{name} no price"
        for name, price in ((name, req.price_of(name)) for name in req.hardware)
    ]
    return ", ".join(prices) + "/GPU-hour"


def caption_parts(result: Plan) -> tuple[str, str, str]:
    """(inputs and the answer per hardware, time window, data source) of a plan, for the exported
    chart's caption: a pasted picture carries the plan itself, not only its curves."""
    req = result.request
    price = describe_prices(req)
    inputs = (
        f"plan for {describe_target(req)}; model {req.model}; {price}; "
        f"CPU tier {req.cpu_share:.0%} of host DRAM; " + "; ".join(describe_answer(o) for o in result.options)
    )
    window = f"{result.duration_s / 3600:.2f} h of trace ({result.num_requests:,} requests)"
    return inputs, window, result.trace_source or "in-memory trace"


PROMPT_LENGTHS = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)


@dataclass(frozen=True)
class TierTtft:
    """TTFT on an idle pod of one hardware by prompt length, with the prompt served from each tier."""

    hardware: str
    prompt_tokens: tuple[int, ...]
    gpu_hit_s: tuple[float, ...]
    cpu_hit_s: tuple[float, ...]
    miss_s: tuple[float, ...]


def tier_ttft_by_length(
    hardware: tuple[str, ...], model: str, prompt_tokens: tuple[int, ...] = PROMPT_LENGTHS
) -> list[TierTtft]:
    """Per hardware, TTFT of an HBM hit, a CPU-tier hit and a miss at each prompt length (latency model)."""
    out = []
    for name in hardware:
        lat = latency_model(name, model)
        out.append(
            TierTtft(
                name,
                prompt_tokens,
                tuple(lat.ttft_s(n, num_gpu_hit=n) for n in prompt_tokens),
                tuple(lat.ttft_s(n, num_cpu_hit=n) for n in prompt_tokens),
                tuple(lat.ttft_s(n) for n in prompt_tokens),
            )
        )
    return out
