"""Tests of sitegen.render.payload: display-unit rounding, delta encoding, and the baked dataset payloads.

The payload is decoded here as the page does it — unpack the string of
one-character codes (:func:`sitegen.render.codec.unpack`, the one Python decoder, checked
against the hand-worked vectors of ``tests/data/codec_vectors.json``), then value = t1 +
running sum of the deltas — and compared with the article's numbers and with direct
engine calls.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from calib import DATASET_NAMES, ece, mce, nll, part_masks, reliability_bins, scores_over_grid, top_label
from calib.subgroups import row_scores
from sitegen.common.settings import OFFERED_BIN_COUNTS, SELECTABLE_BIN_COUNTS
from sitegen.common.units import RATE_SCALE, SCORE_SCALE, displayed_difference, shares_summing_to, to_units
from sitegen.render.codec import delta_decode, delta_encode, pack, pack_rows, unpack
from sitegen.render.payload import (
    SCHEMA_VERSION,
    bins_payload,
    core_payload,
    dataset_payload,
    groups_payload,
    to_json,
    to_script,
)

FAST = settings(max_examples=50, deadline=None)
SCHEMES = ("equal-width", "adaptive")
BIN_COUNTS = (4, 5, 10, 15, 20)


def decode(series):
    """What the page does with ``{"t1": v, "d": packed deltas}``: v plus the running sum of the deltas;
    with ``{"t1": v, "dd": packed}`` the deltas are themselves the running sum of the packed numbers."""
    steps = unpack(series["d"] if "d" in series else series["dd"]).tolist()
    if "dd" in series:
        steps = np.cumsum(steps).tolist()
    total, out = 0, []
    for step in steps:
        total += step
        out.append(series["t1"] + total)
    return out


def decode_rows(rows):
    """A list of packed delta rows (one per bin or class) → (rows, G) integer array."""
    return np.array([decode({"t1": 0, "d": row}) for row in rows])


def read_bins(table, n, total):
    """A bins table as the README's "Payload format" documents it → ``{field: (bins, points) array}``.

    ``total`` is the ECE shown at the same points and ``n`` the rows binned: the bin ``rest`` (an empty
    string in ``count`` and ``gap``) holds ``n`` minus the other bins' counts and ``total`` minus their
    gaps; with ``lower_above`` 1, an adaptive bin's ``lower`` is its distance above the previous bin's ``upper``,
    with ``confidence_above`` 1 its mean confidence is its distance above its own ``lower``.
    """
    total = np.asarray(total)
    out = {}
    for field in ("count", "confidence", "accuracy", "gap", "lower", "upper"):
        if field in table:
            out[field] = np.array([decode({"t1": 0, "d": row}) if row else [0] * total.size for row in table[field]])
    if "rest" in table:
        r, others = table["rest"], np.arange(len(table["count"])) != table["rest"]
        assert table["count"][r] == table["gap"][r] == ""
        out["count"][r] = n - out["count"][others].sum(axis=0)
        out["gap"][r] = total - out["gap"][others].sum(axis=0)
    for b in range(len(out.get("lower", ()))):   # bin by bin: each flagged field sits above one decoded before it
        if table["lower_above"] and b:
            out["lower"][b] += out["upper"][b - 1]
        if table["confidence_above"]:
            out["confidence"][b] += out["lower"][b]
    return out


def shown(bins, field):
    """A decoded field with the entries of empty bins (which the page hides) set to 0."""
    return np.where(bins["count"] > 0, bins[field], 0)


def series_of(table, key):
    """Series B of a list by bin count (item B − 1), following a ``{"same_as": B'}`` reference."""
    series = table[int(key) - 1]
    return table[int(series["same_as"]) - 1] if "same_as" in series else series


def counts_in(table):
    """The bin counts a list by bin count holds (its non-null items)."""
    return [b for b, entry in enumerate(table, start=1) if entry is not None]


def bin_table(part, scheme, n_bins):
    """The bins of one scheme and bin count, following a ``{"same_as": key}`` reference."""
    table = part["bins"][scheme][str(n_bins)]
    return part["bins"][scheme][table["same_as"]] if "same_as" in table else table


def half_up(x, scale):
    """Plain-Python rounding to units of 1/scale, half away from zero."""
    return int(math.copysign(math.floor(abs(x) * scale + 0.5), x))


@pytest.fixture(scope="module")
def payloads(precomputed):
    return {name: dataset_payload(result, precomputed) for name, result in precomputed.datasets.items()}


# --- rounding and encodings -------------------------------------------------------------------

def test_to_units_rounds_half_away_from_zero():
    # binary-exact halves: 0.125 · 100 = 12.5, 2.5 · 1 = 2.5
    assert to_units([0.125, -0.125, 0.0, 0.124], 100).tolist() == [13, -13, 0, 12]
    assert to_units([2.5, -2.5, 0.5, 1.49], 1).tolist() == [3, -3, 1, 1]
    assert to_units([0.844, 0.1141952, 0.82278184], RATE_SCALE).tolist() == [844, 114, 823]
    assert to_units(0.82278184, SCORE_SCALE) == 82278
    assert to_units([1.0], RATE_SCALE).dtype == np.int64


@FAST
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=20), st.sampled_from([1, 1000, 100_000]))
def test_to_units_matches_plain_rounding(values, scale):
    assert to_units(values, scale).tolist() == [half_up(v, scale) for v in values]


