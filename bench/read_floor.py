"""The machine's floor for reading a JSONL trace: what any reader must at least do, timed alone.

Each of `parts` threads walks its share of the file's bytes once, summing them (what any reader
must at least do), then again parsing every run of digits into an integer, storing nothing: no
lines, no fields, no interning. A reader that parses each id does all of that and more, so none
reads the file faster on this machine; bench/scale.py prints both beside the reader's rate, which
says how far a target is from the machine.
"""

from __future__ import annotations

import time
from pathlib import Path
from statistics import median

import numba as nb
import numpy as np


@nb.njit(parallel=True, nogil=True)
def _touch(buf: np.ndarray, parts: int) -> int:
    """The sum of every byte: the file's bytes read once, nothing parsed."""
    sums = np.zeros(parts, np.int64)
    for p in nb.prange(parts):
        total = 0
        for i in range(buf.size * p // parts, buf.size * (p + 1) // parts):
            total += buf[i]
        sums[p] = total
    return sums.sum()


@nb.njit(parallel=True, nogil=True)
def count_integers(buf: np.ndarray, parts: int) -> tuple[int, int]:
    """(how many runs of ASCII digits, their sum), each digit run parsed as a base-10 integer; a run
    split by a part boundary counts once per side, so parts > 1 may count a few more."""
    counts, sums = np.zeros(parts, np.int64), np.zeros(parts, np.int64)
    for p in nb.prange(parts):
        value, total, count, in_digits = 0, 0, 0, False
        for i in range(buf.size * p // parts, buf.size * (p + 1) // parts):
            digit = np.uint32(buf[i]) - np.uint32(48)  # NOTE: unsigned: bytes below '0' wrap above 9
            if digit < np.uint32(10):
                value = value * 10 + digit
                in_digits = True
            elif in_digits:
                total += value
                count += 1
                value, in_digits = 0, False
        if in_digits:
            total += value
            count += 1
        counts[p], sums[p] = count, total
    return counts.sum(), sums.sum()


def read_floor(path: Path, parts: int, repeats: int = 5) -> tuple[float, float, int]:
    """(median seconds to read every byte, median seconds to parse every integer, integers found)
    over path's bytes on parts threads; the file is in memory first (as the page cache holds it for
    the reader's timed runs)."""
    buf = np.fromfile(path, np.uint8)
    _touch(buf[:64], parts)  # NOTE: compile outside the timed runs
    count_integers(buf[:64], parts)
    touch, parse, found = [], [], 0
    for _ in range(repeats):
        started = time.perf_counter()
        _touch(buf, parts)
        touch.append(time.perf_counter() - started)
        started = time.perf_counter()
        found = count_integers(buf, parts)[0]
        parse.append(time.perf_counter() - started)
    return median(touch), median(parse), int(found)
