"""The compiled Mooncake scan reads exactly what the json path reads, and fails with its exact errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.engine.readers import intern, read_trace, scan
from dashboard.engine.readers.mooncake import FIELDS, KINDS, read_mooncake, record_values
from tests.readers.twin_jsonl import outcome, read_mooncake_twin

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

JSON_WS = st.sampled_from(["", "", "", " ", "  ", "\t", "\r"])
ODD_WS = st.sampled_from(["", " ", "\x0c", "\x0b", "\n"])
VALID_NUMBERS = st.one_of(
    st.integers(0, 10**6).map(str),
    st.integers(0, 10**18).map(str),
    st.floats(0, 1e12, allow_nan=False).map(repr),
    st.tuples(st.integers(0, 10**9), st.text("0123456789", min_size=1, max_size=25)).map(
        lambda p: f"{p[0]}.{p[1]}"
    ),
    st.sampled_from(["-0", "0.0", "1e3", "1.5E-2", "0.1", "123456789012345678", "9007199254740993.5"]),
)
ODD_NUMBERS = st.one_of(
    VALID_NUMBERS,
    st.integers(0, 10**20).map(str),
    st.sampled_from(
        ["-1", "01", "1.", ".5", "NaN", "Infinity", "true", "null", '"5"', "4.5e400", "1e", "--1"]
    ),
    st.sampled_from(["1234567890123456789", "9223372036854775807", "9223372036854775808", "[1]"]),
)
VALID_IDS = st.one_of(
    st.integers(0, 50).map(str),
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.integers(2**26 - 3, 2**26 + 3).map(str),
    st.just("-0"),
)
ODD_IDS = st.one_of(
    VALID_IDS,
    st.integers(2**63, 2**64).map(str),
    st.sampled_from(["1.0", "true", "-", "01", "1e2", "[1]", '"7"', "-9223372036854775809", "null"]),
)
VALID_SCALARS = st.one_of(
    VALID_NUMBERS,
    st.text(max_size=6).map(json.dumps),
    st.text(alphabet='ab"/\x7fé', max_size=5).map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.sampled_from(["true", "false", "null", "[]", "{}", '{"a": [1]}', "[1, 2]", '"\\u00e9"', "-1e-3"]),
)
ODD_SCALARS = st.one_of(
    VALID_SCALARS,
    st.text(alphabet='ab\\"\x01é', max_size=5).map(lambda s: f'"{s}"'),
    st.sampled_from(["nul", '"\\x"', '"\\u12"', "tru", "-", "+1", '"a']),
)
VALID_KEYS = st.sampled_from(["type", "chat_id", "x", "", "ключ", 'a\\"b', "time\\u0073tamp"])


@st.composite
def id_lists(draw, is_valid: bool) -> str:
    """A hash_ids value: a list of integers spaced at random, or (not is_valid) maybe anything else."""
    items = draw(st.lists(VALID_IDS if is_valid else ODD_IDS, max_size=8))
    if not is_valid and draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(["[1,]", "[", "[1 2]", "5", "null", "[[1]]", "[,]", "[1]]"]))
    ws = JSON_WS if is_valid else st.one_of(JSON_WS, ODD_WS)
    body = ",".join(draw(ws) + item + draw(ws) for item in items)
    return "[" + draw(ws) + body + draw(ws) + "]"


@st.composite
def lines(draw, is_valid: bool) -> str:
    """One line of a Mooncake file: a record in any layout json accepts, or (not is_valid) maybe not."""
    if not is_valid and draw(st.integers(0, 5)) == 0:
        return draw(st.sampled_from(["[1]", "{", "garbage", '"x"', "{}", "\x00{}", "\x0b{}", "{}}", "é"]))
    numbers = VALID_NUMBERS if is_valid else ODD_NUMBERS
    items = [
        ("timestamp", draw(numbers)),
        ("input_length", draw(numbers)),
        ("output_length", draw(numbers)),
        ("hash_ids", draw(id_lists(is_valid))),
    ]
    items += draw(st.lists(st.tuples(VALID_KEYS, VALID_SCALARS if is_valid else ODD_SCALARS), max_size=2))
    if not is_valid and draw(st.booleans()):
        items.pop(draw(st.integers(0, len(items) - 1)))
    items = draw(st.permutations(items))
    ws = JSON_WS if is_valid else st.one_of(JSON_WS, ODD_WS)
    members = [f'{draw(ws)}"{k}"{draw(ws)}:{draw(ws)}{v}{draw(ws)}' for k, v in items]
    return draw(ws) + "{" + ",".join(members) + "}" + draw(ws)


@st.composite
def files(draw) -> bytes:
    """A whole file: valid records (now and then an odd line), blank lines, LF or CRLF, maybe a BOM."""
    body = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.integers(0, 29))
        if kind == 29:
            body.append(draw(st.sampled_from(["", "   ", "\t\r", "\x0b", " \x0c "])))
        else:
            body.append(draw(lines(is_valid=kind < 27)))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(body) + draw(st.sampled_from([newline, ""]))
    prefix = draw(st.sampled_from([b""] * 8 + [b"\xef\xbb\xbf", b"\xff\xfe"]))
    return prefix + text.encode()


@FAST
@given(data=files())
def test_the_scan_reads_any_file_exactly_as_the_json_path_does(tmp_path_factory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("scan") / "m.jsonl"
    path.write_bytes(data)
    assert outcome(read_mooncake, path) == outcome(read_mooncake_twin, path)


@FAST
@given(
    data=files(),
    chunk=st.integers(1, 64),
    rows=st.integers(0, 3),
    ids=st.integers(0, 5),
    workers=st.integers(1, 3),
)
def test_tiny_chunks_and_outputs_grow_without_changing_what_is_read(
    tmp_path_factory, data: bytes, chunk: int, rows: int, ids: int, workers: int
) -> None:
    """Every chunk scanned in parts on `workers` threads (raw ids numbered after, a part it cannot
    read whole sending its chunk to the one-thread scan) reads what the json path reads, errors
    and their line numbers included."""
    path = tmp_path_factory.mktemp("scan") / "m.jsonl"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "CHUNK_BYTES", chunk)
        mp.setattr(scan, "MAX_FIRST_ROWS", rows)
        mp.setattr(scan, "MAX_FIRST_IDS", ids)
        mp.setattr(scan, "WORKERS", workers)
        mp.setattr(scan, "PARALLEL_MIN_BYTES", 0)
        got = outcome(read_mooncake, path)
    assert got == outcome(read_mooncake_twin, path)


def test_a_chunk_read_in_parts_on_threads_equals_one_thread_and_numbers_lines_on(tmp_path):
    """Big chunks split at line ends over three threads; an error after them names its own line."""
    chains = [[(k * 7919) % 1000 + j for j in range(k % 9)] for k in range(3000)]
    lines = [
        json.dumps({"timestamp": k, "input_length": 16 * (k % 7 + 1), "output_length": 1, "hash_ids": chain})
        for k, chain in enumerate(chains)
    ]
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(lines) + "\n")
    columns = {
        w: scan.scan_jsonl(path, FIELDS, KINDS, record_values, workers=w, parallel_min_bytes=0)
        for w in (1, 3)
    }
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "CHUNK_BYTES", 4096)  # about 50 chunks, each in three parts
        columns[3] = scan.scan_jsonl(path, FIELDS, KINDS, record_values, workers=3, parallel_min_bytes=0)
        lines[2500] = lines[2500].replace('"timestamp": 2500', '"timestamp": -1')
        path.write_text("\n".join(lines) + "\n")
        with pytest.raises(ValueError, match=r"m.jsonl:2501: field 'timestamp'"):
            scan.scan_jsonl(path, FIELDS, KINDS, record_values, workers=3, parallel_min_bytes=0)
    one, three = columns[1], columns[3]
    assert one.counts.sum() > 10_000
    assert np.array_equal(one.values[:, :3], three.values[:, :3]) and np.array_equal(one.counts, three.counts)
    assert np.array_equal(one.block_ids, three.block_ids)
    assert one.num_blocks == three.num_blocks == len({b for chain in chains for b in chain})


def test_ids_past_the_direct_table_and_negative_ids_are_numbered_by_first_appearance(tmp_path):
    big = [2**62, -5, 2**26, 3, 2**62, 2**26 - 1, -5, 3]
    path = tmp_path / "m.jsonl"
    path.write_text(
        "".join(
            json.dumps({"timestamp": k, "input_length": 16, "output_length": 1, "hash_ids": big[k : k + 3]})
            + "\n"
            for k in range(0, len(big), 3)
        )
    )
    t = read_mooncake(path, block_tokens=16)
    assert t.block_ids.tolist() == [0, 1, 2, 3, 0, 4, 1, 3]
    assert t.num_blocks == 5


def test_a_repeated_key_keeps_the_last_list_and_numbers_no_id_of_the_first(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text(
        '{"hash_ids": [7, 8], "timestamp": 0, "input_length": 16, "output_length": 1, "hash_ids": [9]}\n'
        '{"timestamp": 1, "input_length": 16, "output_length": 1, "hash_ids": [7]}\n'
    )
    t = read_mooncake(path, block_tokens=16)
    assert t.block_ids.tolist() == [0, 1] and t.num_blocks == 2


def test_a_deferred_line_in_the_middle_reads_like_its_neighbours(tmp_path):
    rows = [
        {"timestamp": k, "input_length": 16, "output_length": 1, "hash_ids": [k, k + 1]} for k in range(5)
    ]
    text = [json.dumps(r) for r in rows]
    text[2] = text[2].replace('"timestamp": 2', '"timestamp": 2e0')  # an exponent: the json path reads it
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(text) + "\n")
    assert read_mooncake(path, block_tokens=16).arrival_s.tolist() == [0.0, 0.001, 0.002, 0.003, 0.004]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1.5]}', "field 'hash_ids'"),
        ('{"timestamp": 0, "input_length": 10, "output_length": 1}', "missing field 'hash_ids'"),
        ('{"timestamp": -1, "input_length": 10, "output_length": 1, "hash_ids": []}', "field 'timestamp'"),
        (
            '{"timestamp": 0, "input_length": 1e400, "output_length": 1, "hash_ids": []}',
            "field 'input_length'",
        ),
        (
            '{"timestamp": 0, "input_length": 9223372036854775807, "output_length": 1, "hash_ids": []}',
            "field 'input_length'",
        ),
        ('{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1]', "not valid JSON"),
    ],
)
def test_a_bad_line_after_many_good_ones_is_named_by_file_line_and_field(tmp_path, line, message):
    good = json.dumps({"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1, 2]})
    path = tmp_path / "m.jsonl"
    path.write_text((good + "\n") * 1000 + line + "\n" + good + "\n")
    with pytest.raises(ValueError, match=rf"m\.jsonl:1001: {message}"):
        read_trace(path, "mooncake")


def first_appearance(raw: list[int]) -> tuple[list[int], int]:
    """The reference numbering: each id's rank of first appearance, and how many distinct ids."""
    first: dict[int, int] = {}
    return [first.setdefault(v, len(first)) for v in raw], len(first)


