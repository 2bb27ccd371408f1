"""kvscope collect: pull a live stack (Prometheus or pods' /metrics) into the store."""

from __future__ import annotations

import argparse
import logging
import re
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dashboard.commands._common import add_db_argument, db_path
from dashboard.ingest.config import load_config, load_scrape_config
from dashboard.ingest.prometheus import parse_matcher
from dashboard.ingest.scrape import parse_target
from dashboard.services.collector import Collector, PartialPullError, parse_positive_duration
from dashboard.store.db import open_store

NAME = "collect"
HELP = "pull metrics from Prometheus (or scrape /metrics directly) into the store"
# NOTE: argparse takes `-5s` for an option and stops with its usage block; a duration that looks
# negative is read as a value instead, so it is refused with kvscope's one-line error.
_NEGATIVE_NUMBER_OR_DURATION = re.compile(r"^-\d+$|^-\d*\.\d+$|^-(\d+\.?\d*|\.\d+)[smhd]$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Source, auth, selection and timing flags."""
    if not parser._negative_number_matcher.match("-5s"):  # cli.Parser may already read it as a value
        parser._negative_number_matcher = _NEGATIVE_NUMBER_OR_DURATION
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--prometheus",
        metavar="URL",
        help="PromQL-compatible API base URL (or $KVSCOPE_PROMETHEUS_URL, secrets.toml)",
    )
    source.add_argument(
        "--scrape",
        metavar="[POD=]URL",
        nargs="+",
        help="/metrics endpoints to poll directly (basic auth: http://user:pass@host/metrics)",
    )
    add_db_argument(parser)
    parser.add_argument("--since", default="1h", help="how far back the first pull reaches (default 1h)")
    parser.add_argument("--interval", default="15s", help="time between pulls (default 15s)")
    parser.add_argument("--once", action="store_true", help="pull once and exit")
    parser.add_argument(
        "--token-file", help="file holding a bearer token (Prometheus or every --scrape target)"
    )
    parser.add_argument("--ca-bundle", help="CA certificates to verify the server(s) with")
    parser.add_argument(
        "--insecure-skip-verify", action="store_true", help="do not verify TLS (not recommended)"
    )
    parser.add_argument(
        "--match",
        action="append",
        default=[],
        metavar="LABEL=VALUE",
        help="label matcher for the cluster slice (=, !=, =~, !~; Prometheus only); repeatable",
    )


def run(args: argparse.Namespace) -> int:
    """Pull once, or every --interval until interrupted; one line per pull on stderr."""
    if not args.verbose:
        # NOTE: urllib3 logs each retry as a warning; the pull's own one-line error says what failed.
        logging.getLogger("urllib3").setLevel(logging.ERROR)
    collector = _collector(args)
    if args.insecure_skip_verify:
        print("kvscope collect: warning: TLS verification is off", file=sys.stderr)
    with _query_interrupts_as_ctrl_c():
        if args.once:
            return _pull_once(collector, db_path(args))
        _stop_on_signals()
        while True:
            _pull_and_report(collector, db_path(args))
            time.sleep(collector.interval_s)


def _pull_once(collector: Collector, path: Path) -> int:
    try:
        stored = collector.pull_once()
    except ConnectionError:  # NOTE: the state holds the error as one redacted line
        raise ConnectionError(collector.state().last_error) from None
    except ValueError:
        raise ValueError(collector.state().last_error) from None
    print(f"stored {stored:,} new samples in {path}", file=sys.stderr)
    collector.roll_up()
    return 0


def _stop_on_signals() -> None:
    """Ctrl-C, and SIGTERM from systemd or Kubernetes, end the loop with its one line.

    NOTE: set explicitly: a collector started in the background by a script (`kvscope collect &`)
    inherits SIGINT ignored, and its loop then ran on past every `kill -INT`.
    """
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.default_int_handler)


def _pull_and_report(collector: Collector, path: Path) -> None:
    """One pull of the long-running loop; any error is printed and the loop goes on."""
    try:
        stored = collector.pull_once()
    except PartialPullError:
        print(f"kvscope collect: {collector.state().last_error}", file=sys.stderr)
        return
    except Exception as exc:  # noqa: BLE001 (recorded in the state as one redacted line, printed below)
        if _is_interrupt(exc):
            raise  # NOTE: Ctrl-C, not a failed pull: run() ends the command
        error, wait_s = collector.state().last_error, collector.interval_s
        print(f"kvscope collect: {error} (retrying in {wait_s:g} s)", file=sys.stderr)
        return
    state = collector.state()
    print(
        f"{state.last_pull_at:%H:%M:%S} stored {stored:,} new samples ({state.num_stored:,} this run) in {path}",
        file=sys.stderr,
    )
    collector.roll_up()


@contextmanager
def _query_interrupts_as_ctrl_c() -> Iterator[None]:
    """Ctrl-C that arrived while DuckDB ran a query ends the command like any other Ctrl-C.

    NOTE: DuckDB answers SIGINT during a query with RuntimeError("Query interrupted") and no
    KeyboardInterrupt. Taken for a failed pull, it left the loop running, deaf to Ctrl-C; in the
    roll-up after a pull, it ended the command with a traceback and exit 1.
    """
    try:
        yield
    except RuntimeError as exc:
        if _is_interrupt(exc):
            raise KeyboardInterrupt from None
        raise


def _is_interrupt(exc: Exception) -> bool:
    return isinstance(exc, RuntimeError) and str(exc) == "Query interrupted"


def _collector(args: argparse.Namespace) -> Collector:
    since_s = parse_positive_duration(args.since, "--since")
    interval_s = parse_positive_duration(args.interval, "--interval")
    verify_tls = False if args.insecure_skip_verify else None
    if args.scrape:
        if args.match:
            raise ValueError(
                "--match selects series in Prometheus; with --scrape every target's page is stored"
            )
        targets = tuple(parse_target(t) for t in args.scrape)
        config = load_scrape_config(
            token_file=args.token_file, ca_bundle=args.ca_bundle, verify_tls=verify_tls
        )
        return Collector(
            open_store(db_path(args)),
            targets=targets,
            scrape_config=config,
            since_s=since_s,
            interval_s=interval_s,
        )
    config = load_config(
        url=args.prometheus,
        token_file=args.token_file,
        ca_bundle=args.ca_bundle,
        verify_tls=verify_tls,
        matchers=tuple(parse_matcher(m) for m in args.match),
    )
    return Collector(
        open_store(db_path(args)), prometheus_config=config, since_s=since_s, interval_s=interval_s
    )
