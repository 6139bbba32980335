"""CRC-32C: known vectors (RFC 3720), the vectorised path against the pure-Python one, masking."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensorlet._src.io import crc32c as C


@pytest.mark.parametrize("data,crc", [
    (b"123456789", 0xE3069283),
    (bytes(32), 0x8A9136AA),
    (b"\xff" * 32, 0x62A8AB43),
    (bytes(range(32)), 0x46DD794E),
    (bytes(range(31, -1, -1)), 0x113FDB5C),
    (b"", 0),
])
def test_known_values(data, crc):
    assert C.crc32c_py(data) == crc
    assert int(C.crc32c_many(data, [0], [len(data)])[0]) == crc
    assert C.crc32c(data * 300) == C.crc32c_py(data * 300)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.binary(max_size=700), min_size=1, max_size=30))
def test_many_matches_python(records):
    buf = b"".join(records)
    lengths = np.array([len(r) for r in records])
    starts = np.cumsum(lengths) - lengths
    got = C.crc32c_many(buf, starts, lengths).tolist()
    assert got == [C.crc32c_py(r) for r in records]


@pytest.mark.parametrize("length", [1, 7, 8, 9, 127, 128, 129, 1000, 5000])
def test_equal_lengths_at_a_stride(length):
    """The strided-copy path (a file of same-size records) agrees with per-record CRCs."""
    rng = np.random.default_rng(length)
    n, gap = 20, 16
    buf = rng.integers(0, 256, n * (length + gap), dtype=np.uint8).tobytes()
    starts = np.arange(n) * (length + gap) + 12
    got = C.crc32c_many(buf, starts, np.full(n, length)).tolist()
    assert got == [C.crc32c_py(buf[s:s + length]) for s in starts]


def test_zeros_and_mask():
    assert C.zeros_crc([0, 5, 1000]).tolist() == [C.crc32c_py(bytes(n)) for n in (0, 5, 1000)]
    for v in (0, 1, 0xE3069283, 0xFFFFFFFF):
        assert C.unmask(C.mask(v)) == v
    arr = np.array([0, 1, 0xE3069283], np.uint32)
    assert C.unmask(C.mask(arr)).tolist() == arr.tolist()
    assert C.mask(arr).tolist() == [C.mask(int(v)) for v in arr]
