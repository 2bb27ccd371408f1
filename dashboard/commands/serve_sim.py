"""kvscope serve-sim: a simulated llm-d cluster served live at /metrics for Prometheus to scrape."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from dashboard.services import serve_sim
from dashboard.sim.dialects import CONNECTORS, EPP_NAMINGS, VLLM_NAMINGS, Dialect

NAME = "serve-sim"
HELP = "serve a simulated llm-d cluster's /metrics (pod i on port P+i, the EPP on P+N)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Cluster shape, ports, clock, restarts, Prometheus config."""
    parser.add_argument("--pods", type=int, default=8, help="number of vLLM pods (default 8)")
    parser.add_argument(
        "--port", type=int, default=18000, help="first port: pod i on P+i, EPP on P+N (default 18000)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--speed", type=float, default=1.0, help="simulated seconds per wall second (default 1)"
    )
    parser.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    parser.add_argument(
        "--hours", type=float, default=6.0, help="simulated horizon; counters freeze after it"
    )
    parser.add_argument(
        "--restart",
        action="append",
        default=[],
        metavar="POD@SECONDS",
        help="restart pod POD at simulated second SECONDS (counters reset); repeatable",
    )
    parser.add_argument(
        "--vllm-naming",
        choices=VLLM_NAMINGS,
        default="0.34",
        help="export vLLM metrics as this version names them (0.10: gpu_prefix_cache_*, "
        "gpu_cache_usage_perc; 0.20: per-direction kv_offload_total_bytes; default 0.34)",
    )
    parser.add_argument(
        "--epp-naming",
        choices=EPP_NAMINGS,
        default="llm-d",
        help="llm-d: llm-d-router ≥ 0.9 (llm_d_epp_* beside the deprecated names); "
        "gaie: GAIE v1.3–1.5 EPP (inference_extension_*, label pod_name). Default llm-d",
    )
    parser.add_argument(
        "--connector",
        choices=CONNECTORS,
        default="offloading",
        help="KV connector of the CPU tier: vLLM's OffloadingConnector (kv_offload_* metrics) "
        "or LMCache (lmcache:* metrics incl. resident bytes). Default offloading",
    )
    parser.add_argument(
        "--prometheus-config", type=Path, help="write a Prometheus config scraping every target"
    )
    parser.add_argument(
        "--scrape-interval", default="15s", help="scrape_interval in that config (default 15s)"
    )


def parse_restart(text: str) -> tuple[float, int]:
    """`POD@SECONDS` → (seconds, pod)."""
    pod, sep, seconds = text.partition("@")
    try:
        if not sep:
            raise ValueError
        return float(seconds), int(pod)
    except ValueError:
        raise ValueError(f"--restart {text!r}: expected POD@SECONDS, e.g. 3@600") from None


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT or SIGTERM."""
    restarts = tuple(parse_restart(r) for r in args.restart)
    # NOTE: every option is checked before a file is written or a port is bound.
    serve_sim.check_options(args.pods, args.port, args.speed, args.hours, restarts)
    serve_sim.scrape_interval_text(args.scrape_interval)
    done = threading.Event()
    # NOTE: handlers go in before the simulation so a signal during start-up still exits cleanly.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    if args.prometheus_config:
        serve_sim.write_prometheus_config(
            args.prometheus_config, args.pods, args.port, args.host, args.scrape_interval
        )
    dialect = Dialect(vllm=args.vllm_naming, epp=args.epp_naming, connector=args.connector)
    cluster = serve_sim.start(
        args.pods, args.port, args.speed, args.seed, args.hours, restarts, args.host, dialect
    )
    print(
        f"serving {args.pods} pods on {args.host}:{args.port}-{args.port + args.pods - 1}, "
        f"EPP on {args.port + args.pods}, speed ×{args.speed:g}",
        file=sys.stderr,
        flush=True,
    )
    done.wait()
    cluster.stop()
    return 0
