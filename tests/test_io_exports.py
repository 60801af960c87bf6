"""Everyday exports of a practitioner's model, and their common mistakes, read by ``calib.load_predictions``.

Every CSV here is written by pandas (``DataFrame.to_csv``), as a practitioner would; ``.npz`` files by numpy.
Each mistake that used to be fitted without a word (probabilities read as logits, the DataFrame's index read as
a class, 1-based labels, index arrays of a split ignored) must be refused with one line naming the file and the
fix; expected values are the arrays written, softmax from scipy, or the rule of the issue restated here.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.special

from calib import InputError, load_predictions
from calib.fitting import DEFAULT_BOUNDS
from calib.io_checks import fit_warnings

N, K = 400, 10


def model(n=N, k=K, seed=0):
    """Logits whose label is usually the top class (about 90% right), and the labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    logits = rng.normal(0, 1, (n, k))
    logits[np.arange(n), labels] += 3
    return 1.5 * logits, labels


def frame(values, labels, prefix="", split=None):
    df = pd.DataFrame(values, columns=[f"{prefix}{i}" for i in range(values.shape[1])])
    df["label"] = labels
    if split is not None:
        df["split"] = split
    return df


def refused(path, *fragments, kind=None):
    with pytest.raises(InputError) as caught:
        load_predictions(path, kind)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


# --- probabilities in a CSV ---------------------------------------------------------------------

@pytest.mark.parametrize("prefix", ["prob_", "p_", "proba_", "PROB_"])
def test_probability_columns_are_read_as_probabilities(tmp_path, prefix):
    z, y = model()
    p = scipy.special.softmax(z, axis=1)
    path = tmp_path / "probs.csv"
    frame(p, y, prefix, np.where(np.arange(N) < 200, "calibration", "test")).to_csv(path, index=False)
    got = load_predictions(path)
    np.testing.assert_allclose(scipy.special.softmax(got.logits, axis=1), p, rtol=1e-12, atol=1e-15)
    assert got.class_names.tolist() == [str(i) for i in range(K)]
    assert got.labels.tolist() == y.tolist() and got.split.tolist() == (np.arange(N) < 200).tolist()


def test_probabilities_under_plain_headers_are_read_as_probabilities_with_a_note(tmp_path):
    z, y = model()
    p = scipy.special.softmax(z, axis=1)
    path = tmp_path / "probs.csv"
    frame(p, y, "class ").to_csv(path, index=False)
    got = load_predictions(path)
    np.testing.assert_allclose(scipy.special.softmax(got.logits, axis=1), p, rtol=1e-12, atol=1e-15)
    assert got.kind == "probabilities" and got.class_names.tolist() == [f"class {i}" for i in range(K)]
    assert any("read as probabilities" in note and "--input logits" in note for note in got.notes)
    assert np.array_equal(load_predictions(path, "logits").logits, p)  # declared logits are kept as given


def test_probabilities_without_a_header_are_read_as_probabilities(tmp_path):
    z, y = model()
    p = scipy.special.softmax(z, axis=1)
    path = tmp_path / "probs.csv"
    frame(p, y)[["label"] + [str(i) for i in range(K)]].to_csv(path, index=False, header=False)
    got = load_predictions(path)
    assert got.kind == "probabilities" and got.labels.tolist() == y.tolist()
    np.testing.assert_allclose(scipy.special.softmax(got.logits, axis=1), p, rtol=1e-12, atol=1e-15)


def test_values_in_zero_one_whose_rows_do_not_sum_to_one_are_refused_unless_declared_logits(tmp_path):
    z, y = model()
    u = scipy.special.expit(z)  # in [0, 1], rows far from summing to 1: per-class sigmoids, not logits
    path = tmp_path / "scores.csv"
    frame(u, y).to_csv(path, index=False)
    refused(path, "class columns:", "sigmoid", "--input logits")
    assert np.array_equal(load_predictions(path, "logits").logits, u)


def test_probabilities_named_logits_in_an_npz_are_refused(tmp_path):
    z, y = model()
    path = tmp_path / "m.npz"
    np.savez(path, logits=scipy.special.softmax(z, axis=1), labels=y)
    refused(path, "logits:", "probabilities, not logits", "np.savez(path, probabilities=")
    assert load_predictions(path, "probabilities").logits.dtype == np.float64


