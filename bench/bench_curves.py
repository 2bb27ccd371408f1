"""Sampled curves of the policies on lazy heaps (learned, the oracle) on the 100M-access scale trace
against their exact sweeps, and LFU's exact curve against the heap's sweep it replaced (issue 16, item 5).

Their own module, as their exact sweeps take most of half an hour on 2 cores (learned about 14
minutes, the oracle 9, LFU's through the heap 4-8): `python -m bench.run bench_curves`. S3-FIFO's
and ARC's rows, whose sweeps take half a minute, are bench_replay's, beside FIFO's exact curve in
passes and LFU's on the conversation trace.
"""

from __future__ import annotations

from bench.bench_replay import bench_lfu_exact, scale_sampled_rows
from bench.run import Result
from bench.scale import scale_trace

POLICIES = ("learned", "oracle")
SCALE_LFU_COMMAND = "kvscope mrc chat-scale-s0-100000000-v1.jsonl --block-tokens 16 --policy lfu --json"


def run() -> list[Result]:
    """One row per sampled policy: the sampled curve's time (median of 3) against one exact sweep, and
    its worst error over seeds 0-2 at every point of the default grid; then LFU's exact curve (median
    of 3) against one sweep through the heap."""
    trace = scale_trace()
    return [
        *scale_sampled_rows(trace, POLICIES),
        bench_lfu_exact(trace, ", 100M-access scale trace", SCALE_LFU_COMMAND, (3, 1)),
    ]