def test_delta_encode_by_hand():
    assert delta_encode([5, 7, 4, 4]).tolist() == [5, 2, -3, 0]
    assert delta_encode([[1, 2], [10, 30]], axis=0).tolist() == [[1, 2], [9, 28]]
    assert delta_decode([5, 2, -3, 0]).tolist() == [5, 7, 4, 4]


@FAST
@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=8),
                  elements=st.integers(-2 ** 40, 2 ** 40)), st.data())
def test_delta_round_trip(values, data):
    axis = data.draw(st.integers(-values.ndim, values.ndim - 1))
    encoded = delta_encode(values, axis=axis)
    assert encoded.shape == values.shape
    assert np.array_equal(delta_decode(encoded, axis=axis), values)
    # the first element along the axis is kept as is
    assert np.array_equal(np.take(encoded, 0, axis=axis), np.take(values, 0, axis=axis))


CODEC_VECTORS = json.loads((Path(__file__).parent / "data" / "codec_vectors.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("vector", CODEC_VECTORS["vectors"], ids=lambda v: v["packed"] or "empty")
def test_codec_vectors_encode_and_decode(vector):
    """The shared vectors (also read by the browser test of the JavaScript decoder)."""
    assert pack(vector["ints"]) == vector["packed"]
    assert unpack(vector["packed"]).tolist() == vector["ints"]


def test_codec_vectors_pack_as_rows_too():
    rows = [v["ints"] for v in CODEC_VECTORS["vectors"] if len(v["ints"]) == 1]
    assert len(rows) > 3
    assert pack_rows(rows) == [v["packed"] for v in CODEC_VECTORS["vectors"] if len(v["ints"]) == 1]


def test_pack_by_hand():
    # zigzag 0, −1, 1, −2 … → 0, 1, 2, 3 …; chr(63 + value) for values below 32
    assert pack([0]) == "?"
    assert pack([-1, 1, 15, -16]) == "@A]^"
    # 16 → zigzag 32 → chunks 0 (flagged: 32) and 1 → chr(95) chr(64)
    assert pack([16]) == "_@"
    assert pack([0, 0, 0]) == "???"
    # four or more zeros: "!" and the packed run length (4 → zigzag 8 → "G")
    assert pack([0, 0, 0, 0]) == "!G"
    assert pack([7, 0, 0, 0, 0, 0, -3]) == "M!ID"  # 7 → 14 → "M"; five zeros → "!I"; −3 → 5 → "D"
    assert pack([]) == ""
    assert pack_rows([[1, 2], [0, -1]]) == ["AC", "?@"]


@FAST
@given(st.lists(st.one_of(st.integers(-2 ** 31, 2 ** 31 - 1), st.integers(-20, 20), st.just(0)), max_size=60))
def test_pack_round_trip(values):
    text = pack(values)
    assert set(text) <= set("!" + "".join(chr(c) for c in range(63, 127)))
    assert unpack(text).tolist() == values
    # small deltas cost one character each, runs of zeros less
    if all(-16 <= v <= 15 for v in values):
        assert len(text) <= len(values)


def test_pack_refuses_values_it_cannot_represent():
    for value in (2 ** 31, -2 ** 31 - 1, 2 ** 40):
        with pytest.raises(ValueError, match="int32"):
            pack([0, value])


@FAST
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 12)),
                  elements=st.one_of(st.floats(0.0, 0.3), st.sampled_from([0.0, 0.0005, 0.0015, 0.0125]))),
       st.sampled_from([1000, 100_000]))
