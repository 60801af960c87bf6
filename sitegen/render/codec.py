"""The packed-integer codec of the payloads: delta encoding and one-character codes.

A series of integers (display units, see :mod:`sitegen.render.payload`) is delta-encoded (first element, then
successive differences) and packed into a string of characters from "?" to "~" (:func:`pack`), with runs of
zeros shortened. :func:`unpack` is the one decoder in Python, ``CT.unpackSum`` in ``static/js/core.js`` the one in
JavaScript; ``tests/data/codec_vectors.json`` holds vectors both check.
"""

import functools
import re

import numpy as np

__all__ = ["delta_encode", "delta_decode", "pack", "pack_rows", "unpack"]

def delta_encode(ints, axis=-1):
    """First element then successive differences along ``axis``; the inverse of a running sum."""
    ints = np.asarray(ints, dtype=np.int64)
    return np.diff(ints, axis=axis, prepend=np.zeros_like(np.take(ints, [0], axis=axis)))


def delta_decode(deltas, axis=-1):
    """Running sum along ``axis``: recovers what :func:`delta_encode` encoded."""
    return np.cumsum(np.asarray(deltas, dtype=np.int64), axis=axis)


_PACK_OFFSET = 63      # packed characters run from "?" (63) to "~" (126)
_PACK_MAX_CHUNKS = 7   # 35 bits: enough for any int32 after zigzag


def _codes(values):
    """The code of every integer of each row of ``values`` (2-D int64, zigzag-safe), one string per row."""
    zigzag = np.where(values < 0, -2 * values - 1, 2 * values)
    shifts = 5 * np.arange(_PACK_MAX_CHUNKS)
    chunks = (zigzag[..., None] >> shifts) & 31
    rest = zigzag[..., None] >> (shifts + 5)
    used = np.concatenate([np.ones(values.shape + (1,), bool), rest[..., :-1] > 0], axis=-1)
    flat = ((chunks | np.where(rest > 0, 32, 0)) + _PACK_OFFSET).astype(np.uint8)
    return [flat[r][used[r]].tobytes().decode("ascii") for r in range(values.shape[0])]


def pack_rows(ints):
    """Pack each row of a 2-D integer array into a string, one short code per integer.

    Zigzag maps an integer to a non-negative one (0, −1, 1, −2, … → 0, 1, 2, 3, …),
    which is written as 5-bit chunks, low chunk first; every chunk but the last
    carries the flag 32; each chunk is the character ``chr(63 + chunk)``. So 0
    is "?", and any delta in [−16, 15] costs one character instead of the two
    to four of a JSON number and its comma. (This is the scheme of Google's
    encoded polylines, applied to integer deltas.) A run of four or more zeros,
    common in empty bins and flat stretches, is written "!" followed by the
    packed length of the run. :func:`unpack` is the one decoder in Python (``CT.unpackSum`` in
    ``static/js/core.js`` the one in JavaScript); ``tests/data/codec_vectors.json`` holds vectors both check.
    """
    values = np.atleast_2d(np.asarray(ints, dtype=np.int64))
    if values.size and (values.min() < -2 ** 31 or values.max() >= 2 ** 31):
        raise ValueError("pack_rows packs int32 values only; got a value outside [-2**31, 2**31)")
    return [_ZERO_RUN.sub(_zero_run, row) for row in _codes(values)]


_ZERO_RUN = re.compile(r"\?{4,}")


def _zero_run(match):
    """A run of k ≥ 4 zeros ("????…") becomes "!" and the code of k."""
    return _run_code(len(match.group()))


@functools.lru_cache(maxsize=None)
def _run_code(length):
    # one numpy call per distinct run length, not per run: a reader's payload has hundreds of thousands of runs
    return "!" + _codes(np.array([[length]], dtype=np.int64))[0]


def pack(ints):
    """Pack a 1-D integer sequence into one string (see :func:`pack_rows`)."""
    return pack_rows(np.asarray(ints, dtype=np.int64)[None, :])[0]


def unpack(text):
    """The integers packed in ``text`` by :func:`pack`, as an int64 array."""
    out, value, shift, run = [], 0, 0, False
    for char in text:
        if char == "!":
            run = True
            continue
        code = ord(char) - _PACK_OFFSET
        value |= (code & 31) << shift
        if code < 32:
            number = -((value + 1) >> 1) if value & 1 else value >> 1
            out.extend([0] * number if run else [number])
            value, shift, run = 0, 0, False
        else:
            shift += 5
    return np.array(out, dtype=np.int64)