def test_a_header_mixing_probability_and_other_class_columns_is_refused(tmp_path):
    z, y = model()
    df = frame(scipy.special.softmax(z, axis=1), y, "prob_").rename(columns={"prob_3": "three"})
    df.to_csv(tmp_path / "mixed.csv", index=False)
    refused(tmp_path / "mixed.csv", "line 1", "'prob_0'", "'three'", "--input")


def test_per_class_sigmoid_outputs_are_named(tmp_path):
    z, y = model()
    path = tmp_path / "sigmoid.csv"
    frame(scipy.special.expit(z), y, "prob_").to_csv(path, index=False)
    refused(path, "class columns:", "(line 2: ", "sigmoid (one-vs-rest)", "log(p / (1 - p))")
    np.savez(tmp_path / "sigmoid.npz", probabilities=scipy.special.expit(z), labels=y)
    refused(tmp_path / "sigmoid.npz", "probabilities:", "(row 0: ", "sigmoid")


@pytest.mark.parametrize("prefix", ["prob_", "class "])
@pytest.mark.parametrize("digits", [2, 3])
def test_probabilities_rounded_to_few_decimals_are_renormalised(tmp_path, prefix, digits):
    """Rows of rounded probabilities miss 1 by up to K half-digits: read, renormalised, and a printed 0 read as
    1/20 of the last digit."""
    z, y = model()
    p = scipy.special.softmax(z, axis=1)
    path = tmp_path / "rounded.csv"
    frame(p, y, prefix).to_csv(path, index=False, float_format=f"%.{digits}f")
    got = load_predictions(path)
    rounded = np.round(p, digits)
    assert np.abs(rounded.sum(axis=1) - 1).max() > 1e-3  # the old tolerance would refuse them
    expected = np.maximum(rounded, 10.0 ** -digits / 20)
    np.testing.assert_allclose(scipy.special.softmax(got.logits, axis=1),
                               expected / expected.sum(axis=1, keepdims=True), rtol=1e-12)
    assert any("renormalised" in note for note in got.notes)


def test_probabilities_missing_one_by_more_than_the_rounding_say_so(tmp_path):
    z, y = model()
    p = np.round(scipy.special.softmax(z, axis=1), 3)
    p[7] *= 1.1  # line 9: 10% over
    frame(p, y, "prob_").to_csv(tmp_path / "m.csv", index=False, float_format="%.3f")
    refused(tmp_path / "m.csv", "line 9", "the row sums to", "the rounding of 3 decimals", "more digits")


def test_a_dropped_class_column_is_named(tmp_path):
    z, y = model()
    p = scipy.special.softmax(z, axis=1)
    for dropped in (K - 1, 4):
        columns = [i for i in range(K) if i != dropped]
        frame(p[:, columns], y, "prob_").to_csv(tmp_path / "m.csv", index=False)
        message = refused(tmp_path / "m.csv", "2 problems", "dropped class column?",
                          f"the labels run from 0 to {K - 1}", "is a class column missing")
        assert "1-based" not in message
        frame(z[:, columns], y).to_csv(tmp_path / "z.csv", index=False)
        refused(tmp_path / "z.csv", f"outside [0, {K - 1})", "is a class column missing")


def test_top_k_probability_columns_are_named(tmp_path):
    z, y = model()
    top = -np.sort(-scipy.special.softmax(z, axis=1), axis=1)[:, :5]
    frame(top, np.zeros(N, int), "prob_top").to_csv(tmp_path / "top.csv", index=False)
    message = refused(tmp_path / "top.csv", "sorted largest first", "top 5 probabilities")
    assert "sigmoid" not in message