def test_shares_sum_to_the_rounded_total(parts, scale):
    shares = shares_summing_to(parts, scale)
    assert shares.shape == parts.shape and shares.dtype == np.int64
    for row, share_row in zip(parts, shares):
        # the total the page shows for the row, e.g. the ECE: the rounded sum
        assert int(share_row.sum()) == int(to_units(row.sum(), scale))
        for exact, share in zip(row.tolist(), share_row.tolist()):
            assert abs(share - exact * scale) < 1.0
            assert share >= 0


def test_shares_total_is_the_rounding_of_the_plain_sum():
    # 0.1069 + 0.0041 + 0.1893 + 0.0302 is 0.3305 in floating point, shown as 0.331 (331 units);
    # summing the parts after scaling gives 330.49999… instead, which would round to 330
    row = [0.1069, 0.0041, 0.1893, 0.0302]
    assert to_units(sum(row), 1000) == 331
    assert shares_summing_to([row], 1000)[0].sum() == 331


def test_shares_by_hand():
    # 0.3334 · 3 = 1.0002 → total 1000; each part floors to 333, one unit goes to the first largest remainder
    assert shares_summing_to([[0.3334, 0.3334, 0.3334]], 1000).tolist() == [[334, 333, 333]]
    assert shares_summing_to([0.1004, 0.2006], 1000).tolist() == [100, 201]


def test_to_json_is_compact_sorted_and_refuses_nan():
    assert to_json({"b": 1, "a": [1, 2.5]}) == '{"a":[1,2.5],"b":1}'
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError):
            to_json({"x": [1.0, bad]})


def test_to_script_registers_the_payload_and_escapes_closing_tags():
    script = to_script("dataset", {"note": "</script><b>"})
    assert "</" not in script
    assert script.startswith("window.CalibTutorial=")
    start = script.index('["dataset",') + len('["dataset",')
    body = script[start:script.rindex("]);")]
    assert json.loads(body.replace("<\\/", "</")) == {"note": "</script><b>"}


# --- the baked payloads -----------------------------------------------------------------------

def test_six_payload_reference_numbers(precomputed, payloads):
    payload = payloads["six"]
    part = payload["parts"]["all"]
    t1 = precomputed.t1_index
    fit = payload["fitted"]["index"]
    fitted_t = payload["fitted"]["t"]
    assert precomputed.grid[fit] == fitted_t
    six = precomputed.datasets["six"].dataset
    nll_series = decode(part["nll"])
    assert nll_series[fit] == round(nll(six.logits, six.labels, fitted_t) * 1e5) == 81243
    assert nll_series[t1] == part["nll"]["t1"] == 82278
    ece4 = decode(series_of(part["ece"]["equal-width"], 4))
    assert ece4[t1] == 129 and ece4[fit] == 380
    brier_series = decode(part["brier"])
    assert abs(brier_series[t1] / SCORE_SCALE - 0.482) <= 5e-4
    assert abs(brier_series[fit] / SCORE_SCALE - 0.485) <= 5e-4
    assert part["accuracy"] == 667 and part["n"] == 6