@settings(max_examples=60, deadline=None)
@given(
    raw=st.lists(
        st.one_of(
            st.integers(0, 300),
            st.integers(-(2**63), 2**63 - 1),
            st.integers(2**26 - 2, 2**26 + 2),
            st.integers(intern.BASE_SLOTS - 5, intern.BASE_SLOTS + 1000),  # hashed, then taken over
        ),
        max_size=400,
    )
)
def test_dense_ids_number_any_int64_ids_by_first_appearance(raw: list[int]) -> None:
    want, num_distinct = first_appearance(raw)
    got, num = intern.dense_ids(np.array(raw, np.int64))
    assert got.tolist() == want and num == num_distinct and got.dtype == np.int32


def test_ids_the_table_grows_over_move_out_of_the_hash_and_keep_their_numbers():
    late = intern.BASE_SLOTS + 10  # beyond the table's reach while few ids are known: hashed
    raw = np.array([late, *range(100), late, late + 1, 7], np.int64)
    ix = intern.new_interner()
    out = np.empty(raw.size, np.int32)
    ix = intern.intern_all(ix, raw[:1], out, 0)
    assert ix.io[intern.NUM_HASHED] == 1
    ix = intern.intern_all(ix, raw[1:], out, 1)
    assert ix.table.shape[0] > late + 1 and ix.io[intern.NUM_HASHED] == 0  # the table took it over
    assert out.tolist() == [0, *range(1, 101), 0, 101, 8]