def test_log_probabilities_and_percentages_saved_as_probabilities_are_read_as_what_they_are(tmp_path):
    z, y = model()
    logp = scipy.special.log_softmax(z, axis=1)
    np.savez(tmp_path / "logp.npz", probabilities=logp, labels=y)
    got = load_predictions(tmp_path / "logp.npz")
    np.testing.assert_allclose(scipy.special.softmax(got.logits, axis=1), np.exp(logp), rtol=1e-12)
    assert any("log-probabilities" in note for note in got.notes)
    p = scipy.special.softmax(z, axis=1)
    np.savez(tmp_path / "pct.npz", probabilities=100 * p, labels=y)
    got = load_predictions(tmp_path / "pct.npz")
    np.testing.assert_allclose(scipy.special.softmax(got.logits, axis=1), p, rtol=1e-12)
    assert any("percentages" in note for note in got.notes)
    frame(100 * p, y).to_csv(tmp_path / "pct.csv", index=False, float_format="%.1f")
    got = load_predictions(tmp_path / "pct.csv")
    assert got.kind == "probabilities" and any("percentages" in note for note in got.notes)
    np.savez(tmp_path / "pct-logits.npz", logits=100 * p, labels=y)
    refused(tmp_path / "pct-logits.npz", "sums to 100", "percentages", "divide by 100")


@pytest.mark.parametrize("decimal", [",", "."])
def test_a_european_csv_is_read_with_a_note(tmp_path, decimal):
    z, y = model()
    frame(z, y).to_csv(tmp_path / "eu.csv", index=False, sep=";", decimal=decimal)
    got = load_predictions(tmp_path / "eu.csv")
    np.testing.assert_allclose(got.logits, z, rtol=1e-15)
    assert got.labels.tolist() == y.tolist() and got.class_names.tolist() == [str(i) for i in range(K)]
    assert any("';'" in note and (("decimal comma" in note) == (decimal == ",")) for note in got.notes)


def test_a_tab_separated_csv_and_boolean_labels_are_read(tmp_path):
    z, y = model()
    frame(z, y).to_csv(tmp_path / "tab.csv", index=False, sep="\t")
    got = load_predictions(tmp_path / "tab.csv")
    assert np.array_equal(got.logits, z) and any("tabs" in note for note in got.notes)
    x = z[:, 0]
    np.savez(tmp_path / "bool.npz", logits=x, labels=y > 4)  # a binary model's y == positive
    assert load_predictions(tmp_path / "bool.npz").labels.tolist() == (y > 4).astype(int).tolist()


def test_a_binary_models_text_labels_need_to_know_the_columns_class(tmp_path):
    z, y = model()
    df = frame(z[:, :1], np.where(y > 4, "malignant", "benign"), "").rename(columns={"0": "score"})
    df.to_csv(tmp_path / "b.csv", index=False)
    refused(tmp_path / "b.csv", "'benign' and 'malignant'", "which class", "'prob_malignant'", "0 and 1")
    df.rename(columns={"score": "malignant"}).to_csv(tmp_path / "named.csv", index=False)
    got = load_predictions(tmp_path / "named.csv")
    assert got.class_names.tolist() == ["benign", "malignant"] and got.labels.tolist() == (y > 4).tolist()


def test_a_file_with_several_problems_names_them_all(tmp_path):
    z, y = model()
    df = frame(z, y, "c", np.where(np.arange(N) % 2 == 0, "valid", "test")).astype(object)
    df.loc[3, "c1"] = "x"
    df.loc[5, "split"] = "maybe"
    df.loc[8, "label"] = K + 3
    df.to_csv(tmp_path / "m.csv", index=False)
    with pytest.raises(InputError) as caught:
        load_predictions(tmp_path / "m.csv")
    lines = caught.value.problems
    assert len(lines) == 3 and all(line.startswith(f"{tmp_path / 'm.csv'}: line ") for line in lines), lines
    assert "line 5, column 'c1'" in lines[0] and "line 7, column 'split'" in lines[1] and "line 10" in lines[2]
    assert str(caught.value).startswith(f"{tmp_path / 'm.csv'}: 3 problems: ") and "\n" not in str(caught.value)


# --- pandas' index --------------------------------------------------------------------------------

def test_the_default_index_column_is_refused(tmp_path):
    z, y = model()
    frame(z, y).to_csv(tmp_path / "m.csv")  # pandas' default writes the index with an empty header cell
    refused(tmp_path / "m.csv", "line 1", "empty", "index=False")


