"""Id lists read a word at a time (scan_kernel._id_words) read exactly what the json path reads.

The word path takes only `[1, 23]` and `[1,23]` shapes and sends any other to the byte path, so
these lists sit on its edges: ids of 1 to 18 digits (8 and 16 cross its one- and two-word reads),
lists long enough to cross several 64-byte blocks, and one odd spot anywhere in them.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.engine.readers import scan
from dashboard.engine.readers.mooncake import read_mooncake
from tests.readers.twin_jsonl import outcome, read_mooncake_twin

IDS = st.one_of(
    st.integers(0, 9),
    st.integers(0, 10**7),
    st.integers(10**7 - 2, 10**8 + 2),  # 7, 8 and 9 digits: one word, then two
    st.integers(10**15 - 2, 10**16 + 2),  # 15, 16 and 17 digits: two words, then the byte path
    st.integers(0, 10**18),
    st.sampled_from([2**31 - 1, 2**31]),  # the largest int32 id and the first past it
).map(str)
ODD_IDS = st.sampled_from(["01", "00", "-1", "-0", "1.0", "1e2", "1E2", "1a", "", " 1", "1 ", "[1]", "null"])
SEPARATORS = st.sampled_from([", ", ", ", ","])
ODD_SEPARATORS = st.sampled_from([" ,", ",  ", ",\t", ", \r", ",,", ";", " ", "", ",\x0c"])


@st.composite
def id_list(draw) -> str:
    """A list in the word path's shape, long enough to cross blocks, maybe with one odd spot."""
    ids = draw(st.lists(IDS, min_size=1, max_size=120))
    for k in draw(st.lists(st.integers(0, len(ids) - 1), max_size=4)):  # near twins: a misread merges them
        ids.append(
            draw(st.sampled_from([ids[k][:-1] + d for d in "0123456789"] + [ids[k] + "0", ids[k] + "7"]))
        )
    seps = [draw(SEPARATORS) for _ in ids[1:]]
    spot = draw(st.integers(0, 5))
    if spot == 1:
        ids[draw(st.integers(0, len(ids) - 1))] = draw(ODD_IDS)
    elif spot == 2 and seps:
        seps[draw(st.integers(0, len(seps) - 1))] = draw(ODD_SEPARATORS)
    end = draw(st.sampled_from(["]"] * 8 + [" ]", ",]", "", "]]", "\t]", "}", ")"]))
    return "[" + "".join(i + s for i, s in zip(ids, seps + [""], strict=True)) + end


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lists=st.lists(st.tuples(id_list(), st.booleans()), min_size=1, max_size=6), parts=st.booleans())
def test_id_lists_of_every_edge_read_as_the_json_path_reads_them(tmp_path_factory, lists, parts) -> None:
    """Same ids (numbered by first appearance) or the same file:line:field error, in one thread
    or in parts on threads (where a part holds ids as int32 while they are dense); the list last
    on its line or before other keys."""
    path = tmp_path_factory.mktemp("words") / "m.jsonl"
    fields = '"timestamp": {}, "input_length": 16, "output_length": 1'
    path.write_text(
        "".join(
            f'{{"hash_ids": {ids}, {fields.format(k)}}}\n'
            if first
            else f'{{{fields.format(k)}, "hash_ids": {ids}}}\n'
            for k, (ids, first) in enumerate(lists)
        )
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "WORKERS", 2 if parts else 1)
        mp.setattr(scan, "PARALLEL_MIN_BYTES", 0)
        assert outcome(read_mooncake, path) == outcome(read_mooncake_twin, path)


def test_a_list_in_the_word_shape_reads_its_ids_across_blocks(tmp_path):
    """Ids of every length from 1 to 18 digits, each beside a twin differing in its last digit,
    in lists crossing many blocks, spaced both ways: the exact ids."""
    lengths = [[1 + (j + k) % 18 for j in range(150)] for k in range(4)]
    ids = [
        [10 ** (n - 1) + (j * 7919 * (k + 1)) % (9 * 10 ** (n - 1)) for j, n in enumerate(ns)]
        for k, ns in enumerate(lengths)
    ]
    ids = [[v for b in chain for v in (b, b - b % 10 + (b + 1) % 10)] for chain in ids]
    path = tmp_path / "m.jsonl"
    path.write_text(
        "".join(
            json.dumps({"timestamp": k, "input_length": 16, "output_length": 1}, separators=sep)[:-1]
            + f', "hash_ids": {json.dumps(chain, separators=sep)}}}\n'
            for k, (chain, sep) in enumerate(zip(ids, [(", ", ": "), (",", ":")] * 2, strict=True))
        )
    )
    flat = [b for chain in ids for b in chain]
    first: dict[int, int] = {}
    assert read_mooncake(path, 16).block_ids.tolist() == [first.setdefault(b, len(first)) for b in flat]
    assert {len(str(b)) for b in flat} == set(range(1, 19)) and len(first) > 1000


ODD_SPOTS = (
    [("sep", s) for s in ODD_SEPARATORS.elements]
    + [("id", i) for i in ODD_IDS.elements]
    + [("end", e) for e in (" ]", ",]", "", "]]", "\t]", "}", ")")]
)


@pytest.mark.parametrize(("where", "odd"), ODD_SPOTS)
@pytest.mark.parametrize("at", [0, 1, 9, 21, 40])
def test_one_odd_spot_anywhere_in_a_long_list_reads_as_the_json_path_reads_it(tmp_path, where, odd, at):
    """Each odd separator, id and list end, at the start, inside or across a 64-byte block."""
    ids = [str(10**5 + 37 * j) for j in range(41)]
    seps = [", "] * 40
    if where == "sep":
        seps[min(at, 39)] = odd
    elif where == "id":
        ids[at] = odd
    text = (
        "[" + "".join(i + s for i, s in zip(ids, seps + [""], strict=True)) + ("]" if where != "end" else odd)
    )
    path = tmp_path / "m.jsonl"
    path.write_text(
        f'{{"hash_ids": {text}, "timestamp": 0, "input_length": 16, "output_length": 1}}\n'
        f'{{"timestamp": 1, "input_length": 16, "output_length": 1, "hash_ids": {text}}}\n'
    )
    assert outcome(read_mooncake, path) == outcome(read_mooncake_twin, path)
