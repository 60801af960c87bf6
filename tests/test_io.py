"""Tests of calib.io: reading a user's logits and labels, and refusing every kind of bad input.

Files are written here with numpy (``savez``), the ``csv`` module or ``zipfile``; expected values
are the arrays written, hashlib's digest of the bytes, or a rule restated in the test.
"""

import csv
import hashlib
import io
import time
import zipfile

import numpy as np
import numpy.lib.format as npy_format
import pytest

from calib.io import MAX_ARRAY_BYTES, MIN_PART_ROWS, InputError, load_predictions, split_masks

N, K = 24, 3


def model(n=N, k=K, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, k)) * 2, rng.integers(0, k, n)


def write_npz(path, **arrays):
    np.savez(path, **arrays)
    return path


def write_csv(path, rows, header=None):
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        if header:
            writer.writerow(header)
        writer.writerows(rows)
    return path


def refused(path, *fragments):
    """Load ``path`` expecting an InputError whose message names the file and every fragment."""
    with pytest.raises(InputError) as caught:
        load_predictions(path)
    message = str(caught.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message, message
    assert "\n" not in message
    return message


# --- good files --------------------------------------------------------------------------------

def test_npz_round_trip_with_every_optional_array(tmp_path):
    z, y = model()
    split = np.arange(N) % 3 == 0
    groups = np.where(np.arange(N) < 12, "north", "south")
    names = np.array(["cat", "dog", "bird"])
    path = write_npz(tmp_path / "m.npz", logits=z, labels=y, split=split, groups=groups, class_names=names)
    got = load_predictions(path)
    assert got.logits.dtype == np.float64 and np.array_equal(got.logits, z)
    assert got.labels.dtype == np.int64 and got.labels.tolist() == y.tolist()
    assert got.split.tolist() == split.tolist()
    assert got.groups.tolist() == groups.tolist()
    assert got.class_names.tolist() == ["cat", "dog", "bird"]
    assert got.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_float32_logits_stay_float32_and_optional_arrays_are_none(tmp_path):
    z, y = model()
    path = write_npz(tmp_path / "m.npz", logits=z.astype(np.float32), labels=y.astype(np.int32))
    got = load_predictions(path)
    assert got.logits.dtype == np.float32 and np.array_equal(got.logits, z.astype(np.float32))
    assert got.labels.dtype == np.int64
    assert got.split is None and got.groups is None and got.class_names is None


def test_compressed_npz_and_integer_split_and_string_split(tmp_path):
    z, y = model()
    np.savez_compressed(tmp_path / "a.npz", logits=z, labels=y, split=(np.arange(N) % 2).astype(np.int8))
    assert load_predictions(tmp_path / "a.npz").split.tolist() == [i % 2 == 1 for i in range(N)]
    words = np.where(np.arange(N) < 10, "Calibration", "test ")
    write_npz(tmp_path / "b.npz", logits=z, labels=y, split=words)
    assert load_predictions(tmp_path / "b.npz").split.tolist() == [i < 10 for i in range(N)]


def test_probabilities_become_logits_whose_softmax_is_the_probabilities(tmp_path):
    p = np.array([[0.7, 0.2, 0.1], [0.0, 1.0, 0.0], [0.25, 0.25, 0.5]] * 8)
    path = write_npz(tmp_path / "p.npz", probabilities=p.astype(np.float32), labels=np.arange(N) % 3)
    got = load_predictions(path)
    assert np.all(np.isfinite(got.logits))
    back = np.exp(got.logits) / np.exp(got.logits).sum(axis=1, keepdims=True)
    # every value is a multiple of 0.01: a printed 0 stands for a value below 0.005, read as 0.0005
    floored = np.maximum(p, 0.0005)
    np.testing.assert_allclose(back, floored / floored.sum(axis=1, keepdims=True), atol=1e-7)
    assert got.logits[1, 0] == pytest.approx(np.log(0.0005))
    assert got.kind == "probabilities" and any("read as 0.0005" in note for note in got.notes)
    # full-precision probabilities keep a zero as 1e-300
    q = np.array([[1 / 3, 2 / 3, 0.0], [0.1, 0.2, 0.7]] * 12)
    full = load_predictions(write_npz(tmp_path / "q.npz", probabilities=q, labels=np.arange(N) % 3))
    assert full.logits[0, 2] == pytest.approx(np.log(1e-300)) and full.notes == ()
    assert load_predictions(path, "logits").kind == "logits"  # --input logits: the same numbers, read as logits
    assert load_predictions(write_npz(tmp_path / "z.npz", logits=np.log(p + 0.01), labels=np.arange(N) % 3)).kind \
        == "logits"
    named_logits = write_npz(tmp_path / "q.npz", logits=p, labels=np.arange(N) % 3)  # --input probabilities
    assert load_predictions(named_logits, "probabilities").kind == "probabilities"


def test_huge_finite_logits_are_accepted(tmp_path):
    z = np.array([[1e6, -1e6, 0.0]] * N)
    got = load_predictions(write_npz(tmp_path / "h.npz", logits=z, labels=np.zeros(N, int)))
    assert got.logits.max() == 1e6 and got.logits.min() == -1e6


def test_csv_without_header(tmp_path):
    z, y = model()
    rows = [[int(label)] + [repr(float(v)) for v in row] for label, row in zip(y, z)]
    got = load_predictions(write_csv(tmp_path / "m.csv", rows))
    assert np.array_equal(got.logits, z)  # repr round-trips float64 exactly
    assert got.labels.tolist() == y.tolist()
    assert got.split is None and got.groups is None and got.class_names is None


def test_csv_with_header_split_group_and_class_names(tmp_path):
    z, y = model()
    split_words = ["calibration", "test", "1", "0", "TRUE", "false"] * 4
    rows = [[f"{v:.17g}" for v in row[:2]] + [s, int(label), f"{row[2]:.17g}", "g" + str(i % 2)]
            for i, (label, row, s) in enumerate(zip(y, z, split_words))]
    path = write_csv(tmp_path / "m.csv", rows, header=["cat", "dog", "Split", "label", "bird", "group"])
    got = load_predictions(path)
    assert got.class_names.tolist() == ["cat", "dog", "bird"]
    assert np.array_equal(got.logits, z)
    assert got.labels.tolist() == y.tolist()
    assert got.split.tolist() == [True, False, True, False, True, False] * 4
    assert got.groups.tolist() == ["g0", "g1"] * 12


# --- bad files: each names the file and the place ----------------------------------------------

def test_labels_given_as_names_or_under_another_header_say_how_to_fix_them(tmp_path):
    """The practitioner's hurried exports: string labels, a 'y_true' column, an empty label."""
    z, y = model()
    names = np.array(["ant", "bee", "cat"])
    refused(write_npz(tmp_path / "s.npz", logits=z, labels=names[y]), "labels[0]", "not a class index or a class name",
            "class_names", "np.searchsorted(model.classes_, y)")
    # with the class names (the header's, or a class_names array), text labels are mapped through them
    got = load_predictions(write_npz(tmp_path / "n.npz", logits=z, labels=names[y], class_names=names))
    assert got.labels.tolist() == y.tolist() and any("class_names" in note for note in got.notes)
    rows = [[f"{v:.17g}" for v in row] + [label] for row, label in zip(z, names[y])]
    got = load_predictions(write_csv(tmp_path / "s.csv", rows, header=["ant", "bee", "cat", "label"]))
    assert got.labels.tolist() == y.tolist() and got.class_names.tolist() == names.tolist()
    refused(write_csv(tmp_path / "o.csv", rows, header=["ant", "bee", "owl", "label"]), "column 'label'",
            "not a class index or a class name (the class names: ant, bee, owl)")
    refused(write_csv(tmp_path / "y.csv", rows, header=["ant", "bee", "cat", "y_true"]), "line 1",
            "no 'label' column (found ant, bee, cat, y_true)", "df.rename(columns={'y_true': 'label'})")
    blank = [row[:3] + [""] for row in rows]
    refused(write_csv(tmp_path / "e.csv", blank, header=["ant", "bee", "cat", "label"]), "an empty cell")

def test_missing_file(tmp_path):
    refused(tmp_path / "absent.npz", "cannot read")


def test_unreadable_file(tmp_path):
    (tmp_path / "folder.npz").mkdir()
    refused(tmp_path / "folder.npz", "cannot read")


def test_unknown_extension(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("1,2,3\n")
    refused(path, "unknown extension", ".txt")


def test_not_a_zip(tmp_path):
    path = tmp_path / "m.npz"
    path.write_bytes(b"definitely not a zip archive")
    refused(path, "not a valid .npz")


def test_npz_needing_pickle_is_refused_without_unpickling(tmp_path):
    z, y = model()
    path = write_npz(tmp_path / "m.npz", logits=np.array(z.tolist(), dtype=object), labels=y)
    refused(path, "logits", "pickle")


@pytest.mark.parametrize("values, word", [
    (np.ones((N, K)) + 1j, "complex"),
    (np.full((N, K), "1.5"), "strings"),
    (np.ones((N, K), dtype=bool), "booleans"),
])
def test_non_real_logits(tmp_path, values, word):
    _, y = model()
    refused(write_npz(tmp_path / "m.npz", logits=values, labels=y), "logits", word)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_logits_name_the_first_row(tmp_path, bad):
    z, y = model()
    z[7, 2] = bad
    z[9, 0] = bad
    refused(write_npz(tmp_path / "m.npz", logits=z, labels=y), "logits[7, 2]")


def test_non_finite_csv_logit_names_the_line_and_column(tmp_path):
    rows = [[0, 1.0, 2.0]] * N
    rows[4] = [0, 1.0, "nan"]
    refused(write_csv(tmp_path / "m.csv", rows, header=["label", "a", "b"]), "line 6", "'b'")


@pytest.mark.parametrize("arrays, fragments", [
    (dict(logits=np.zeros((N, K, 1)), labels=np.zeros(N, int)), ("logits", "2-D")),
    (dict(logits=np.zeros((0, K)), labels=np.zeros(0, int)), ("logits", "no rows")),
    (dict(logits=np.zeros((N, 0)), labels=np.zeros(N, int)), ("logits", "no class columns")),
    (dict(logits=np.zeros((N, K)), labels=np.zeros((N, 1), int)), ("labels", "1-D")),
    (dict(logits=np.zeros((N, K)), labels=np.zeros(N - 1, int)), ("labels", f"{N - 1} labels for {N} rows")),
    (dict(logits=np.zeros((N, K))), ("labels",)),
    (dict(labels=np.zeros(N, int)), ("logits",)),
    (dict(logits=np.zeros((N, K)), probabilities=np.ones((N, K)) / K, labels=np.zeros(N, int)), ("both",)),
    (dict(logits=np.zeros((N, K)), labels=np.zeros(N, int), split=np.zeros(N - 2, bool)), ("split", f"({N},)")),
    (dict(logits=np.zeros((N, K)), labels=np.zeros(N, int), groups=np.zeros((N, 2))), ("groups",)),
    (dict(logits=np.zeros((N, K)), labels=np.zeros(N, int), class_names=np.array(["a", "b"])), ("class_names",)),
])
def test_wrong_shapes_and_lengths(tmp_path, arrays, fragments):
    refused(write_npz(tmp_path / "m.npz", **arrays), *fragments)


@pytest.mark.parametrize("labels, fragments", [
    (np.r_[np.zeros(5), 2.5, np.zeros(N - 6)], ("labels[5]", "whole number")),
    (np.r_[np.zeros(N - 1, int), 3], (f"labels[{N - 1}]", "outside [0, 3)")),
    (np.r_[np.zeros(2, int), -1, np.zeros(N - 3, int)], ("labels[2]", "outside")),
    (np.array(["cat"] * N), ("labels[0]", "'cat' is not a class index or a class name")),
    # the count is of rows, with the distinct values beside it (a trial read "2 such labels" for all 3,000 rows)
    (np.array(["cat", "dog"] * (N // 2)), ("labels[0]", f"{N // 2 * 2:,} such row(s), 2 distinct label(s)")),
])
def test_bad_labels(tmp_path, labels, fragments):
    refused(write_npz(tmp_path / "m.npz", logits=np.zeros((N, K)), labels=labels), *fragments)


@pytest.mark.parametrize("split, fragments", [
    (np.r_[np.zeros(N - 1, int), 2], (f"split[{N - 1}]", "1 (calibration) or 0 (test)")),
    (np.array(["calibration", "maybe"] * (N // 2)), ("split[1]", "'maybe'", "train")),
])
def test_split_with_other_values(tmp_path, split, fragments):
    refused(write_npz(tmp_path / "m.npz", logits=np.zeros((N, K)), labels=np.zeros(N, int), split=split), *fragments)


def test_csv_split_with_other_values(tmp_path):
    rows = [[0, 1.0, 2.0, "test"]] * N
    rows[3] = [0, 1.0, 2.0, "maybe"]
    refused(write_csv(tmp_path / "m.csv", rows, header=["label", "a", "b", "split"]), "line 5", "'split'", "maybe")


def test_probabilities_out_of_range_or_not_summing_to_one(tmp_path):
    p = np.full((N, K), 1 / K)
    p[3] = [1.2, -0.1, -0.1]
    refused(write_npz(tmp_path / "a.npz", probabilities=p, labels=np.zeros(N, int)), "probabilities[3, 0]")
    p = np.full((N, K), 1 / K)
    p[5] = [0.5, 0.4, 0.3]
    refused(write_npz(tmp_path / "b.npz", probabilities=p, labels=np.zeros(N, int)), "probabilities[5]", "sums to")


def test_ragged_csv_row_names_the_line(tmp_path):
    rows = [[0, 1.0, 2.0]] * N
    rows[10] = [0, 1.0]
    refused(write_csv(tmp_path / "m.csv", rows), "line 11", "2 fields")


def test_non_numeric_csv_cell_names_line_and_column(tmp_path):
    rows = [[0, 1.0, 2.0]] * N
    rows[2] = [0, "1,5", 2.0]
    refused(write_csv(tmp_path / "m.csv", rows, header=["label", "cat", "dog"]), "line 4", "'cat'", "'1,5'")


def test_csv_labels_not_integers_or_out_of_range(tmp_path):
    rows = [[0, 1.0, 2.0]] * N
    rows[6] = ["1.5", 1.0, 2.0]
    refused(write_csv(tmp_path / "a.csv", rows), "line 7", "'label'", "whole number")
    rows[6] = [2, 1.0, 2.0]
    refused(write_csv(tmp_path / "b.csv", rows), "line 7", "outside [0, 2)")
    rows[6] = ["two", 1.0, 2.0]
    refused(write_csv(tmp_path / "c.csv", rows, header=["label", "a", "b"]), "line 8", "'two'")


def test_csv_with_no_class_or_no_label_column_or_no_rows(tmp_path):
    refused(write_csv(tmp_path / "a.csv", [[0]] * N, header=["label"]), "no class columns")
    refused(write_csv(tmp_path / "b.csv", [[0, 1.0, 2.0]] * N, header=["y", "a", "b"]), "line 1", "'label'")
    refused(write_csv(tmp_path / "c.csv", [], header=["label", "a", "b"]), "no data rows")
    refused(write_csv(tmp_path / "d.csv", []), "no rows")


def test_csv_that_is_not_utf8(tmp_path):
    path = tmp_path / "m.csv"
    path.write_bytes(b"label,a,b\n0,1,\xff\n")
    refused(path, "UTF-8")


def _npz_with_declared_shape(path, name, shape, dtype="<f8"):
    """An archive whose member ``name`` declares ``shape`` in its .npy header but holds a few bytes only."""
    header = io.BytesIO()
    npy_format.write_array_header_1_0(header, {"descr": dtype, "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{name}.npy", header.getvalue() + b"\0" * 64)
        other, value = ("logits", np.zeros((2, 3))) if name == "labels" else ("labels", np.zeros(2, int))
        buffer = io.BytesIO()
        np.save(buffer, value)
        archive.writestr(f"{other}.npy", buffer.getvalue())
    return path


def test_declared_size_above_the_limit_is_refused_before_loading(tmp_path):
    path = _npz_with_declared_shape(tmp_path / "bomb.npz", "logits", (200_000, 1_000_000))
    assert path.stat().st_size < 4_096
    start = time.perf_counter()
    message = refused(path, "logits", "declares shape (200000, 1000000)", f"{MAX_ARRAY_BYTES:,}")
    assert time.perf_counter() - start < 1.0, message
    refused(_npz_with_declared_shape(tmp_path / "labels.npz", "labels", (2 ** 28,)), "labels", "limit")


def test_truncated_member_is_refused(tmp_path):
    refused(_npz_with_declared_shape(tmp_path / "short.npz", "logits", (100, 3)), "cannot load")


# --- the split rule ----------------------------------------------------------------------------

def test_split_rules():
    n = 25
    parts = split_masks(n, "even-odd")
    assert np.flatnonzero(parts["calibration"]).tolist() == list(range(0, n, 2))
    assert (parts["calibration"] ^ parts["test"]).all()
    random = split_masks(n, "random", seed=7)
    expected = np.zeros(n, bool)
    expected[np.random.default_rng(7).permutation(n)[:13]] = True
    assert random["calibration"].tolist() == expected.tolist()
    assert split_masks(n, None, seed=7)["calibration"].tolist() == expected.tolist()  # default without a file split
    file_split = np.arange(n) < 12
    assert split_masks(n, None, file_split)["calibration"].tolist() == file_split.tolist()
    assert list(split_masks(n, "none")) == ["all"]


def test_split_refusals_name_the_source_and_the_part():
    with pytest.raises(InputError, match=r"m\.npz: split \(file\): the test part has 3 row\(s\)"):
        split_masks(40, "file", np.arange(40) >= 3, source="m.npz")
    with pytest.raises(InputError, match="no split column"):
        split_masks(40, "file", None, source="m.npz")
    with pytest.raises(InputError, match=f"at least {MIN_PART_ROWS}"):
        split_masks(2 * MIN_PART_ROWS - 1, "even-odd")
    with pytest.raises(InputError, match="unknown rule"):
        split_masks(40, "halves")
    assert split_masks(MIN_PART_ROWS, "none")["all"].all()


def test_numbers_in_messages_are_plain_numbers_not_numpy_reprs(tmp_path):
    logits, labels = model()
    cases = [
        (dict(logits=logits, labels=np.where(np.arange(N) == 2, 100, labels)), "labels[2]: 100 is outside [0, 3)"),
        (dict(logits=logits, labels=np.where(np.arange(N) == 4, 76.5, labels.astype(float))),
         "labels[4]: 76.5 is not a whole number"),
        (dict(logits=logits, labels=labels, split=np.where(np.arange(N) == 6, 2, 1)), "split[6]: 2; split values"),
    ]
    p = np.full((N, K), 1 / K)
    p[3] = [1.5, -0.25, -0.25]
    cases.append((dict(probabilities=p, labels=labels), "probabilities[3, 0]: 1.5 is not a probability"))
    p = np.full((N, K), 1 / K)
    p[5] = [0.5, 0.25, 0.5]
    cases.append((dict(probabilities=p, labels=labels), "probabilities[5]: the row sums to 1.25, not 1"))
    for i, (arrays, fragment) in enumerate(cases):
        message = refused(write_npz(tmp_path / f"m{i}.npz", **arrays), fragment)
        assert "np." not in message and "int64" not in message and "float64" not in message, message
