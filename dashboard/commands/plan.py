"""kvscope plan: per hardware option, the HBM, CPU tier and pods that meet a hit-ratio or TTFT target, and the cost."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from tqdm import tqdm

from dashboard.commands._common import add_db_argument, emit_json, ensure_compiled
from dashboard.commands._trace_args import load_trace
from dashboard.core import profiles
from dashboard.core.config import SAMPLE_TRACE
from dashboard.core.types import Trace
from dashboard.engine.readers import READERS
from dashboard.services import planner, planner_policies, policy_curves
from dashboard.services.planner_traces import named_sample
from dashboard.services.profile_files import load_profiles

NAME = "plan"
HELP = "capacity plan: HBM, CPU tier and pods per hardware option for a hit-ratio or TTFT target, with cost"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--trace, --target, --hardware, --model, --price-per-gpu-hour, --hardware-price, --policies,
    --profiles, --png, --html, --json."""
    parser.add_argument(
        "--trace",
        default=str(SAMPLE_TRACE),
        help="trace file or stored trace name (default: the embedded sample workload)",
    )
    parser.add_argument(
        "--format", choices=sorted(READERS), default=None, help="trace format (default: sniffed)"
    )
    parser.add_argument(
        "--block-tokens", type=int, default=None, help="tokens per block (default: the format's)"
    )
    parser.add_argument(
        "--target",
        default="hit=0.8",
        help="hit=R (token hit ratio ≥ R) or ttft-p50|ttft-p90|ttft-p99=S (that TTFT quantile "
        "≤ S seconds); default hit=0.8",
    )
    parser.add_argument(
        "--hardware",
        nargs="+",
        default=list(planner.DEFAULT_HARDWARE),
        metavar="H",
        help=f"hardware options side by side (default: {' '.join(planner.DEFAULT_HARDWARE)}; "
        f"built in: {', '.join(profiles.HARDWARE)})",
    )
    parser.add_argument(
        "--model", default="llama-3.1-8b", help=f"model profile (built in: {', '.join(profiles.MODELS)})"
    )
    parser.add_argument(
        "--price-per-gpu-hour",
        type=float,
        default=None,
        metavar="USD",
        help="price of one GPU-hour for every option (default: each profile's price_per_gpu_hour)",
    )
    parser.add_argument(
        "--hardware-price",
        action="append",
        default=[],
        metavar="HW=USD",
        help="price of one GPU-hour of one option, e.g. gh200=6.5 (repeatable; wins over --price-per-gpu-hour)",
    )
    parser.add_argument(
        "--cpu-share",
        type=float,
        default=planner.CPU_SHARE,
        help=f"share of host DRAM given to the CPU KV tier, 0 = no CPU tier (default {planner.CPU_SHARE})",
    )
    parser.add_argument(
        "--max-pods",
        type=int,
        default=planner.MAX_PODS,
        help=f"largest pod count to consider (default {planner.MAX_PODS})",
    )
    parser.add_argument(
        "--policies",
        nargs="+",
        default=[],
        metavar="P",
        help="other eviction policies than LRU: each one's token hit ratio at every planned pooled "
        "capacity, by an exact replay of one cache that size (known: "
        f"{', '.join(policy_curves.other_policies())})",
    )
    parser.add_argument(
        "--profiles",
        type=Path,
        default=None,
        metavar="FILE.toml",
        help="extra [hardware.NAME] / [model.NAME] profiles (docs/planner.md)",
    )
    parser.add_argument(
        "--png", type=Path, default=None, metavar="FILE", help="write the plan chart as a captioned PNG"
    )
    parser.add_argument(
        "--html",
        type=Path,
        default=None,
        metavar="FILE",
        help="write the plan chart as one self-contained captioned HTML file",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_db_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Plan, print, and export the chart when asked."""
    if args.profiles is not None:
        load_profiles(args.profiles)
    if args.max_pods < 1:
        raise ValueError(f"--max-pods must be at least 1, got {args.max_pods}")
    target, value = planner.parse_target(args.target)
    req = planner.PlanRequest(
        target=target,
        target_value=value,
        hardware=tuple(args.hardware),
        model=args.model,
        price_per_gpu_hour=args.price_per_gpu_hour,
        cpu_share=args.cpu_share,
        max_pods=args.max_pods,
        hardware_prices=tuple(_hardware_price(text) for text in args.hardware_price),
    )
    req.validate()  # NOTE: before reading the trace, so bad flags fail fast
    _check_policies(args.policies)
    trace = load_trace(args)
    if args.trace == str(SAMPLE_TRACE):
        trace = named_sample(trace)
    ensure_compiled()
    result = planner.plan(trace, req)
    if args.png or args.html:
        code = _export(result, args.png, args.html)
        if code:
            return code
    readouts = _policies_at_plan(trace, result, args.policies) if args.policies else []
    if args.json:
        emit_json(result.to_dict() | ({"policies": planner_policies.to_dict(readouts)} if readouts else {}))
        return 0
    _print_table(result)
    if readouts:
        _print_policies(readouts)
    return 0


def _policies_at_plan(
    trace: Trace, result: planner.Plan, policies: list[str]
) -> list[planner_policies.PolicyAtPlan]:
    """planner_policies.at_plan with a progress bar on stderr: an exact replay per policy and pooled
    capacity takes seconds each for LFU or the oracle on a large trace."""
    total = planner_policies.plan_replays(result, policies)
    with tqdm(total=total, desc="plan --policies", unit="replay", file=sys.stderr, disable=total == 0) as bar:
        return planner_policies.at_plan(trace, result, policies, on_replayed=bar.update)


def _check_policies(names: list[str]) -> None:
    """ValueError naming --policies for a name that is not another registered policy."""
    known = policy_curves.other_policies()
    for name in names:
        if name not in known:
            raise ValueError(
                f"--policies: {name!r} is not another eviction policy; known: {', '.join(known)}"
            )
    if len(set(names)) != len(names):
        raise ValueError(f"--policies: {' '.join(names)} names a policy twice")


def _hardware_price(text: str) -> tuple[str, float]:
    """'gh200=6.5' → ('gh200', 6.5); a ValueError naming the flag otherwise."""
    name, sep, value = text.partition("=")
    try:
        price = float(value)
    except ValueError:
        price = math.nan
    if not sep or not name.strip() or math.isnan(price):
        raise ValueError(f"--hardware-price {text!r}: expected HW=USD, e.g. gh200=6.5")
    return name.strip(), price


def _export(result: planner.Plan, png: Path | None, html: Path | None) -> int:
    from dashboard.ui.export import caption_text, export_html, export_png  # NOTE: plotly only when exporting
    from dashboard.ui.planner_charts import plan_curve_chart

    fig, caption = plan_curve_chart(result), caption_text(*planner.caption_parts(result))
    if html is not None:
        html.write_text(export_html(fig, caption), encoding="utf-8")
    if png is not None:
        try:
            png.write_bytes(export_png(fig, caption))
        except RuntimeError as exc:  # no browser: not bad input, so exit 1
            print(f"kvscope plan: error: {exc}", file=sys.stderr)
            return 1
    return 0


def _print_table(result: planner.Plan) -> None:
    req = result.request
    print(
        f"{planner.describe_target(req)} · {req.model} · {result.num_requests:,} requests "
        f"from {result.trace_source}"
    )
    head = ("hardware", "HBM KV/pod", "CPU KV/pod", "CPU-hit TTFT", "pods", "token hit", "TTFT p90", "$/hour")
    print(
        f"{head[0]:<12} {head[1]:>11} {head[2]:>11} {head[3]:>13} {head[4]:>6} {head[5]:>10} {head[6]:>9} "
        f"{head[7]:>9}"
    )
    for o in result.options:
        p = o.point
        cost = f"{o.cost_per_hour:,.2f}" if o.cost_per_hour is not None else "-"
        hit = f"{p.token_hit_ratio:.1%}" if p else "-"
        p90 = f"{p.ttft_s['p90']:.3f}s" if p else "-"
        pods = str(o.num_pods) if o.num_pods else "-"
        print(
            f"{o.hardware:<12} {o.hbm_kv_bytes_per_pod / 1e9:>9.1f}GB {o.cpu_kv_bytes_per_pod / 1e9:>9.1f}GB "
            f"{o.cpu_hit_ttft_s * 1000:>10.0f} ms {pods:>6} {hit:>10} {p90:>9} {cost:>9}"
            + (f"  ({o.note})" if o.note else "")
        )


def _print_policies(readouts: list[planner_policies.PolicyAtPlan]) -> None:
    policies = list(readouts[0].token_hit_ratio)
    print()
    print("token hit ratio at each plan's pooled capacity, by eviction policy (exact replays of one cache)")
    print(f"{'hardware':<12} {'pods':>6} {'pooled blocks':>14}" + "".join(f" {p:>9}" for p in policies))
    for r in readouts:
        ratios = "".join(f" {r.token_hit_ratio[p]:>9.1%}" for p in policies)
        print(f"{r.hardware:<12} {r.num_pods:>6} {r.pooled_blocks:>14,}{ratios}")