def test_six_payload_bin_table(precomputed, payloads):
    part = payloads["six"]["parts"]["all"]
    bins = read_bins(part["bins"]["equal-width"]["4"], 6, decode(series_of(part["ece"]["equal-width"], 4)))
    t1 = precomputed.t1_index
    fit = payloads["six"]["fitted"]["index"]

    def column(field, g):
        return shown(bins, field)[:, g].tolist()

    assert part["bins"]["equal-width"]["4"]["edges"] == [0, 250, 500, 750, 1000]
    assert column("count", t1) == [0, 0, 3, 3]
    assert column("confidence", t1) == [0, 0, 574, 831]
    assert column("accuracy", t1) == [0, 0, 667, 667]
    assert column("count", fit) == [0, 1, 3, 2]
    assert column("confidence", fit) == [0, 496, 604, 800]
    assert column("accuracy", fit) == [0, 0, 1000, 500]
    assert sum(column("gap", t1)) == 129 and sum(column("gap", fit)) == 380


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_bin_gaps_add_up_to_the_displayed_ece_everywhere(precomputed, payloads, name):
    grid_size = precomputed.grid.size
    for part_name, part in payloads[name]["parts"].items():
        engine = precomputed.datasets[name].parts[part_name]
        for scheme in SCHEMES:
            for n_bins in BIN_COUNTS:
                ece_shown = decode(series_of(part["ece"][scheme], n_bins))
                bins = read_bins(bin_table(part, scheme, n_bins), part["n"], ece_shown)
                assert bins["gap"].shape[1] == grid_size
                assert bins["gap"].sum(axis=0).tolist() == ece_shown, (name, scheme, n_bins)
                # the bin left out (rest) decodes to the engine's values like every other bin
                stats = engine.bins[scheme][n_bins]
                want_gaps = shares_summing_to(stats.weighted_gap, RATE_SCALE, np.array(ece_shown))
                assert bins["gap"].tolist() == want_gaps.T.tolist(), (name, scheme, n_bins)
                assert bins["count"].tolist() == stats.count.T.tolist()
                for field in ("confidence", "accuracy"):
                    want = np.where(stats.count > 0, to_units(np.nan_to_num(getattr(stats, field)), RATE_SCALE), 0)
                    assert shown(bins, field).tolist() == want.T.tolist(), (name, scheme, n_bins, field)
                if scheme == "adaptive":
                    assert bins["lower"].tolist() == to_units(stats.lower, RATE_SCALE).T.tolist()
                    assert bins["upper"].tolist() == to_units(stats.upper, RATE_SCALE).T.tolist()


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_scores_sent_as_second_differences_decode_to_the_engines_values_everywhere(precomputed, payloads, name):
    for part_name, part in payloads[name]["parts"].items():
        engine = precomputed.datasets[name].parts[part_name]
        for key, values in (("nll", engine.nll), ("brier", engine.brier)):
            assert {"t1", "dd"} <= set(part[key]) <= {"t1", "dd", "up", "down"}
            assert decode(part[key]) == [half_up(v, SCORE_SCALE) for v in values], (name, part_name, key)


@pytest.mark.parametrize("name", ["twelve", "sim-60", "mixed"])
def test_decoded_series_equal_rounded_engine_values(precomputed, payloads, name):
    result = precomputed.datasets[name]
    payload = payloads[name]
    part_name = "all" if name == "twelve" else "test"
    rows = np.ones(result.dataset.labels.size, bool) if name == "twelve" else ~result.dataset.is_calibration
    z, y = result.dataset.logits[rows], result.dataset.labels[rows]
    part = payload["parts"][part_name]
    series = {key: decode(part[key]) for key in ("nll", "confidence")}
    ece10 = decode(series_of(part["ece"]["adaptive"], 10))
    for g in (0, precomputed.t1_index, payload["fitted"]["index"], precomputed.grid.size - 1):
        t = float(precomputed.grid[g])
        conf, correct = top_label(z, y, t)
        assert series["nll"][g] == half_up(nll(z, y, t), SCORE_SCALE)
        assert series["confidence"][g] == half_up(conf.mean(), RATE_SCALE)
        assert ece10[g] == half_up(ece(conf, correct, 10, "adaptive"), RATE_SCALE)


def test_no_split_gap_is_sent(payloads):
    """Schema 3 sends no test-minus-calibration series: the page shows none (the tables print their own)."""
    assert not any("split_gap" in payload for payload in payloads.values())


def test_example_probabilities_decode_to_rows_summing_to_about_one(precomputed, payloads):
    examples = payloads["six"]["examples"]
    probs = np.array([decode_rows(rows) for rows in examples["probs"]])  # (examples, K, G)
    assert probs.shape == (6, 3, precomputed.grid.size)
    assert np.all(np.abs(probs.sum(axis=1) - 1000) <= 2)
    assert probs[0, :, precomputed.t1_index].tolist() == [844, 114, 42]


def test_payloads_are_valid_json_and_deterministic(precomputed, payloads):
    for name in DATASET_NAMES:
        text = to_json(payloads[name])  # raises on NaN or infinity
        assert json.loads(text)["schema_version"] == SCHEMA_VERSION == 3
        if name in ("six", "mixed"):
            assert to_json(dataset_payload(precomputed.datasets[name], precomputed)) == text


def test_payloads_of_two_independent_runs_are_identical():
    from sitegen.compute.precompute import precompute_all

    texts = []
    for _ in range(2):
        run = precompute_all(("six", "sim-60"))
        texts.append([to_json(dataset_payload(r, run)) for r in run.datasets.values()])
    assert texts[0] == texts[1]


