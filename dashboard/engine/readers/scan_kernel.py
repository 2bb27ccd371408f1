"""The compiled half of scan.py: one pass over whole JSON lines, deferring any line it is unsure of.

The buffer always holds a newline at index n (the driver puts one there), so every loop stops at
a line's end without a bounds check. What a line may hold, and what it defers, is in scan.py.
Block ids are numbered densely by first appearance as they are read (intern_ids), so the raw
64-bit ids never exist as one array.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine.readers.intern import intern_ids
from dashboard.engine.readers.words import byte_mask, digits_value, leading_digits, load_word, lowest_bit

DONE, DEFER, FULL_ROWS, FULL_IDS, FULL_RAW = range(5)  # FULL_TABLE, FULL_HASH, LEAVE_DENSE: intern.py's
# What a field's value may be (scan.py's schema): a non-negative number; an integer, sign allowed,
# exact as a double; the list of integer ids; a printable-ASCII string, numbered by first appearance.
NUMBER, INTEGER, LIST, TEXT = range(4)
_NL, _SP, _TAB, _CR, _VT, _FF = 10, 32, 9, 13, 11, 12
_QUOTE, _BACKSLASH, _COMMA, _COLON, _MINUS, _DOT, _PLUS = 34, 92, 44, 58, 45, 46, 43
_LBRACE, _RBRACE, _LBRACKET, _RBRACKET = 123, 125, 91, 93
_ZERO, _LOWER_E, _UPPER_E = 48, 101, 69
MAX_DIGITS = 18  # every 18-digit integer fits int64
_INT64_MAX = np.iinfo(np.int64).max
_MAX_MANTISSA = 1 << 53
_MAX_FRACTION_DIGITS = 22
_POW10 = np.array([float(10**k) for k in range(_MAX_FRACTION_DIGITS + 1)])  # each exact in a double
_POW10_INT = np.array([10**k for k in range(9)], np.int64)
_TRUE, _FALSE, _NULL = (np.frombuffer(w, np.uint8) for w in (b"true", b"false", b"null"))
_ESCAPES = np.frombuffer(b'"\\/bfnrt', np.uint8)


@njit(cache=True, inline="always")
def _digit(c: int) -> int:
    """c's digit value, or a number above 9 for any other byte."""
    return np.uint8(c - _ZERO)


@njit(cache=True, inline="always")
def _ws(buf: np.ndarray, i: int) -> int:
    """First index from i that is not JSON whitespace (newline ends a line, so it is not skipped)."""
    c = buf[i]
    while c in (_SP, _TAB, _CR):
        i += 1
        c = buf[i]
    return i


@njit(cache=True, inline="always")
def _number(buf: np.ndarray, i: int) -> tuple:
    """A non-negative number at i: (end, its float value); end -1 defers."""
    d = _digit(buf[i])
    if d > 9:
        return -1, 0.0
    whole, digits = np.int64(d), 1
    i += 1
    d = _digit(buf[i])
    if whole == 0 and d <= 9:
        return -1, 0.0  # a leading zero is not JSON
    while d <= 9:
        whole = whole * 10 + d
        digits += 1
        i += 1
        d = _digit(buf[i])
    if digits > MAX_DIGITS or buf[i] == _LOWER_E or buf[i] == _UPPER_E:
        return -1, 0.0
    if buf[i] != _DOT:
        return i, float(whole)
    i += 1
    mantissa, fraction = whole, 0
    d = _digit(buf[i])
    if d > 9:
        return -1, 0.0
    while d <= 9:
        mantissa = mantissa * 10 + d
        fraction += 1
        if mantissa > _MAX_MANTISSA or fraction > _MAX_FRACTION_DIGITS:
            return -1, 0.0
        i += 1
        d = _digit(buf[i])
    if buf[i] == _LOWER_E or buf[i] == _UPPER_E:
        return -1, 0.0
    # NOTE: both operands are exact doubles, so the one rounding is float()'s (Clinger's fast path).
    return i, float(mantissa) / _POW10[fraction]


