"""`kvscope query` prints the named query's rows; bad input is one line on stderr and exit 2."""

from __future__ import annotations

import json

from dashboard.cli import main
from dashboard.store.writes import write_samples
from tests.store.helpers import T0, counter_rows, frame


def filled_store(store):
    write_samples(
        store,
        frame(
            counter_rows("vllm:prefix_cache_hits_total", {"pod": "a"}, [0, 10, 20, 30])
            + counter_rows("vllm:prefix_cache_queries_total", {"pod": "a"}, [0, 40, 80, 120])
        ),
    )
    path = store.path
    store.close()
    return path


def test_query_hit_rate_prints_json_rows(store, capsys):
    path = filled_store(store)
    start = int(T0.timestamp())  # epoch seconds are accepted as well as ISO-8601
    code = main(
        [
            "query",
            "hit_rate",
            "--db",
            str(path),
            "--param",
            f"start={start}",
            "--param",
            "end=2026-01-01T00:01:00Z",
            "--param",
            "step=60",
            "--format",
            "json",
        ]
    )
    out = capsys.readouterr().out
    rows = json.loads(out)
    assert code == 0
    cluster = [r for r in rows if r["pod"] == "*" and r["tier"] == "gpu"]
    assert cluster[0]["ts"].startswith("2026-01-01T00:01:00")
    assert cluster[0]["hit_rate"] == 0.25


def test_query_with_a_missing_parameter_fails_with_one_line(store, capsys):
    path = filled_store(store)
    code = main(["query", "ttft_quantiles", "--db", str(path), "--param", "start=0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "missing parameter" in err[0]


def test_query_on_a_missing_store_says_how_to_load_data(tmp_path, capsys):
    code = main(["query", "hit_rate", "--db", str(tmp_path / "none.duckdb")])
    assert code == 2
    assert "load-sample" in capsys.readouterr().err


def test_query_csv_has_the_documented_columns(store, capsys):
    path = filled_store(store)
    main(
        [
            "query",
            "hit_rate",
            "--db",
            str(path),
            "--param",
            f"start={T0.isoformat()}",
            "--param",
            f"end={T0.isoformat()}",
            "--param",
            "step=60",
            "--format",
            "csv",
        ]
    )
    header = capsys.readouterr().out.splitlines()[0]
    assert header.split(",")[:4] == ["ts", "pod", "tier", "hit_rate"]
