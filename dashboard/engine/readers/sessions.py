"""Session inference for traces without session ids, from their chained block ids.

Rule (the same one the learned policy and session-affinity routing use, engine/sessions.py):
request i continues the session of the latest earlier request that holds i's deepest shared
block, looking at positions 1.. of i's block list from the last block backwards. Because ids
are chained prefix hashes, sharing the block at position k means sharing the whole prefix up
to k, so a follow-up turn (which repeats the earlier prompt except its partial last block, then
extends it) finds its predecessor. Position 0 alone never links two requests: the Mooncake
conversation trace (and any trace with a common system prompt) shares block 0 across every
session, so that shared root would merge everything into one session. A request with no such
predecessor starts a new session. Turns count 0, 1, 2, … along the parent chain.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from dashboard.core.types import UNKNOWN, Trace
from dashboard.engine.sessions import session_structure


def infer_sessions(trace: Trace) -> Trace:
    """The trace with session ids (0.. by first request) and turns inferred; unchanged if it has ids."""
    if trace.num_requests == 0 or bool(np.any(trace.session_ids != UNKNOWN)):
        return trace
    _, session_key, turns = session_structure(trace)
    codes, _ = pd.factorize(session_key, sort=False)
    return replace(trace, session_ids=codes.astype(np.int64), turns=turns.astype(np.int32))