def test_an_unnamed_index_column_from_a_round_trip_is_refused(tmp_path):
    z, y = model()
    frame(z, y).to_csv(tmp_path / "first.csv")
    pd.read_csv(tmp_path / "first.csv").to_csv(tmp_path / "again.csv", index=False)  # header 'Unnamed: 0'
    refused(tmp_path / "again.csv", "line 1", "'Unnamed: 0'", "index=False")


def test_a_named_index_column_of_row_numbers_is_refused(tmp_path):
    z, y = model()
    df = frame(z, y)
    df.index.name = "row"
    df.to_csv(tmp_path / "m.csv")
    refused(tmp_path / "m.csv", "column 'row'", f"0, 1, …, {N - 1}", "index=False")


def test_an_index_without_a_header_is_refused(tmp_path):
    z, y = model()
    frame(z, y)[["label"] + [str(i) for i in range(K)]].to_csv(tmp_path / "m.csv", header=False)
    refused(tmp_path / "m.csv", "column 'label'", "index=False")


@pytest.mark.parametrize("writer", ["pandas", "savetxt"])
def test_a_headerless_file_with_the_label_last_says_to_move_it_first(tmp_path, writer):
    z, y = model()
    if writer == "pandas":
        frame(z, y).to_csv(tmp_path / "m.csv", header=False, index=False)
    else:
        np.savetxt(tmp_path / "m.csv", np.column_stack([z, y]), delimiter=",", fmt="%.6f")
    refused(tmp_path / "m.csv", "column 1", "starts with the label", "move the label column first")
    # the label first, as the format says: read, with every value where it was written
    pd.DataFrame(np.column_stack([y, z])).to_csv(tmp_path / "first.csv", header=False, index=False)
    read = load_predictions(tmp_path / "first.csv")
    assert np.array_equal(read.labels, y) and np.allclose(read.logits, z)


def test_a_header_of_column_numbers_is_not_read_as_data(tmp_path):
    z, y = model()
    pd.DataFrame(np.column_stack([y, z])).to_csv(tmp_path / "m.csv", index=False)  # header 0,1,…,10
    refused(tmp_path / "m.csv", "line 1", f"0, 1, …, {K}", "header=False")


def test_numbered_class_columns_with_a_label_column_are_a_header(tmp_path):
    z, y = model()
    df = pd.DataFrame(z)
    df["label"] = y
    df.to_csv(tmp_path / "m.csv", index=False)  # header 0,1,…,9,label
    got = load_predictions(tmp_path / "m.csv")
    assert got.class_names.tolist() == [str(i) for i in range(K)]
    assert np.array_equal(got.logits, z) and got.labels.tolist() == y.tolist()


# --- labels ------------------------------------------------------------------------------------

def test_one_based_labels_whose_top_class_never_occurs_are_refused(tmp_path):
    z, y = model()
    keep = y != K - 1  # every label + 1 stays in range
    frame(z[keep], y[keep] + 1).to_csv(tmp_path / "m.csv", index=False)
    refused(tmp_path / "m.csv", "column 'label'", "1-based labels? subtract 1")
    np.savez(tmp_path / "m.npz", logits=z[keep], labels=y[keep] + 1)
    refused(tmp_path / "m.npz", "labels:", "1-based labels? subtract 1")


def test_labels_equal_to_k_get_the_one_based_hint(tmp_path):
    z, y = model()
    frame(z, y + 1).to_csv(tmp_path / "m.csv", index=False)
    first = int(np.argmax(y + 1 >= K))
    refused(tmp_path / "m.csv", f"line {first + 2}", f"outside [0, {K})", "1-based labels? subtract 1")


def _agreement_file(path, same, shifted, n=40, k=4):
    """Every row's top class is 0; ``same`` labels are 0, ``shifted`` are 1 (label − 1 = top), the rest 2 or 3."""
    logits = np.zeros((n, k))
    logits[:, 0] = 5.0
    labels = np.r_[np.zeros(same), np.ones(shifted), 2 + np.arange(n - same - shifted) % 2].astype(int)
    np.savez(path, logits=logits, labels=labels)
    return path


