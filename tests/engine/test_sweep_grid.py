"""Sweep grids: TOML/JSON files become the cartesian product of their value lists, or a clear error."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dashboard.engine.readers.canonical import build_trace
from dashboard.services.replay import ReplayRequest, run_replay
from dashboard.services.sweep import grid_requests, read_grid, run_sweep


def small_trace():
    rng = np.random.default_rng(7)
    counts = rng.integers(1, 6, 200)
    ids = np.concatenate([np.arange(c) + 10 * rng.integers(0, 8) for c in counts])
    return build_trace(
        arrival_s=np.arange(200, dtype=float) * 0.05,
        block_counts=counts,
        raw_block_ids=ids,
        input_tokens=counts * 16,
        output_tokens=np.full(200, 8),
        block_tokens=16,
        source="small",
    )


def test_toml_grid_is_the_cartesian_product_in_file_order(tmp_path):
    path = tmp_path / "grid.toml"
    path.write_text('name = "g"\npods = [1, 2]\nrouter = ["round_robin", "prefix"]\nhbm_blocks = 100\n')
    grid = read_grid(path)
    assert grid.name == "g" and len(grid.requests) == 4
    assert [(r.num_pods, r.router) for r in grid.requests] == [
        (1, "round_robin"),
        (1, "prefix"),
        (2, "round_robin"),
        (2, "prefix"),
    ]
    assert {r.hbm_blocks for r in grid.requests} == {100}


def test_json_grid_reads_like_toml(tmp_path):
    path = tmp_path / "grid.json"
    path.write_text(json.dumps({"policy": ["lru", "fifo", "s3fifo"], "hbm_blocks": [10, 20]}))
    grid = read_grid(path)
    assert grid.name == "grid" and len(grid.requests) == 6


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ({"pod": [1]}, "unknown grid key(s) pod"),
        ({"hbm_blocks": ["many"]}, "not a whole number"),
        ({"router": []}, "empty list"),
    ],
)
def test_bad_grids_name_the_key(grid, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        grid_requests(grid, "g.toml")


def test_bad_toml_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("pods = [1,\n")
    with pytest.raises(ValueError, match="broken.toml"):
        read_grid(path)


def test_unknown_router_fails_before_any_replay():
    reqs = grid_requests({"router": ["round_robin", "nope"], "hbm_blocks": 10})
    with pytest.raises(ValueError, match="config 1 .*unknown router 'nope'"):
        run_sweep(small_trace(), reqs, num_workers=1)


def test_pooled_sweep_equals_replays_one_by_one():
    trace = small_trace()
    reqs = grid_requests({"pods": [1, 2], "policy": ["lru", "fifo"], "hbm_blocks": [8, 30]})
    pooled = run_sweep(trace, reqs, num_workers=2)
    for req, summary in zip(reqs, pooled, strict=True):
        alone = run_replay(trace, req)
        assert summary.block_hits == alone.block_hits and summary.pods == alone.pods
        assert summary.config["policy"] == req.policy


def test_default_request_matches_the_grid_defaults():
    assert grid_requests({"hbm_blocks": 5}) == [ReplayRequest(hbm_blocks=5)]
