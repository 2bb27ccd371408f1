"""A compiled JSON Lines reader for flat trace records: number fields and one integer-list field.

The readers' Python path (jsonl.records, then the field checks) parses ~40k Mooncake requests/s;
a trace of 10^8 block accesses would take minutes. scan_jsonl reads the file in chunks and a
compiled pass (scan_kernel.py) turns each line it fully understands into values:

- a number field: a non-negative JSON integer of at most 18 digits, or a decimal whose digits
  fit 2**53 with at most 22 after the point; the value is what Python's float() of it gives;
- the list field: JSON integers of at most 18 digits (a sign allowed);
- any other key: a string of printable ASCII (escapes checked), a number, true, false or null.

Anything else on a line (an exponent, a negative number, a nested or repeated key, a missing
field, non-ASCII text, a BOM, invalid JSON) defers that one line to the reader's Python path,
which reads it the slow way or raises its own file:line:field ValueError. So every accepted line
yields exactly what the Python path yields, and every error is the Python path's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from dashboard.core.config import usable_cores
from dashboard.engine.readers.intern import DENSE, NUM_IDS, dense_continues, grow, intern_all, new_interner
from dashboard.engine.readers.jsonl import open_trace_file, parse_record
from dashboard.engine.readers.scan_kernel import (
    DEFER,
    DONE,
    FULL_IDS,
    FULL_RAW,
    FULL_ROWS,
    LIST,
    line_end,
    scan_lines,
    scan_raw,
    whole_lines,
)
from dashboard.engine.readers.words import PAD

CHUNK_BYTES = 1 << 22  # NOTE: 4 MB scanned in parts: 0.82 of one thread's time, 16 MB 0.87 (docs/traces.md)
SPARE = 1 + PAD  # bytes after a chunk: the newline the kernel stops at, and what word reads may see
# NOTE: first capacities from the file size (a Mooncake line takes at least 66 bytes, an id at
# least 2), capped; the arrays are np.empty, so pages beyond what is written are never touched.
MIN_LINE_BYTES, MIN_ID_BYTES = 64, 2
MAX_FIRST_ROWS, MAX_FIRST_IDS = 1 << 24, 1 << 28
MAX_TEXTS, MAX_TEXT_BYTES = 64, 32  # a TEXT field's distinct strings; a line past these is deferred
# The chunks of a file of at least PARALLEL_MIN_BYTES are scanned by WORKERS threads at once, a
# part each (scan_raw), and their ids numbered after, in file order: docs/traces.md has what it gains.
PARALLEL_MIN_BYTES = 1 << 22
WORKERS = min(usable_cores(), 8)

# (path, line number, record) -> (number fields in order, list ids), or the reader's ValueError
SlowLine = Callable[[Path, int, dict[str, Any]], tuple[list[float], list[int]]]


@dataclass(frozen=True)
class ScannedColumns:
    """What scan_jsonl read: number fields per request (float64 [n, k]), list lengths, dense ids."""

    values: np.ndarray
    counts: np.ndarray
    block_ids: np.ndarray  # int32, dense by first appearance in the file
    num_blocks: int
    texts: tuple[str, ...] = ()  # a TEXT field's strings: its column holds their numbers


class _Outputs:
    """Growable output arrays, resized in place (realloc of a large block remaps pages, copies none)."""

    def __init__(self, num_fields: int, num_rows: int, num_ids: int) -> None:
        self.values = np.empty((num_rows, num_fields), np.float64)
        self.counts = np.empty(num_rows, np.int64)
        self.ids = np.empty(num_ids, np.int32)
        self.raw = np.empty(1 << 12, np.int64)  # one line's raw ids
        self.ix = new_interner()
        self.row, self.k = 0, 0

    def grow(self, status: int) -> None:
        """Room for what scan_lines found short."""
        if status == FULL_ROWS:
            size = 2 * self.counts.shape[0]
            self.values.resize((size, self.values.shape[1]), refcheck=False)
            self.counts.resize(size, refcheck=False)
        elif status == FULL_IDS:
            self.ids.resize(2 * self.ids.shape[0], refcheck=False)
        elif status == FULL_RAW:
            self.raw = np.empty(2 * self.raw.shape[0], np.int64)
        else:
            self.ix = grow(self.ix, status)

    def append(self, values: list[float], ids: list[int]) -> None:
        """One record the Python path read."""
        if self.row == self.counts.shape[0]:
            self.grow(FULL_ROWS)
        while self.k + len(ids) > self.ids.shape[0]:
            self.grow(FULL_IDS)
        self.values[self.row] = values
        self.counts[self.row] = len(ids)
        self.ix = intern_all(self.ix, np.array(ids, np.int64), self.ids, self.k)
        self.row, self.k = self.row + 1, self.k + len(ids)

    def room(self, rows: int, ids: int) -> None:
        """Outputs long enough for rows more records holding ids more ids."""
        while self.row + rows > self.counts.shape[0]:
            self.grow(FULL_ROWS)
        while self.k + ids > self.ids.shape[0]:
            self.grow(FULL_IDS)

    def add_parts(self, parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], placed_first: bool) -> None:
        """Records of a chunk's parts, each (values, counts, ids), in file order. The ids are dense
        ones placed as they are (the first part's already in self.ids when placed_first) or raw ones,
        numbered here, after every record before them."""
        rows = [counts.shape[0] for _, counts, _ in parts]
        self.room(sum(rows), sum(raw.shape[0] for _, _, raw in parts))
        for j, (values, counts, raw) in enumerate(parts):
            self.values[self.row : self.row + rows[j]] = values
            self.counts[self.row : self.row + rows[j]] = counts
            if raw.dtype == np.int32:
                if not (j == 0 and placed_first):
                    self.ids[self.k : self.k + raw.shape[0]] = raw
            else:
                self.ix = intern_all(self.ix, raw, self.ids, self.k)
            self.row, self.k = self.row + rows[j], self.k + raw.shape[0]

    def result(self, texts: tuple[str, ...]) -> ScannedColumns:
        self.values.resize((self.row, self.values.shape[1]), refcheck=False)
        self.counts.resize(self.row, refcheck=False)
        self.ids.resize(self.k, refcheck=False)
        return ScannedColumns(self.values, self.counts, self.ids, int(self.ix.io[NUM_IDS]), texts)


def _schema(fields: tuple[str, ...], kinds: tuple[int, ...]) -> tuple:
    """The kernel's view of the fields: (keys, key lengths, kinds, texts: a table of up to
    MAX_TEXTS strings of at most MAX_TEXT_BYTES, their lengths, how many)."""
    if len(kinds) != len(fields) or list(kinds).count(LIST) != 1:
        raise ValueError(f"scan_jsonl: one kind per field and one LIST among them, got {kinds} for {fields}")
    encoded = [f.encode() for f in fields]
    keys = np.zeros((len(fields), max(map(len, encoded))), np.uint8)
    for k, key in enumerate(encoded):
        keys[k, : len(key)] = np.frombuffer(key, np.uint8)
    texts = (
        np.zeros((MAX_TEXTS, MAX_TEXT_BYTES), np.uint8),
        np.zeros(MAX_TEXTS, np.int64),
        np.zeros(1, np.int64),
    )
    return keys, np.array([len(k) for k in encoded], np.int64), np.array(kinds, np.int64), texts


def _texts(schema: tuple) -> tuple[str, ...]:
    table, lengths, count = schema[3]
    return tuple(table[c, : lengths[c]].tobytes().decode("ascii") for c in range(int(count[0])))


def scan_jsonl(
    path: Path,
    fields: tuple[str, ...],
    kinds: tuple[int, ...],
    slow_line: SlowLine,
    workers: int | None = None,
    parallel_min_bytes: int | None = None,
    chunk_bytes: int | None = None,
) -> ScannedColumns:
    """Every record of a JSONL file: its fields' values in fields order (the LIST field's column unused)
    and the LIST field's ids; kinds: each field's (scan_kernel's NUMBER, INTEGER, LIST, TEXT).

    A line the scanner defers goes through jsonl.parse_record and slow_line(path, lineno, record),
    which returns the same (values, ids) or raises the reader's ValueError. With workers > 1
    (WORKERS), the chunks of a file of at least parallel_min_bytes (PARALLEL_MIN_BYTES) are each
    scanned in parts on that many threads at once (_Parts). Chunks are chunk_bytes (CHUNK_BYTES) long.
    """
    schema = _schema(fields, kinds)
    workers = WORKERS if workers is None else workers
    least = PARALLEL_MIN_BYTES if parallel_min_bytes is None else parallel_min_bytes
    with (
        open_trace_file(path) as fh,
        ThreadPoolExecutor(max(workers - 1, 1)) as pool,
        ThreadPoolExecutor(1) as reader,
    ):
        size = path.stat().st_size
        rows, ids = min(size // MIN_LINE_BYTES, MAX_FIRST_ROWS), min(size // MIN_ID_BYTES, MAX_FIRST_IDS)
        out = _Outputs(len(fields), rows + 16, ids + 16)
        parts = _Parts(pool, workers, fields) if workers > 1 and size >= least else None
        lineno = 1
        for buf, n, have in _chunks(fh, CHUNK_BYTES if chunk_bytes is None else chunk_bytes, reader):
            lines = parts.scan(buf, n, schema, out) if parts else None
            if lines is None:
                lineno = _scan_chunk(path, buf, n, have, lineno, schema, fields, out, slow_line)
            else:
                lineno += lines
    return out.result(_texts(schema))


def _chunks(
    fh: BinaryIO, chunk_bytes: int, reader: ThreadPoolExecutor
) -> Iterator[tuple[np.ndarray, int, int]]:
    """The file in chunks of about chunk_bytes: (buf, n, have), buf[:n] its whole lines, buf[n:have]
    the start of the next one (buf[n:n + SPARE] free to scribble on: scan_kernel's newline at n, the
    word reads' PAD), and the last chunk's n == have.

    NOTE: the next chunk is read on reader while the caller scans this one, into the other of two
    buffers: reading from the page cache is a copy that took 0.09 s of one core for 750 MB, time
    the scan's threads had to wait for.
    """
    bufs = [np.zeros(chunk_bytes + SPARE, np.uint8) for _ in range(2)]
    j, have = 0, 0
    pending = _read_now(fh, bufs[0], 0)  # NOTE: a file of one chunk starts no reader thread
    while True:
        buf = bufs[j]
        got = pending.result()
        have += got
        n = have if got == 0 else whole_lines(buf, have)
        if n == 0 and got > 0:  # NOTE: no line ends yet: read on, in a buffer twice as long once it is full
            if have == buf.shape[0] - SPARE:
                buf = bufs[j] = np.concatenate([buf[:have], np.zeros(have + SPARE, np.uint8)])
            pending = reader.submit(_read_into, fh, buf, have)
            continue
        following = bufs[1 - j]
        if following.shape[0] < buf.shape[0]:
            following = bufs[1 - j] = np.zeros(buf.shape[0], np.uint8)
        rest = have - n
        following[:rest] = buf[n:have]
        if got > 0:
            pending = reader.submit(_read_into, fh, following, rest)
        yield buf, n, have
        if got == 0:
            return
        j, have = 1 - j, rest


def _read_into(fh: BinaryIO, buf: np.ndarray, at: int) -> int:
    """Bytes read from fh into buf[at:], short of its SPARE last bytes; 0 at the end of the file."""
    return fh.readinto(memoryview(buf)[at:-SPARE])


def _read_now(fh: BinaryIO, buf: np.ndarray, at: int) -> Future:
    """_read_into on this thread, as a finished Future."""
    done: Future = Future()
    done.set_result(_read_into(fh, buf, at))
    return done


class _Parts:
    """A chunk scanned in parts on threads at once (scan_raw), each part's outputs kept for the next chunk.

    NOTE: only the byte scan runs in parallel: the numbering by first appearance is sequential, so
    the parts' raw ids are numbered after, in file order, on the calling thread (numbering one
    chunk beside the next one's scan measured about the same on two cores, 0.79-0.87 of one
    thread's time either way). While the file's ids are dense by first appearance (intern.py's
    DENSE mode) they need no numbering: the parts write them as int32, the first part straight
    into the output, and each part's summary says whether they still are (intern.dense_continues).
    A part that cannot be read whole (a line for the Python path, an output too short, a TEXT
    field's string not numbered yet) or that ends DENSE mode sends its whole chunk to scan_lines.
    """

    def __init__(self, pool: ThreadPoolExecutor, workers: int, fields: tuple[str, ...]) -> None:
        self.pool, self.workers, self.num_fields = pool, workers, len(fields)
        # NOTE: a line scan_raw reads holds every field's quoted key, a colon and a value
        self.min_line = 2 + sum(len(f.encode()) + 4 for f in fields)
        self.outputs: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.checks = np.zeros((workers, 3), np.int64)

    def _outputs(self, j: int, num_bytes: int, dtype: type) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Part j's (values, counts, ids of dtype), with room for what num_bytes of lines can hold."""
        rows, ids = self._bounds(num_bytes)
        while len(self.outputs) <= j:
            self.outputs.append((np.empty((0, self.num_fields)), np.empty(0, np.int64), np.empty(0, dtype)))
        values, counts, raw = self.outputs[j]
        if counts.shape[0] < rows or raw.shape[0] < ids or raw.dtype != dtype:
            self.outputs[j] = (
                np.empty((rows, self.num_fields)),
                np.empty(rows, np.int64),
                np.empty(ids, dtype),
            )
        return self.outputs[j]

    def _bounds(self, num_bytes: int) -> tuple[int, int]:
        """The most records and ids num_bytes of lines can hold."""
        return num_bytes // self.min_line + 2, num_bytes // MIN_ID_BYTES + 2

    def scan(self, buf, n, schema, out: _Outputs) -> int | None:
        """The lines of buf[:n] (buf[n] spare) read into out, and how many; None if scan_lines must read them."""
        saved = buf[n]
        buf[n] = 10  # NOTE: the kernel stops at newlines only
        w = self.workers
        cuts = [0] + [min(int(line_end(buf, n * j // w)) + 1, n) for j in range(1, w)] + [n]
        dense = bool(out.ix.io[DENSE])
        dtype = np.int32 if dense else np.int64
        outputs = [self._outputs(j, cuts[j + 1] - cuts[j], dtype) for j in range(w)]
        checks = self.checks if dense else self.checks[:, :0]
        at = [0] * w  # where in its ids array each part writes
        if dense:  # NOTE: the first part's ids go straight to where they belong
            out.room(0, self._bounds(cuts[1])[1])
            outputs[0], at[0] = (*outputs[0][:2], out.ids), out.k

        def part(j: int) -> tuple:
            return scan_raw(buf, cuts[j], cuts[j + 1], schema, *outputs[j], at[j], checks[j])

        later = [self.pool.submit(part, j) for j in range(1, w)]
        results = [part(0)] + [f.result() for f in later]
        buf[n] = saved
        if any(status != DONE for status, *_ in results):
            return None
        if dense:
            accepted, num_ids = dense_continues(checks.tolist(), int(out.ix.io[NUM_IDS]))
            if accepted < w:
                return None
            out.ix.io[NUM_IDS] = num_ids
        parts = [
            (values[:rows], counts[:rows], raw[a : a + k])
            for (values, counts, raw), a, (_, rows, k, _) in zip(outputs, at, results, strict=True)
        ]
        out.add_parts(parts, placed_first=dense)
        return sum(lines for *_, lines in results)


def _scan_chunk(path, buf, n, have, lineno, schema, fields, out, slow_line) -> int:
    """Read the whole lines of buf[:n]; returns the next line number."""
    saved = buf[n]
    buf[n] = 10  # NOTE: the kernel stops at newlines only; restored before the caller goes on
    pos = 0
    while True:
        status, pos, lineno, out.row, out.k, end = scan_lines(
            buf, n, schema, out.values, out.counts, out.ids, out.raw, out.ix,
            pos, lineno, out.row, out.k,
        )  # fmt: skip
        if status == DONE:
            break
        if status != DEFER:
            out.grow(status)
            continue
        # NOTE: the line as file iteration gives it, newline included, so errors match exactly.
        rec = parse_record(path, lineno, buf[pos : min(end + 1, have)].tobytes(), fields)
        if rec is not None:
            out.append(*slow_line(path, lineno, rec))
        pos, lineno = end + 1, lineno + 1
    buf[n] = saved
    return lineno