@pytest.mark.parametrize("same, shifted, refuse", [
    (5, 11, True),    # 11 ≥ 2·5 and 11/40 > 1/4
    (6, 12, True),    # exactly twice as often
    (6, 11, False),   # 11 < 2·6
    (5, 10, False),   # 10/40 = 1/4: not more often than chance
    (0, 11, True),
])
def test_the_one_based_rule_at_its_edges(tmp_path, same, shifted, refuse):
    path = _agreement_file(tmp_path / "m.npz", same, shifted)
    if refuse:
        refused(path, "1-based labels? subtract 1")
    else:
        assert load_predictions(path).labels.size == 40


def test_a_useless_model_is_not_mistaken_for_one_based_labels(tmp_path):
    rng = np.random.default_rng(5)
    np.savez(tmp_path / "m.npz", logits=rng.normal(size=(2000, K)), labels=rng.integers(0, K, 2000))
    assert load_predictions(tmp_path / "m.npz").labels.size == 2000


def test_one_hot_and_transposed_arrays_point_at_the_fix(tmp_path):
    z, y = model()
    np.savez(tmp_path / "onehot.npz", logits=z, labels=np.eye(K)[y])
    refused(tmp_path / "onehot.npz", "labels:", "one-hot", "argmax")
    np.savez(tmp_path / "onehot-int.npz", logits=z, labels=np.eye(K, dtype=np.int64)[y])
    refused(tmp_path / "onehot-int.npz", "one-hot")
    np.savez(tmp_path / "t.npz", logits=z.T, labels=y)
    refused(tmp_path / "t.npz", f"{N} labels for {K} rows", "transposed?")
    np.savez(tmp_path / "tp.npz", probabilities=scipy.special.softmax(z, axis=1).T, labels=y)
    refused(tmp_path / "tp.npz", "transposed?")


def test_every_array_found_is_listed(tmp_path):
    z, y = model()
    np.savez(tmp_path / "m.npz", y_pred=z, y_true=y, split=np.arange(N) % 2 == 0)
    refused(tmp_path / "m.npz", "'logits'", "found split, y_pred, y_true", "np.savez(path, logits=")
    np.savez(tmp_path / "l.npz", logits=z, y_true=y)
    refused(tmp_path / "l.npz", "'labels'", "found logits, y_true")


@pytest.mark.parametrize("suffix", [".pt", ".pth", ".pkl", ".pickle", ".npy"])
def test_pickled_files_say_how_to_save_an_npz(tmp_path, suffix):
    path = tmp_path / f"model{suffix}"
    path.write_bytes(b"\x80\x04")
    refused(path, suffix, "np.savez(path, logits=..., labels=...)")


# --- the split --------------------------------------------------------------------------------

@pytest.mark.parametrize("calibration_name", ["val_idx", "cal_idx", "calibration_idx"])
def test_index_arrays_that_partition_the_rows_are_the_split(tmp_path, calibration_name):
    z, y = model()
    order = np.random.default_rng(1).permutation(N)
    np.savez(tmp_path / "m.npz", logits=z, labels=y, **{calibration_name: order[:150], "test_idx": order[150:]})
    expected = np.zeros(N, bool)
    expected[order[:150]] = True
    assert load_predictions(tmp_path / "m.npz").split.tolist() == expected.tolist()


@pytest.mark.parametrize("cal, test, fragments", [
    (np.arange(0, 200), None, ("val_idx", "no test index array")),
    (None, np.arange(200, N), ("test_idx", "calibration index array")),
    (np.arange(0, 201), np.arange(200, N), ("row 200 is listed 2 times",)),
    (np.arange(0, 199), np.arange(200, N), ("1 of 400 rows are in neither", "row 199")),
    (np.r_[np.arange(0, 199), N], np.arange(199, N), ("val_idx[199]", f"not a row number in [0, {N})")),
    (np.arange(0, 200) + 0.5, np.arange(200, N), ("val_idx[0]", "0.5")),
])
def test_index_arrays_that_do_not_partition_the_rows_are_refused(tmp_path, cal, test, fragments):
    z, y = model()
    arrays = {"val_idx": cal, "test_idx": test}
    np.savez(tmp_path / "m.npz", logits=z, labels=y, **{k: v for k, v in arrays.items() if v is not None})
    refused(tmp_path / "m.npz", *fragments)