def test_core_payload(precomputed):
    core = core_payload(precomputed, "six")
    assert core["default_dataset"] == "six"
    assert core["grid"][core["t1_index"]] == 1.0
    assert core["units"] == {"score": 100_000, "rate": 1_000}
    assert [d["name"] for d in core["datasets"]] == list(DATASET_NAMES)
    for entry in core["datasets"]:
        assert f'{core["grid"][entry["fitted_index"]]:.5g}' == f'{entry["fitted_t"]:.5g}'
    json.loads(to_json(core))


def test_the_scripts_grid_reads_as_the_engines_at_three_and_five_digits(precomputed):
    # The scripts print a T with three significant digits and write #state/ links with five.
    core = core_payload(precomputed, "six")
    assert len(core["grid"]) == len(precomputed.grid)
    for sent, engine in zip(core["grid"], precomputed.grid):
        assert f"{sent:.3g}" == f"{engine:.3g}" and f"{sent:.5g}" == f"{engine:.5g}", (sent, engine)
        assert abs(sent - engine) <= 1e-7 * engine


def test_core_payload_refuses_an_unknown_default_dataset(precomputed):
    with pytest.raises(ValueError, match="default_dataset"):
        core_payload(precomputed, "seven")


def test_displayed_difference_is_the_difference_of_the_rounded_values():
    # 0.3305 shows as 0.331 (half away from zero) and 0.1004 as 0.100: the gap shown is 0.231, not 0.230
    assert int(displayed_difference(0.3305, 0.1004, 1000)) == 231
    assert displayed_difference(np.array([0.1, 0.2]), np.array([0.3, 0.2]), 1000).tolist() == [-200, 0]


# --------------------------------------------------------------------------- every bin count 1..50

def part_confidence(result, part_name, temps):
    """Top-label confidence (G, n) and correctness (n,) of one part at ``temps``, by the engine."""
    rows = part_masks(result.dataset)[part_name]
    logits, labels = result.dataset.logits[rows], result.dataset.labels[rows]
    return scores_over_grid(logits, labels, temps)[2], np.argmax(logits, axis=1) == labels


@pytest.mark.parametrize("name", ["six", "sim-60"])
def test_ece_of_every_bin_count_on_the_full_grid_is_the_engines(precomputed, payloads, name):
    result = precomputed.datasets[name]
    for part_name, part in payloads[name]["parts"].items():
        conf, correct = part_confidence(result, part_name, precomputed.grid)
        for scheme in SCHEMES:
            assert counts_in(part["ece"][scheme]) == list(SELECTABLE_BIN_COUNTS)
            for b in (1, 3, 7, 20, 33, 50):
                shown = decode(series_of(part["ece"][scheme], b))
                assert shown == to_units(ece(conf, correct, b, scheme), RATE_SCALE).tolist(), (part_name, scheme, b)
            # MCE: the detailed counts here, the others in the bins file
            assert counts_in(part["mce"][scheme]) == list(OFFERED_BIN_COUNTS)


def test_the_detailed_counts_keep_their_values(precomputed, payloads):
    """The five detailed bin counts' ECE, MCE and bins are exactly what the full-grid binning gives (as before)."""
    result = precomputed.datasets["mixed"]
    for part_name, part in payloads["mixed"]["parts"].items():
        computed = result.parts[part_name]
        for scheme in SCHEMES:
            for b in OFFERED_BIN_COUNTS:
                want = to_units(computed.bins[scheme][b].weighted_gap.sum(axis=1), RATE_SCALE).tolist()
                assert decode(series_of(part["ece"][scheme], b)) == want
                assert str(b) in part["bins"][scheme]