@st.composite
def dense_then_any(draw) -> list[int]:
    """Ids dense by first appearance (each the next counter value or an earlier one, as Mooncake's
    hash_ids are), then anything: a jump ahead, a negative id, a huge one."""
    seq: list[int] = []
    for pick in draw(st.lists(st.integers(0, 2**16), max_size=300)):
        seq.append(len(set(seq)) if not seq or pick % 3 == 0 else pick % len(set(seq)))
    top = len(set(seq))
    tail = st.one_of(
        st.integers(-3, top + 3), st.integers(-(2**63), 2**63 - 1), st.sampled_from([2**31 - 1, 2**31, 2**32])
    )
    return seq + draw(st.lists(tail, max_size=40))


@FAST
@given(raw=dense_then_any(), cuts=st.lists(st.integers(0, 400), max_size=40), chunk=st.integers(64, 512))
def test_ids_dense_until_they_are_not_are_numbered_by_first_appearance_on_threads_too(
    tmp_path_factory, raw, cuts, chunk
):
    """DENSE mode (ids their own numbers, tables empty) leaves off at the first id breaking it,
    both when interned in one run and when a file's chunks are read in parts on threads, each
    part's int32 ids checked after (an id past int32 sends its chunk to the one-thread scan)."""
    want, num = first_appearance(raw)
    got, got_num = intern.dense_ids(np.array(raw, np.int64))
    assert got.tolist() == want and got_num == num
    bounds = [0, *sorted(min(c, len(raw)) for c in cuts), len(raw)]
    path = tmp_path_factory.mktemp("dense") / "m.jsonl"
    path.write_text(
        "".join(
            json.dumps({"timestamp": 0, "input_length": 16, "output_length": 1, "hash_ids": raw[a:b]}) + "\n"
            for a, b in zip(bounds, bounds[1:], strict=False)
        )
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "CHUNK_BYTES", chunk)
        cols = scan.scan_jsonl(path, FIELDS, KINDS, record_values, workers=3, parallel_min_bytes=0)
    assert cols.block_ids.tolist() == want and cols.num_blocks == num