def test_index_arrays_and_a_split_array_together_are_refused(tmp_path):
    z, y = model()
    np.savez(tmp_path / "m.npz", logits=z, labels=y, split=np.arange(N) < 200, val_idx=np.arange(200),
             test_idx=np.arange(200, N))
    refused(tmp_path / "m.npz", "both 'split'", "keep one")


@pytest.mark.parametrize("word", ["val", "validation", "cal", "Calibration", "VAL", "valid", "dev"])
def test_split_words_for_calibration(tmp_path, word):
    z, y = model()
    frame(z, y, split=np.where(np.arange(N) % 4 == 0, word, "test")).to_csv(tmp_path / "m.csv", index=False)
    assert load_predictions(tmp_path / "m.csv").split.tolist() == (np.arange(N) % 4 == 0).tolist()
    np.savez(tmp_path / "m.npz", logits=z, labels=y, split=np.where(np.arange(N) % 4 == 0, word, "test"))
    assert load_predictions(tmp_path / "m.npz").split.tolist() == (np.arange(N) % 4 == 0).tolist()


def test_a_boolean_split_column_from_pandas(tmp_path):
    z, y = model()
    frame(z, y, split=np.arange(N) < 100).to_csv(tmp_path / "m.csv", index=False)  # written True / False
    assert load_predictions(tmp_path / "m.csv").split.tolist() == (np.arange(N) < 100).tolist()


def test_training_rows_are_ignored_with_a_note_and_all_rows_make_one_part(tmp_path):
    z, y = model()
    words = np.where(np.arange(N) % 5 == 0, "train", np.where(np.arange(N) % 2 == 0, "valid", "test"))
    frame(z, y, split=words).to_csv(tmp_path / "m.csv", index=False)
    got = load_predictions(tmp_path / "m.csv")
    kept = np.arange(N) % 5 != 0
    assert np.array_equal(got.logits, z[kept]) and got.labels.tolist() == y[kept].tolist()
    assert got.split.tolist() == (np.arange(N)[kept] % 2 == 0).tolist()
    assert any(f"{N // 5} rows marked as training rows ignored" in note for note in got.notes)
    # a training row's bad label is no problem; a kept row's is named by its row in the file
    np.savez(tmp_path / "m.npz", logits=z, labels=np.where(np.isin(np.arange(N), [5, 7]), K + 5, y), split=words)
    refused(tmp_path / "m.npz", "labels[7]: ", "outside")
    frame(z, y, split=np.full(N, "all")).to_csv(tmp_path / "all.csv", index=False)
    got = load_predictions(tmp_path / "all.csv")
    assert got.split is None and got.split_rule == "none"
    frame(z, y, split=np.where(np.arange(N) == 7, "test", "all")).to_csv(tmp_path / "mixed.csv", index=False)
    refused(tmp_path / "mixed.csv", "line 9", "'test' beside rows marked 'all'")


# --- warnings about a fit that ran -------------------------------------------------------------

def test_fit_warnings_at_the_bounds_and_at_chance():
    low, high = DEFAULT_BOUNDS

    def codes(t, acc, k=10):
        return [w.code for w in fit_warnings(t, acc, k, (low, high))]

    assert codes(low * 1.01, 0.9) == ["t_low_bound"]
    assert codes(low * 1.0101, 0.9) == []
    assert codes(high * 0.99, 0.9) == ["t_high_bound"]
    assert codes(high * 0.9899, 0.9) == []
    assert codes(1.3, 0.1) == ["chance_accuracy"]          # 1/K exactly: at chance
    assert codes(1.3, 36 / 360) == ["chance_accuracy"]
    assert codes(1.3, 37 / 360) == []
    assert codes(high, 0.5, k=2) == ["t_high_bound", "chance_accuracy"]
    message = fit_warnings(high, 0.05, 10, (low, high), "test")[1].message
    assert "5.0%" in message and "10.0%" in message and "\n" not in message