@pytest.mark.parametrize("name", ["twelve", "sim-600"])
def test_bins_file_holds_the_other_counts_on_the_sub_grid(precomputed, payloads, name):
    result = precomputed.datasets[name]
    grid = precomputed.grid
    for part_name in result.parts:
        payload = bins_payload(result, precomputed, part_name)
        assert payload["schema_version"] == SCHEMA_VERSION and payload["part"] == part_name
        subgrid = payload["subgrid"]
        assert subgrid == sorted(subgrid) and precomputed.t1_index in subgrid
        assert precomputed.index_of(result.fitted_t) in subgrid
        conf, correct = part_confidence(result, part_name, grid)
        ece_table = payloads[name]["parts"][part_name]["ece"]
        for scheme in SCHEMES:
            block = payload["bins"][scheme]
            for b in (1, 7, 50):
                shown_mce = decode(series_of(payload["mce"][scheme], b))
                assert shown_mce == to_units(mce(conf, correct, b, scheme), RATE_SCALE).tolist()
                key = int(block["same_as"].get(str(b), b))
                j = block["counts"].index(key)
                table = {field: values[j] for field, values in block.items() if field not in ("counts", "same_as")}
                ece_shown = [decode(series_of(ece_table[scheme], b))[g] for g in subgrid]
                bins = read_bins(table, result.parts[part_name].n, ece_shown)
                stats = reliability_bins(conf[subgrid], correct, b, scheme)
                assert bins["count"].T.tolist() == stats.count.tolist()
                for field in ("confidence", "accuracy"):
                    want = np.where(stats.count > 0, to_units(np.nan_to_num(getattr(stats, field)), RATE_SCALE), 0)
                    assert shown(bins, field).T.tolist() == want.tolist(), (scheme, b, field)
                if scheme == "adaptive":
                    assert bins["lower"].T.tolist() == to_units(stats.lower, RATE_SCALE).tolist()
                    assert bins["upper"].T.tolist() == to_units(stats.upper, RATE_SCALE).tolist()
                # the gaps add up to the ECE the cards show at those temperatures
                assert bins["gap"].sum(axis=0).tolist() == ece_shown
                assert np.all(bins["gap"] >= 0)
            assert not set(map(int, block["counts"])) & set(OFFERED_BIN_COUNTS)


def test_groups_file_at_the_global_and_own_temperatures(precomputed):
    result = precomputed.datasets["mixed"]
    payload = groups_payload(result, precomputed)
    assert payload["groups"] == ["A", "B"] and payload["schema_version"] == SCHEMA_VERSION
    fitted = precomputed.index_of(result.fitted_t)
    data, names = result.dataset, np.asarray(result.dataset.groups)
    for part_name, mask in part_masks(data).items():
        for group in ("A", "B"):
            rows = mask & (names == group)
            shown = payload["parts"][part_name][group]
            t = precomputed.grid[fitted]
            assert decode(shown["nll"])[fitted] == half_up(nll(data.logits[rows], data.labels[rows], t), SCORE_SCALE)
            conf, correct, _, _ = row_scores(data.logits[rows], data.labels[rows], t)
            assert (decode(series_of(shown["ece"]["equal-width"], 15))[fitted]
                    == half_up(ece(conf, correct, 15), RATE_SCALE))
            own_t = payload["temperatures"][group]
            conf, correct, losses, _ = row_scores(data.logits[rows], data.labels[rows], own_t)
            own = payload["own"][part_name][group]
            assert own["nll"] == half_up(losses.mean(), SCORE_SCALE)
            assert own["ece"]["adaptive"]["10"] == half_up(ece(conf, correct, 10, "adaptive"), RATE_SCALE)
        per_row = np.array([payload["temperatures"][g] for g in names[mask]])
        conf, correct, losses, _ = row_scores(data.logits[mask], data.labels[mask], per_row)
        assert (payload["own"][part_name]["pooled"]["ece"]["equal-width"]["15"]
                == half_up(ece(conf, correct, 15), RATE_SCALE))


def test_group_temperatures_are_the_subgroup_analysis_ones(precomputed):
    from calib.subgroups import subgroup_analysis
    from sitegen.compute.precompute import round_significant

    result = precomputed.datasets["mixed"]
    analysis = subgroup_analysis(result.dataset, result.fitted_t, (15,),
                                 round_temperature=lambda t: round_significant(t)[0])
    assert {g: result.groups.temperatures[g] for g in "AB"} == {g: analysis.temperatures[g] for g in "AB"}


def test_core_payload_offers_every_bin_count(precomputed):
    core = core_payload(precomputed, "six")
    assert core["bin_counts"] == list(range(1, 51))
    assert core["offered_bin_counts"] == list(OFFERED_BIN_COUNTS)
    assert {d["name"]: d["groups"] for d in core["datasets"]}["mixed"] == ["A", "B"]


# --- the change the cards print: the engine's change rounded once ------------------------------------------