@njit(cache=True, inline="always")
def _integer(buf: np.ndarray, i: int) -> tuple:
    """A JSON integer at i, sign allowed, of size below 2**53 (exact as a double): (end, value); end -1 defers."""
    negative = buf[i] == _MINUS
    start = i + negative
    end, value = _number(buf, start)
    if end < 0 or value >= _MAX_MANTISSA:
        return -1, 0.0
    for j in range(start, end):
        if buf[j] == _DOT:
            return -1, 0.0  # NOTE: json reads 1.0 as a float, which no chat id or turn may be
    return end, -value if negative else value


@njit(cache=True, inline="always")
def _text_code(buf: np.ndarray, i: int, texts: tuple, grow: bool) -> tuple:
    """A JSON string of printable ASCII without escapes at i, as its number in texts (table, lengths,
    count) by first appearance, adding it when grow: (end, number); end -1 defers."""
    table, lengths, count = texts
    end = _string(buf, i) if buf[i] == _QUOTE else -1
    if end < 0:
        return -1, 0.0
    start, length = i + 1, end - i - 2
    for j in range(start, end - 1):
        if buf[j] == _BACKSLASH:
            return -1, 0.0
    for c in range(count[0]):
        if lengths[c] == length:
            j = 0
            while j < length and table[c, j] == buf[start + j]:
                j += 1
            if j == length:
                return end, float(c)
    c = count[0]
    if not grow or c == table.shape[0] or length > table.shape[1]:
        return -1, 0.0
    table[c, :length] = buf[start : end - 1]
    lengths[c] = length
    count[0] = c + 1
    return end, float(c)


@njit(cache=True, inline="always")
def _int_list(buf: np.ndarray, i: int, raw: np.ndarray, limit: int) -> tuple:
    """A JSON list of integers at i, written to raw: (end, how many); end -1 defers, -2 means raw is full.

    An id past limit in size defers (raw may be int32). The common shape is read a word at a time
    (_id_words); any other is read here a byte at a time."""
    m = 0
    if buf[i] != _LBRACKET:
        return -1, m
    end, m = _id_words(buf, i + 1, raw, limit)
    if end != -1:
        return end, m
    m = 0
    i = _ws(buf, i + 1)
    if buf[i] == _RBRACKET:
        return i + 1, m
    while True:
        negative = buf[i] == _MINUS
        i += negative
        d = _digit(buf[i])
        if d > 9:
            return -1, m
        value, digits = np.int64(d), 1
        i += 1
        d = _digit(buf[i])
        if value == 0 and d <= 9:
            return -1, m
        while d <= 9:
            value = value * 10 + d
            digits += 1
            i += 1
            d = _digit(buf[i])
        c = buf[i]
        if digits > MAX_DIGITS or c in (_DOT, _LOWER_E, _UPPER_E) or value > limit:
            return -1, m
        if m >= raw.shape[0]:
            return -2, m
        raw[m] = -value if negative else value
        m += 1
        if c != _COMMA:
            i = _ws(buf, i)
            c = buf[i]
            if c == _RBRACKET:
                return i + 1, m
            if c != _COMMA:
                return -1, m
        i = _ws(buf, i + 1)


