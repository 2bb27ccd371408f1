"""Prometheus recording and alerting rules with kvscope's semantics, for the operator's own stack.

Same numbers as the dashboard: hit rates are token-weighted (increases summed over pods, then
divided — never an average of per-pod ratios), TTFT quantiles are histogram_quantile over summed
bucket rates, and each metric's name variants come from the catalog. A pod exporting an old and
a new name side by side is read from the newest one only: `A or B` keeps B's series just for the
label sets A lacks, so variants are never added together.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.core import catalog
from dashboard.core.windows import promql_duration


@dataclass(frozen=True)
class RuleOptions:
    """The knobs of the generated rules."""

    window_s: float = 300.0  # rate window; callers raise it to ≥ 4 scrape intervals
    pod_label: str = "pod"  # the target label naming the engine pod (added by Prometheus)
    hit_rate_drop: float = 0.2  # alert when the cluster hit rate falls by this share …
    drop_baseline: str = "1h"  # … against its value this long ago
    ttft_p99_s: float = 2.0  # alert when cluster TTFT p99 exceeds this
    offload_stall_share: float = 0.5  # alert when offload loads take this share of wall time
    for_: str = "10m"


def _newest_per_group(key: str, by: str, inner: str) -> str:
    """sum by (by) (inner(name[W])) for the catalog's variants of key, newest first, joined by `or`."""
    names = catalog.exported_names(key)
    parts = [f"sum by ({by}) ({inner.format(name=name)})" for name in names]
    return parts[0] if len(parts) == 1 else " or ".join(f"({p})" for p in parts)


def rule_groups(options: RuleOptions = RuleOptions()) -> list[dict]:
    """The rule file's `groups`: one of recording rules, one of alerts built on them."""
    w = promql_duration(options.window_s)
    pod = options.pod_label
    hits = f"pod:vllm_prefix_cache_hits:increase{w}"
    queries = f"pod:vllm_prefix_cache_queries:increase{w}"
    cluster_rate = f"cluster:vllm_prefix_cache_hit_rate:ratio{w}"
    ttft_p99 = f"cluster:vllm_time_to_first_token_seconds:p99_{w}"
    load_share = f"pod:vllm_kv_offload_load_time:rate{w}"
    store_share = f"pod:vllm_kv_offload_store_time:rate{w}"
    increase = "increase({name}[" + w + "])"
    rate = "rate({name}[" + w + "])"
    recording = [
        {"record": hits, "expr": _newest_per_group("prefix_cache_hits", pod, increase)},
        {"record": queries, "expr": _newest_per_group("prefix_cache_queries", pod, increase)},
        {"record": f"pod:vllm_prefix_cache_hit_rate:ratio{w}", "expr": f"{hits} / ({queries} > 0)"},
        {"record": cluster_rate, "expr": f"sum({hits}) / (sum({queries}) > 0)"},
        {
            "record": f"pod:vllm_time_to_first_token_seconds:p99_{w}",
            "expr": f"histogram_quantile(0.99, {_newest_per_group('ttft_seconds', f'{pod}, le', rate)})",
        },
        {
            "record": ttft_p99,
            "expr": f"histogram_quantile(0.99, {_newest_per_group('ttft_seconds', 'le', rate)})",
        },
        {"record": load_share, "expr": _newest_per_group("kv_offload_load_time", pod, rate)},
        {"record": store_share, "expr": _newest_per_group("kv_offload_store_time", pod, rate)},
    ]
    keep = 1 - options.hit_rate_drop
    alerts = [
        {
            "alert": "KvscopePrefixCacheHitRateDrop",
            "expr": f"{cluster_rate} < {keep:g} * ({cluster_rate} offset {options.drop_baseline})",
            "for": options.for_,
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": f"cluster prefix-cache hit rate fell by more than {options.hit_rate_drop:.0%} "
                f"against {options.drop_baseline} ago",
                "description": "token-weighted hit rate {{ $value | humanizePercentage }}; "
                "look for a routing change, a restart or KV saturation in the same window",
            },
        },
        {
            "alert": "KvscopeTtftP99High",
            "expr": f"{ttft_p99} > {options.ttft_p99_s:g}",
            "for": options.for_,
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": f"cluster TTFT p99 above {options.ttft_p99_s:g} s",
                "description": "TTFT p99 {{ $value | humanizeDuration }}",
            },
        },
        {
            "alert": "KvscopeOffloadStall",
            "expr": f"{load_share} > {options.offload_stall_share:g} or {store_share} > "
            f"{options.offload_stall_share:g}",
            "for": options.for_,
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": f"KV offload transfers take more than {options.offload_stall_share:.0%} "
                f"of wall time on {{{{ $labels.{pod} }}}}",
                "description": "seconds of offload load or store per second: {{ $value }}",
            },
        },
    ]
    return [
        {"name": "kvscope-recording", "rules": recording},
        {"name": "kvscope-alerts", "rules": alerts},
    ]


def to_yaml(groups: list[dict]) -> str:
    """The rule file as YAML; every scalar is a JSON string (valid YAML), so no quoting rules apply."""
    import json

    lines = ["groups:"]
    for group in groups:
        lines += [f"  - name: {json.dumps(group['name'])}", "    rules:"]
        for rule in group["rules"]:
            first = True
            for key, value in rule.items():
                lead = "      - " if first else "        "
                first = False
                if isinstance(value, dict):
                    lines.append(f"{lead}{key}:")
                    lines += [f"          {k}: {json.dumps(v)}" for k, v in value.items()]
                else:
                    lines.append(f"{lead}{key}: {json.dumps(value)}")
    return "\n".join(lines) + "\n"