# Each metric with a card (the core payload's list) → its engine floats in a part of the precomputation and its
# display scale. A new card metric fails the test below until it is named here.
CARD_FLOATS = {
    "nll": (lambda p: p.nll, SCORE_SCALE), "brier": (lambda p: p.brier, SCORE_SCALE),
    "confidence": (lambda p: p.mean_confidence, RATE_SCALE), "ks": (lambda p: p.extra["ks"], RATE_SCALE),
    "ece": (lambda p: p.ece, RATE_SCALE), "mce": (lambda p: p.mce, RATE_SCALE),
}


def rounded_change(values, reference, scale):
    """``values − reference`` (floats) rounded once to units of 1/scale, half away from zero, in plain numpy."""
    d = (np.asarray(values, dtype=np.float64) - reference) * scale
    return (np.sign(d) * np.floor(np.abs(d) + 0.5)).astype(np.int64).tolist()


def page_change(series):
    """The change against T = 1 the cards print at every grid point, decoded as CT.decodeSeries does: the
    decoded series minus its value at T = 1, plus one at the points listed in ``up``, minus one at ``down``."""
    change = [v - series["t1"] for v in decode(series)]
    for key, sign in (("up", 1), ("down", -1)):
        for g in (delta_decode(unpack(series[key])).tolist() if key in series else ()):
            change[g] += sign
    return change


def card_series(core):
    """The core payload's metrics with a card that follows T: ``{key: kind}``."""
    return {m["key"]: m["kind"] for m in core["metrics"] if m["cards"] and m["kind"] != "constant"}


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_the_cards_print_the_engines_change_against_t1_rounded_once(precomputed, payloads, name):
    """Every part, every card metric, every bin count the cards can show (the dataset file's and the bins
    file's): the change printed is round(v − v(T = 1)) of the engine's floats, not round(v) − round(v(T = 1))."""
    result, t1 = precomputed.datasets[name], precomputed.t1_index
    metrics = card_series(core_payload(precomputed, name))
    assert set(metrics) == set(CARD_FLOATS)
    for part_name, part in payloads[name]["parts"].items():
        engine, extra = result.parts[part_name], bins_payload(result, precomputed, part_name)
        for key, kind in metrics.items():
            floats, scale = CARD_FLOATS[key][0](engine), CARD_FLOATS[key][1]
            if kind == "series":
                assert page_change(part[key]) == rounded_change(floats, floats[t1], scale), (part_name, key)
                continue
            for scheme in SCHEMES:
                for b in SELECTABLE_BIN_COUNTS:
                    table = part[key][scheme] if b in counts_in(part[key][scheme]) else extra[key][scheme]
                    v = np.asarray(floats[scheme][b])
                    assert page_change(series_of(table, b)) == rounded_change(v, v[t1], scale), (part_name, key, b)


def test_the_group_views_print_the_engines_change_rounded_once(precomputed):
    """A group over the grid (the slider), and every row set at its own group's T against the same rows at
    T = 1 (the cards' value minus the T = 1 value they read, plus ``fix``)."""
    result, t1 = precomputed.datasets["mixed"], precomputed.t1_index
    payload = groups_payload(result, precomputed)
    metrics = card_series(core_payload(precomputed, "mixed"))
    scores = result.groups.scores.metrics
    for part_name, by_group in payload["parts"].items():
        for who, own in payload["own"][part_name].items():
            grid_part = result.parts[part_name] if who == "pooled" else result.groups.parts[part_name][who]
            at_own = scores[part_name][who]["group"]
            for key, kind in metrics.items():
                floats, scale = CARD_FLOATS[key][0](grid_part), CARD_FLOATS[key][1]
                point = CARD_FLOATS[key][0](at_own)
                fix = own.get("fix", {}).get(key, {} if kind == "binned" else 0)
                if kind == "series":
                    shown = own[key] - half_up(floats[t1], scale) + fix
                    assert shown == rounded_change(point, floats[t1], scale), (part_name, who, key)
                    if who != "pooled":
                        assert page_change(by_group[who][key]) == rounded_change(floats, floats[t1], scale)
                    continue
                for scheme in SCHEMES:
                    for b in OFFERED_BIN_COUNTS:
                        ref = floats[scheme][b][t1]
                        shown = own[key][scheme][str(b)] - half_up(ref, scale) + fix.get(scheme, {}).get(str(b), 0)
                        assert shown == rounded_change(point[scheme][b], ref, scale), (part_name, who, key, b)
                        if who != "pooled":
                            v = np.asarray(floats[scheme][b])
                            assert page_change(series_of(by_group[who][key][scheme], b)) == \
                                rounded_change(v, v[t1], scale), (part_name, who, key, b)
