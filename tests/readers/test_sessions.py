"""Session inference from block chains: follow-ups continue sessions, a shared root block does not."""

from __future__ import annotations

import numpy as np

from dashboard.engine.readers import read_trace
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.sessions import infer_sessions


def chain_trace(requests: list[list[int]], session_ids=None):
    """A trace of requests (raw block id lists) one second apart."""
    return build_trace(
        arrival_s=np.arange(len(requests), dtype=np.float64),
        block_counts=np.array([len(r) for r in requests], np.int64),
        raw_block_ids=np.array([b for r in requests for b in r], np.int64),
        input_tokens=np.array([16 * len(r) for r in requests], np.int64),
        output_tokens=np.zeros(len(requests), np.int64),
        block_tokens=16,
        source="hand-built",
        session_ids=session_ids,
    )


def test_a_request_extending_an_earlier_prompt_continues_its_session_with_the_next_turn():
    t = infer_sessions(chain_trace([[0, 1, 2], [0, 5, 6], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 7]]))
    assert t.session_ids.tolist() == [0, 1, 0, 0]
    assert t.turns.tolist() == [0, 0, 1, 2]


def test_a_follow_up_that_drops_the_partial_last_block_still_continues():
    # The earlier prompt ended in a partial block 9; the follow-up shares only [0, 1, 2].
    t = infer_sessions(chain_trace([[0, 1, 2, 9], [0, 1, 2, 3, 4]]))
    assert t.session_ids.tolist() == [0, 0]
    assert t.turns.tolist() == [0, 1]


def test_sharing_only_the_root_block_starts_a_new_session():
    t = infer_sessions(chain_trace([[0, 1], [0, 2], [0, 3, 4], [0]]))
    assert t.session_ids.tolist() == [0, 1, 2, 3]
    assert (t.turns == 0).all()


def test_the_latest_holder_of_the_deepest_shared_block_is_the_parent():
    # Request 2's deepest shared block is 1, held by 0 and 1: the latest (1) is its parent.
    # Request 3 shares block 6, held only by 2. Request 4 shares block 5, held only by 1.
    t = infer_sessions(chain_trace([[0, 1], [0, 1, 5], [0, 1, 6], [0, 1, 6, 7], [0, 1, 5, 8]]))
    assert t.session_ids.tolist() == [0, 0, 0, 0, 0]
    assert t.turns.tolist() == [0, 1, 2, 3, 2]


def test_known_session_ids_are_kept():
    t = chain_trace([[0, 1], [0, 1, 2]], session_ids=np.array([7, 8]))
    assert infer_sessions(t) is t


def test_the_mooncake_trace_splits_into_many_sessions_despite_its_shared_root(mooncake_conversation):
    t = read_trace(mooncake_conversation)
    assert (t.blocks_of(0)[0] == t.block_ids[t.offsets[:-1]]).all()  # every request starts with block 0
    s = infer_sessions(t)
    num_sessions = int(s.session_ids.max()) + 1
    assert 1_000 < num_sessions < t.num_requests
    # Every session starts at turn 0, and only session starts are turn 0.
    first = np.unique(s.session_ids, return_index=True)[1]
    assert (s.turns[first] == 0).all()
    assert int((s.turns == 0).sum()) == num_sessions
