"""`kvscope rules` prints rules promtool accepts, and Prometheus's own rule engine evaluates their
hit rate to kvscope's over the same samples (a reset, and a pod exporting two name variants)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from datetime import datetime, timedelta

import pandas as pd
import pytest

from dashboard.cli import main
from dashboard.store.queries import run_query
from dashboard.store.writes import write_samples

PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool ships with the prometheus package")
EPOCH = datetime(1970, 1, 1)  # promtool's test series start at time 0
INTERVAL_S = 15
HITS, QUERIES = "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"
OLD_HITS, OLD_QUERIES = "vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_queries_total"

# pod a restarts at scrape 25 (its counters drop); pod b exports the old names beside the new
# ones with other values, which must not be added in.
SERIES = {
    (HITS, "a"): [1000 + 30 * i for i in range(25)] + [40 * i for i in range(1, 17)],
    (QUERIES, "a"): [5000 + 100 * i for i in range(25)] + [90 * i for i in range(1, 17)],
    (HITS, "b"): [2000 + 70 * i for i in range(41)],
    (QUERIES, "b"): [9000 + 80 * i for i in range(41)],
    (OLD_HITS, "b"): [7 * i for i in range(41)],
    (OLD_QUERIES, "b"): [1000 * i for i in range(41)],
}


def rules_text(capsys, *args: str) -> str:
    assert main(["rules", *args]) == 0
    return capsys.readouterr().out


def promtool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=60)


@needs_promtool
@pytest.mark.parametrize("args", [(), ("--json",), ("--window", "1m", "--pod-label", "instance")])
def test_promtool_accepts_the_rules(tmp_path, capsys, args):
    path = tmp_path / "kvscope-rules.yml"
    path.write_text(rules_text(capsys, *args))
    result = promtool("check", "rules", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 11 rules found" in result.stdout


def test_window_is_raised_to_four_scrape_intervals(capsys):
    groups = json.loads(rules_text(capsys, "--window", "30s", "--scrape-interval", "30s", "--json"))["groups"]
    exprs = [rule["expr"] for rule in groups[0]["rules"]]
    assert "increase(vllm:prefix_cache_hits_total[2m])" in exprs[0]
    # every catalog variant is read, newest first, combined with `or` (never added)
    assert exprs[0].index(HITS) < exprs[0].index(OLD_HITS) and " or " in exprs[0]


def test_bad_input_is_one_line_and_exit_2(capsys):
    assert main(["rules", "--hit-rate-drop", "1.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--hit-rate-drop" in err


def kvscope_hit_rates(store, at_s: float, window_s: float) -> pd.DataFrame:
    rows = [
        (EPOCH + timedelta(seconds=INTERVAL_S * i), metric, {"pod": pod}, float(v))
        for (metric, pod), values in SERIES.items()
        for i, v in enumerate(values)
    ]
    write_samples(store, pd.DataFrame(rows, columns=["ts", "metric", "labels", "value"]))
    at = EPOCH + timedelta(seconds=at_s)
    return run_query(store, "hit_rate", start=at, end=at, step=window_s)


def prom_round(value: float, to_nearest: float = 1e-9) -> float:
    """PromQL's round(v, to_nearest), bit for bit."""
    inverse = 1.0 / to_nearest
    return math.floor(value * inverse + 0.5) / inverse


@needs_promtool
def test_prometheus_rule_engine_gives_kvscope_hit_rate(tmp_path, capsys, store):
    # NOTE: rules are evaluated every 10 s over 15 s scrapes, so at 610 s the window's start falls
    # between scrapes: Prometheus 2's closed and 3's open range start then hold the same samples as
    # kvscope's (ts − step, ts], and extrapolation cancels in the ratio.
    at_s, window_s = 610, 300
    ours = kvscope_hit_rates(store, at_s, window_s)
    ours = ours[ours.tier == "gpu"].set_index("pod").hit_rate
    (tmp_path / "rules.yml").write_text(rules_text(capsys, "--window", "5m"))
    series = [
        {"series": f'{metric}{{pod="{pod}"}}', "values": " ".join(str(v) for v in values)}
        for (metric, pod), values in SERIES.items()
    ]
    expected = [
        {
            "expr": f"round({name}, 1e-9)",  # the last bit differs between two correct float orders
            "eval_time": f"{at_s}s",
            "exp_samples": [
                {"labels": f"{{{labels}}}", "value": prom_round(ours[pod])} for pod, labels in pods
            ],
        }
        for name, pods in (
            ("pod:vllm_prefix_cache_hit_rate:ratio5m", [("a", 'pod="a"'), ("b", 'pod="b"')]),
            ("cluster:vllm_prefix_cache_hit_rate:ratio5m", [("*", "")]),
        )
    ]
    test = {
        "rule_files": ["rules.yml"],
        "evaluation_interval": "10s",
        "tests": [{"interval": f"{INTERVAL_S}s", "input_series": series, "promql_expr_test": expected}],
    }
    (tmp_path / "test.yml").write_text(json.dumps(test))  # JSON is YAML
    result = promtool("test", "rules", str(tmp_path / "test.yml"))
    assert result.returncode == 0, result.stdout + result.stderr
    # the reset and the duplicate variant matter: a naive sum of everything would differ
    assert ours["b"] == pytest.approx(70 / 80)
