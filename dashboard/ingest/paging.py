"""Chunks that shrink when the server refuses a query for its size, for the rest of one pull.

A pull asks for its span in chunks (prometheus.plan_chunks). When the server answers that a query
exceeds one of its limits (query_limits: samples per query, query length, points per series …),
the refused chunk is halved and each half asked for again, down to MIN_CHUNK_S; the narrower width
then holds for every later chunk of that pull, so they are not refused first. Only when even a
MIN_CHUNK_S query is refused does the pull fail, with the server's own words.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import deque

from dashboard.ingest import prometheus
from dashboard.ingest.prometheus import Chunk, Client
from dashboard.ingest.query_limits import QueryLimitError

log = logging.getLogger(__name__)

MIN_CHUNK_S = 1  # NOTE: edges are whole seconds; at a 1 s scrape this is one sample a series


class ChunkWidth:
    """The widest chunk the server has not refused during one pull; its fetch threads share it."""

    def __init__(self, width_s: float = prometheus.DEFAULT_CHUNK_S):
        self._width_s = width_s
        self._lock = threading.Lock()

    @property
    def width_s(self) -> float:
        with self._lock:
            return self._width_s

    def narrow(self, width_s: float) -> None:
        """Ask for at most width_s at once from now on (a wider setting is never restored)."""
        with self._lock:
            self._width_s = min(self._width_s, width_s)


def halves(chunk: Chunk) -> tuple[Chunk, Chunk] | None:
    """The chunk cut at a whole second by its middle; None when it is too narrow to cut."""
    width_s = chunk.end_s - chunk.start_s
    if width_s < 2 * MIN_CHUNK_S:
        return None
    middle_s = chunk.start_s + math.floor(width_s / 2)
    return Chunk(chunk.start_s, middle_s), Chunk(middle_s, chunk.end_s)


def fetch_paged(client: Client, sel: str, chunk: Chunk, width: ChunkWidth) -> list[bytes]:
    """The raw answers covering chunk, in time order: one, or several when the server's limits
    made it ask for less at once (see the module docstring)."""
    answers: list[bytes] = []
    pending = deque([chunk])
    while pending:
        piece = pending.popleft()
        if piece.end_s - piece.start_s > width.width_s:
            pending.extendleft(reversed(prometheus.plan_chunks(piece.start_s, piece.end_s, width.width_s)))
            continue
        try:
            answers.append(prometheus.fetch_chunk(client, sel, piece))
        except QueryLimitError as exc:
            pending.extendleft(reversed(_split_refused(piece, exc, width)))
    return answers


def present_names_paged(client: Client, names: list[str], chunk: Chunk) -> list[str]:
    """prometheus.present_names over chunk; a span refused for its length is asked for in halves."""
    try:
        return prometheus.present_names(client, names, chunk.start_s, chunk.end_s)
    except QueryLimitError as exc:
        found = {
            n for half in _split_refused(chunk, exc, None) for n in present_names_paged(client, names, half)
        }
        return [n for n in names if n in found]


def _split_refused(chunk: Chunk, exc: QueryLimitError, width: ChunkWidth | None) -> tuple[Chunk, Chunk]:
    """The halves of a refused chunk (narrowing width to them); ConnectionError at the floor."""
    split = halves(chunk)
    width_s = chunk.end_s - chunk.start_s
    if split is None:
        raise ConnectionError(
            f"{exc.where} refused even a {width_s:g} s query (HTTP {exc.status}: {exc.limit}); "
            "select fewer series (--match) or raise that limit"
        ) from None
    if width is not None:
        width.narrow(split[1].end_s - split[1].start_s)
    log.info("%s refused a %g s query (%s); asking for half at a time", exc.where, width_s, exc.limit)
    return split
