"""Findings on the sample's story: the routing switch, the restart and the burst, each with its cause."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest

from dashboard.cli import main
from dashboard.services.findings import change_points, findings
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from tests.sample_store import sample_store

DAY = datetime(2026, 11, 30)
BURST_CAUSES = {"offload", "load", "prompt_mix", "kv_pressure"}
EXPECTED = {"routing": {"routing"}, "restart": {"restart"}, "burst": BURST_CAUSES}


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> Path:
    return sample_store(tmp_path_factory.mktemp("findings") / "sample.duckdb")


@pytest.fixture(scope="module")
def sample(sample_db):
    store = open_store(sample_db, read_only=True)
    yield store
    store.close()


def test_each_annotated_event_is_found_with_its_cause(sample):
    found = findings(sample, DAY, DAY + timedelta(hours=6))
    notes = run_query(sample, "annotations", start=DAY, end=DAY + timedelta(hours=6))
    assert len(notes) == 3
    for note in notes.itertuples():
        ts = pd.Timestamp(note.ts).to_pydatetime()
        near = [f for f in found if ts <= f.change_ts <= ts + timedelta(minutes=10)]
        assert len(near) == 1, (note.kind, [(f.change_ts, f.cause) for f in found])
        assert near[0].cause in EXPECTED[note.kind], (note.kind, near[0].evidence)


def test_the_routing_switch_moves_both_signals_and_names_the_shifted_shares(sample):
    found = findings(sample, DAY, DAY + timedelta(hours=3))
    (switch,) = [f for f in found if f.change_ts == DAY + timedelta(hours=2, minutes=5)]
    assert set(switch.signals) == {"hit_rate", "ttft_p99"}
    assert "rose 62% → 90%" in switch.summary
    assert "TTFT p99 fell 550 ms → 234 ms" in switch.summary  # written as the headline numbers are
    assert "restart" not in {e.cause for e in switch.evidence}


def test_the_burst_shows_offload_loads_and_a_higher_request_rate(sample):
    found = findings(sample, DAY + timedelta(hours=4), DAY + timedelta(hours=5, minutes=20))
    (burst,) = found
    causes = [e.cause for e in burst.evidence]
    assert {"offload", "load"} <= set(causes)
    assert "fell" in burst.summary


@pytest.mark.parametrize("hour", [0.5, 1, 2.5, 4.05])
def test_a_steady_hour_has_no_finding(sample, hour):
    start = DAY + timedelta(hours=hour)
    assert findings(sample, start, start + timedelta(hours=1)) == []


def test_findings_are_online_valid_truncating_at_detection_keeps_each(sample):
    full = findings(sample, DAY, DAY + timedelta(hours=6))
    for f in full:
        early = findings(sample, DAY, f.detected_ts)
        assert f in early, (f.change_ts, [(e.change_ts, e.cause) for e in early])
        if "counter_reset" not in f.signals:  # a change needs its post windows before it is seen
            sooner = findings(sample, DAY, f.detected_ts - timedelta(minutes=5))
            assert f.change_ts not in {e.change_ts for e in sooner}


def test_a_single_outlier_window_is_not_a_change():
    values = [0.9, 0.91, 0.89, 0.9, 0.9, 0.5, 0.9, 0.91, 0.9, 0.89]
    assert change_points(pd.Series(values).to_numpy(), 0.05) == []


def test_a_level_shift_is_found_at_its_first_window_and_seen_post_windows_later():
    values = [0.6, 0.62, 0.61, 0.6, 0.63, 0.61, 0.9, 0.91, 0.9, 0.92]
    (cp,) = change_points(pd.Series(values).to_numpy(), 0.05)
    assert (cp.index, cp.detected_index) == (6, 8)
    assert cp.before == pytest.approx(0.61) and cp.after == pytest.approx(0.9)


def test_findings_cli_prints_one_json_object_naming_each_cause(sample_db, capsys):
    assert main(["findings", "--db", str(sample_db), "--since", "6h", "--json"]) == 0
    causes = [f["cause"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert causes[:3] == ["routing", "restart", "offload"]


def test_findings_cli_rejects_a_step_too_short_to_answer(sample_db, capsys):
    assert main(["findings", "--db", str(sample_db), "--step", "20s"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--step" in err