@pytest.mark.parametrize("big", [2**31 - 1, 2**31, 2**32, 2**32 + 3, -(2**32)])
def test_an_id_an_int32_cannot_hold_while_ids_are_dense_is_numbered_not_cut(tmp_path, big):
    """While dense, parts hold ids as int32: an id past that (or one that would wrap to a dense
    number) sends its chunk to the one-thread scan instead of being cut to 32 bits."""
    raw = [0, 1, 2, 1, 3, big, 4, big % 2**32, 5]
    path = tmp_path / "m.jsonl"
    path.write_text(
        "".join(
            json.dumps({"timestamp": 0, "input_length": 16, "output_length": 1, "hash_ids": raw[a : a + 2]})
            + "\n"
            for a in range(0, len(raw), 2)
        )
    )
    cols = scan.scan_jsonl(path, FIELDS, KINDS, record_values, workers=3, parallel_min_bytes=0)
    assert cols.block_ids.tolist() == first_appearance(raw)[0]


def test_a_file_of_mooncake_ids_read_in_parts_keeps_its_ids_and_no_table(tmp_path):
    """Ids dense by first appearance are placed part by part and stay their own numbers (the
    interning tables stay empty); a later jump ahead is numbered by first appearance from there."""
    chains, top = [], 0
    for k in range(3000):
        shared = list(range(min(top, k % 5)))
        chains.append(shared + list(range(top, top + k % 7)))
        top += k % 7
    chains[2700] = [top + 10, 0, top + 3]  # breaks DENSE mode in a late part
    path = tmp_path / "m.jsonl"
    path.write_text(
        "".join(
            json.dumps({"timestamp": k, "input_length": 16, "output_length": 1, "hash_ids": c}) + "\n"
            for k, c in enumerate(chains)
        )
    )
    want, num = first_appearance([b for c in chains for b in c])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "CHUNK_BYTES", 4096)
        interned_at: list[int] = []  # where each run interned through the tables starts

        def intern_all(ix, raw, out, k):
            interned_at.append(k)
            return intern.intern_all(ix, raw, out, k)

        mp.setattr(scan, "intern_all", intern_all)
        got = scan.scan_jsonl(path, FIELDS, KINDS, record_values, workers=3, parallel_min_bytes=0)
    assert got.block_ids.tolist() == want and got.num_blocks == num
    before_break = sum(len(c) for c in chains[:2700])
    assert want[:before_break] == [b for c in chains[:2700] for b in c]
    # NOTE: a part of a 4096-byte chunk holds under 2,048 ids: only the broken part and later ones
    assert interned_at and min(interned_at) > before_break - 2048
    assert (
        read_mooncake(path, 16).block_ids.tolist() == want == read_mooncake_twin(path, 16).block_ids.tolist()
    )
