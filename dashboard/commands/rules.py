"""kvscope rules: print Prometheus recording and alerting rules with kvscope's semantics."""

from __future__ import annotations

import argparse

from dashboard.commands._common import emit_json
from dashboard.core.rules import RuleOptions, rule_groups, to_yaml
from dashboard.core.windows import effective_window_s, promql_duration
from dashboard.services.collector import parse_duration

NAME = "rules"
HELP = "print Prometheus recording and alerting rules (hit rate by pod and cluster, TTFT p99, alerts)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--window, --scrape-interval, --pod-label, alert thresholds, --json."""
    parser.add_argument("--window", default="5m", help="rate window (raised to 4 × --scrape-interval)")
    parser.add_argument("--scrape-interval", default="15s", help="the stack's scrape interval")
    parser.add_argument("--pod-label", default="pod", help="target label naming the engine pod")
    parser.add_argument("--hit-rate-drop", type=float, default=0.2, help="alert share of hit-rate fall")
    parser.add_argument("--drop-baseline", default="1h", help="compare the hit rate with this long ago")
    parser.add_argument("--ttft-p99", type=float, default=2.0, help="alert when TTFT p99 exceeds (s)")
    parser.add_argument(
        "--offload-stall", type=float, default=0.5, help="alert share of wall time in offload transfers"
    )
    parser.add_argument("--for", dest="for_", default="10m", help="how long a condition holds to fire")
    parser.add_argument("--json", action="store_true", help="print {groups: …} as one JSON object")


def run(args: argparse.Namespace) -> int:
    """Print the rule file (YAML, or JSON with --json) on stdout."""
    if not 0 < args.hit_rate_drop < 1:
        raise ValueError(f"--hit-rate-drop {args.hit_rate_drop}: expected a share between 0 and 1")
    if not args.pod_label.isidentifier():
        raise ValueError(f"--pod-label {args.pod_label!r}: expected a Prometheus label name")
    # NOTE: durations are parsed here so a bad one is bad input, not a broken rule file.
    baseline, hold = (promql_duration(parse_duration(d)) for d in (args.drop_baseline, args.for_))
    window_s = effective_window_s(parse_duration(args.window), parse_duration(args.scrape_interval))
    options = RuleOptions(
        window_s=window_s,
        pod_label=args.pod_label,
        hit_rate_drop=args.hit_rate_drop,
        drop_baseline=baseline,
        ttft_p99_s=args.ttft_p99,
        offload_stall_share=args.offload_stall,
        for_=hold,
    )
    groups = rule_groups(options)
    if args.json:
        emit_json({"groups": groups})
    else:
        print(to_yaml(groups), end="")
    return 0
