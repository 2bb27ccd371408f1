"""kvscope collect: pull a live stack (Prometheus or pods' /metrics) into the store."""

from __future__ import annotations

import argparse
import sys
import time

from dashboard.commands._common import add_db_argument, db_path
from dashboard.ingest.config import load_config
from dashboard.ingest.prometheus import parse_matcher
from dashboard.ingest.scrape import parse_target
from dashboard.services.collector import Collector, parse_duration
from dashboard.store.db import open_store

NAME = "collect"
HELP = "pull metrics from Prometheus (or scrape /metrics directly) into the store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Source, auth, selection and timing flags."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--prometheus",
        metavar="URL",
        help="PromQL-compatible API base URL (or $KVSCOPE_PROMETHEUS_URL, secrets.toml)",
    )
    source.add_argument(
        "--scrape", metavar="[POD=]URL", nargs="+", help="/metrics endpoints to poll directly"
    )
    add_db_argument(parser)
    parser.add_argument("--since", default="1h", help="how far back the first pull reaches (default 1h)")
    parser.add_argument("--interval", default="15s", help="time between pulls (default 15s)")
    parser.add_argument("--once", action="store_true", help="pull once and exit")
    parser.add_argument("--token-file", help="file holding a bearer token (or $KVSCOPE_PROMETHEUS_TOKEN)")
    parser.add_argument("--ca-bundle", help="CA certificates to verify the server with")
    parser.add_argument(
        "--insecure-skip-verify", action="store_true", help="do not verify TLS (not recommended)"
    )
    parser.add_argument(
        "--match",
        action="append",
        default=[],
        metavar="LABEL=VALUE",
        help="label matcher for the cluster slice (=, !=, =~, !~); repeatable",
    )


def run(args: argparse.Namespace) -> int:
    """Pull once, or every --interval until interrupted."""
    collector = _collector(args)
    if args.insecure_skip_verify:
        print("kvscope collect: warning: TLS verification is off", file=sys.stderr)
    if args.once:
        stored = collector.pull_once()
        print(f"stored {stored:,} new samples in {db_path(args)}", file=sys.stderr)
        return 0
    interval_s = parse_duration(args.interval)
    while True:
        try:
            collector.pull_once()
        except ConnectionError as exc:
            print(f"kvscope collect: {exc} (retrying in {interval_s:g} s)", file=sys.stderr)
        state = collector.state()
        print(f"{state.last_pull_at:%H:%M:%S} stored {state.num_stored:,} samples", file=sys.stderr)
        time.sleep(interval_s)


def _collector(args: argparse.Namespace) -> Collector:
    matchers = tuple(parse_matcher(m) for m in args.match)
    since_s = parse_duration(args.since)
    interval_s = parse_duration(args.interval)
    store = open_store(db_path(args))
    if args.scrape:
        targets = tuple(parse_target(t) for t in args.scrape)
        return Collector(store, targets=targets, since_s=since_s, interval_s=interval_s)
    config = load_config(
        url=args.prometheus,
        token_file=args.token_file,
        ca_bundle=args.ca_bundle,
        verify_tls=False if args.insecure_skip_verify else None,
        matchers=matchers,
    )
    return Collector(store, prometheus_config=config, since_s=since_s, interval_s=interval_s)