@njit(cache=True, inline="always")
def _id_words(buf: np.ndarray, i: int, raw: np.ndarray, limit: int) -> tuple:
    """The ids of a list from i (just past its bracket) if it reads `[1, 23, 456]` or `[1,23,456]`:
    ids of at most 16 digits without a leading zero, each followed by ", ", "," or the closing
    bracket; (end, how many), -2 if raw is full, or -1 for any other shape: not a verdict, only
    "read it byte by byte", which gives the same ids or defers.

    Each 64 bytes' shape is checked at once from masks of their digits, commas and spaces: every
    comma follows a digit, every space a comma (so every id after the first follows one of them),
    and the first other byte is the bracket, after a digit. NOTE: an id's place comes from the
    masks, never from where the id before it ended, so the ids are read independently of each
    other. Only ids of 8 digits or more are held to limit: the scan's (int32's, int64's) are larger.
    """
    m = 0
    if _digit(buf[i]) > 9:
        return -1, m
    one = np.uint64(1)
    block, digit_before, comma_before = i, np.uint64(0), np.uint64(0)
    while True:
        digits = byte_mask(buf, block, _ZERO, 10)
        commas = byte_mask(buf, block, _COMMA, 1)
        spaces = byte_mask(buf, block, _SP, 1)
        other = ~(digits | commas | spaces)
        inside = ~np.uint64(0) if other == 0 else (other & (~other + one)) - one  # the bytes before the end
        after_digit = (digits << one) | digit_before
        starts = digits & ~after_digit & inside
        if ((commas & ~after_digit) | (spaces & ~((commas << one) | comma_before))) & inside:
            return -1, m
        while starts != 0:
            at = block + lowest_bit(starts)
            starts &= starts - one
            word = load_word(buf, at)
            length = leading_digits(word)
            if length > 1 and buf[at] == _ZERO:
                return -1, m
            value = digits_value(word, length)
            if length == 8:
                low = load_word(buf, at + 8)
                more = leading_digits(low)
                if more == 8:
                    return -1, m
                if more > 0:
                    value = value * _POW10_INT[more] + digits_value(low, more)
                if value > limit:
                    return -1, m
            if m >= raw.shape[0]:
                return -2, m
            raw[m] = value
            m += 1
        if other != 0:
            end = lowest_bit(other)
            if buf[block + end] != _RBRACKET or not (after_digit >> np.uint64(end)) & one:
                return -1, m
            return block + end + 1, m
        digit_before, comma_before = digits >> np.uint64(63), commas >> np.uint64(63)
        block += 64


@njit(cache=True)
def _string(buf: np.ndarray, i: int) -> int:
    """End of a printable-ASCII JSON string at i (escapes checked), or -1 to defer."""
    i += 1
    while True:
        c = buf[i]
        if c == _QUOTE:
            return i + 1
        if c < 32 or c >= 127:
            return -1
        if c != _BACKSLASH:
            i += 1
            continue
        e = buf[i + 1]
        if e == 117:  # a \u escape: four hex digits follow
            for j in range(i + 2, i + 6):
                h = buf[j]
                if not (_digit(h) <= 9 or 97 <= h <= 102 or 65 <= h <= 70):
                    return -1
            i += 6
            continue
        is_escape = False
        for x in _ESCAPES:
            is_escape |= e == x
        if not is_escape:
            return -1
        i += 2


@njit(cache=True)
def _literal(buf: np.ndarray, i: int, word: np.ndarray) -> int:
    for j in range(word.shape[0]):
        if buf[i + j] != word[j]:
            return -1
    return i + word.shape[0]


@njit(cache=True)
def _skip_scalar(buf: np.ndarray, i: int) -> int:
    """End of the string, number or literal at i (the value of a key no reader needs), or -1."""
    c = buf[i]
    if c == _QUOTE:
        return _string(buf, i)
    if c == 116:
        return _literal(buf, i, _TRUE)
    if c == 102:
        return _literal(buf, i, _FALSE)
    if c == 110:
        return _literal(buf, i, _NULL)
    i += c == _MINUS
    if _digit(buf[i]) > 9:
        return -1
    if buf[i] == _ZERO:
        i += 1
    while _digit(buf[i]) <= 9:
        i += 1
    if buf[i] == _DOT:
        i += 1
        if _digit(buf[i]) > 9:
            return -1
        while _digit(buf[i]) <= 9:
            i += 1
    if buf[i] == _LOWER_E or buf[i] == _UPPER_E:
        i += 1
        i += buf[i] == _PLUS or buf[i] == _MINUS
        if _digit(buf[i]) > 9:
            return -1
        while _digit(buf[i]) <= 9:
            i += 1
    return i


