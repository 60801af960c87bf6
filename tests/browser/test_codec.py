"""The page's JavaScript decoder (``CalibTutorial.unpackSum`` in static/js/core.js) on the shared codec vectors.

``tests/data/codec_vectors.json`` is the one set of vectors of the packed integer code: the Python test
(tests/test_sitegen_payload.py) checks the encoder and decoder on it, this test the page's decoder, so the
two languages read one format. unpackSum returns the running sum of the integers (the delta decoding).
"""

import json
from itertools import accumulate
from pathlib import Path

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "data" / "codec_vectors.json")
                     .read_text(encoding="utf-8"))["vectors"]


def test_the_pages_decoder_reads_every_vector(open_page):
    page = open_page("")
    decoded = page.evaluate(
        "texts => texts.map(t => Array.from(window.CalibTutorial.unpackSum(t)))",
        [v["packed"] for v in VECTORS])
    expected = [list(accumulate(v["ints"])) for v in VECTORS]
    assert len(decoded) == len(VECTORS) > 10
    mismatched = [(v["packed"], got, want) for v, got, want in zip(VECTORS, decoded, expected) if got != want]
    assert not mismatched, mismatched