@njit(cache=True)
def _key(buf: np.ndarray, i: int, keys: np.ndarray, key_len: np.ndarray) -> tuple:
    """(end, index of the key at i in keys, or len(keys) for any other key); end -1 defers."""
    if buf[i] != _QUOTE:
        return -1, 0
    start = i + 1
    i = start
    c = buf[i]
    while c != _QUOTE:
        if c < 32 or c >= 127 or c == _BACKSLASH:
            return -1, 0
        i += 1
        c = buf[i]
    length = i - start
    for k in range(keys.shape[0]):
        if key_len[k] == length:
            j = 0
            while j < length and buf[start + j] == keys[k, j]:
                j += 1
            if j == length:
                return i + 1, k
    return i + 1, keys.shape[0]


@njit(cache=True)
def _line(buf, i, schema, values, row, raw, grow, limit):
    """One object line at i into values[row] and raw: (index of its newline, ids in raw); -1 defers, -2 full.

    schema: (keys, key lengths, kinds, texts), scan.py's; grow: a new string may be numbered;
    limit: the largest id size raw holds."""
    keys, key_len, kinds, texts = schema
    m = 0
    if buf[i] != _LBRACE:
        return -1, m
    i = _ws(buf, i + 1)
    seen = 0
    while True:
        i, key = _key(buf, i, keys, key_len)
        if i < 0:
            return -1, m
        i = _ws(buf, i)
        if buf[i] != _COLON:
            return -1, m
        i = _ws(buf, i + 1)
        if key == keys.shape[0]:
            i = _skip_scalar(buf, i)
        elif seen & (1 << key):
            return -1, m  # a repeated key: json.loads keeps the last one; leave that to it
        elif kinds[key] == LIST:
            seen |= 1 << key
            i, m = _int_list(buf, i, raw, limit)
            if i == -2:
                return -2, m
        else:
            seen |= 1 << key
            kind = kinds[key]
            if kind == NUMBER:
                i, value = _number(buf, i)
            elif kind == INTEGER:
                i, value = _integer(buf, i)
            else:
                i, value = _text_code(buf, i, texts, grow)
            values[row, key] = value
        if i < 0:
            return -1, m
        i = _ws(buf, i)
        if buf[i] == _RBRACE:
            break
        if buf[i] != _COMMA:
            return -1, m
        i = _ws(buf, i + 1)
    i = _ws(buf, i + 1)
    if buf[i] != _NL or seen != (1 << keys.shape[0]) - 1:
        return -1, m
    return i, m


@njit(cache=True, inline="always")
def _skip_blanks(buf: np.ndarray, pos: int) -> tuple:
    """(index of the first byte of the line at pos that bytes.strip() keeps, or of its newline;
    whether the blanks before it held a vertical tab or form feed: blank to bytes.strip(), not
    whitespace to JSON)."""
    i, is_odd = pos, False
    c = buf[i]
    while c in (_SP, _TAB, _CR, _VT, _FF):
        is_odd |= c in (_VT, _FF)
        i += 1
        c = buf[i]
    return i, is_odd


@njit(cache=True)
def scan_lines(buf, n, schema, values, counts, ids, raw, ix, pos, lineno, row, k):
    """Scan the lines of buf[:n] (buf[n] is a newline) from pos: (status, pos, lineno, row, k, line end).

    Each line's ids go to raw, then, once the line is whole, through the interning tables ix
    (intern.intern_ids) to ids[k:]. DONE: every line read; DEFER: the line at pos, number
    lineno, ending at line end, needs Python; FULL_*: grow that output, or ix for intern.py's
    FULL_TABLE / FULL_HASH / LEAVE_DENSE, and call again.
    """
    while pos < n:
        i, is_odd = _skip_blanks(buf, pos)
        if buf[i] == _NL:
            pos, lineno = i + 1, lineno + 1  # a blank line
            continue
        if is_odd:
            return DEFER, pos, lineno, row, k, line_end(buf, i)
        if row >= counts.shape[0]:
            return FULL_ROWS, pos, lineno, row, k, 0
        end, m = _line(buf, i, schema, values, row, raw, True, _INT64_MAX)
        if end == -2:
            return FULL_RAW, pos, lineno, row, k, 0
        if end < 0:
            return DEFER, pos, lineno, row, k, line_end(buf, i)
        if k + m > ids.shape[0]:
            return FULL_IDS, pos, lineno, row, k, 0
        status, _ = intern_ids(raw, m, ix, ids, k, 0)
        if status != DONE:  # NOTE: the line is read again after the growth; re-interning is harmless
            return status, pos, lineno, row, k, 0
        counts[row] = m
        row, k = row + 1, k + m
        pos, lineno = end + 1, lineno + 1
    return DONE, pos, lineno, row, k, 0


@njit(cache=True)
def line_end(buf: np.ndarray, i: int) -> int:
    """Index of the newline ending the line at i."""
    while buf[i] != _NL:
        i += 1
    return i


@njit(cache=True)
def whole_lines(buf: np.ndarray, have: int) -> int:
    """Length of the whole lines in buf[:have]: through its last newline, 0 without one."""
    for i in range(have - 1, -1, -1):
        if buf[i] == _NL:
            return i + 1
    return 0


@njit(cache=True, nogil=True)
def scan_raw(buf, lo, hi, schema, values, counts, ids, at, checks):
    """scan_lines over the whole lines of buf[lo:hi] with every id left raw in ids[at:], holding no
    lock, so that threads scan parts of one chunk at once: (status, rows, ids, lines).

    ids is int64, or int32 while the file's ids are dense by first appearance; then checks (three
    slots, else none) gets what intern.dense_continues needs to know whether they still are: the
    least id or 0, the most ids that must come before, the largest id. NOTE: an id may follow the
    ids before the part only if it is at most one past the largest of them or of the part's ids
    before it; so the part stays dense after n ids iff no id is negative and n exceeds every id − 1
    that is past the part's largest so far + 1.

    DONE: every line read (lines: how many, blank ones too); DEFER: a line needs Python, holds a
    string not numbered yet or an id ids cannot hold; FULL_ROWS or FULL_IDS: an output is short; on
    any of these the caller reads the whole chunk again with scan_lines, which numbers ids and
    strings in file order (scan.py).
    """
    limit = np.iinfo(ids.dtype).max
    least, need, largest = 0, -1, -1
    pos, row, k, lines = lo, 0, 0, 0
    while pos < hi:
        i, is_odd = _skip_blanks(buf, pos)
        if buf[i] == _NL:
            pos, lines = i + 1, lines + 1
            continue
        if is_odd:
            return DEFER, row, k, lines
        if row >= counts.shape[0]:
            return FULL_ROWS, row, k, lines
        end, m = _line(buf, i, schema, values, row, ids[at + k :], False, limit)
        if end == -2:
            return FULL_IDS, row, k, lines
        if end < 0:
            return DEFER, row, k, lines
        if checks.shape[
            0
        ]:  # NOTE: a second look at the line's ids, still in L1: _id_words stays every caller's
            for j in range(at + k, at + k + m):
                v = np.int64(ids[j])
                least = min(least, v)
                if v > largest + 1:
                    need = v - 1
                largest = max(largest, v)
        counts[row] = m
        row, k, lines = row + 1, k + m, lines + 1
        pos = end + 1
    if checks.shape[0]:
        checks[0], checks[1], checks[2] = least, need, largest
    return DONE, row, k, lines
