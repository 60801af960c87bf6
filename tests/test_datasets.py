"""Tests of calib.datasets and calib.rng: shapes, the split rule, determinism, and each dataset's design."""

import numpy as np
import pytest

from calib import DATASET_NAMES, fit_temperature, load, part_masks, top_label
from calib.rng import lcg_normals, lcg_uniforms

SHAPES = {
    "six": (6, 3), "twelve": (12, 3), "sim-60": (60, 3), "sim-600": (600, 3),
    "overconfident": (6000, 10), "mixed": (4000, 10), "digits-mlp": (1197, 10),
}
SPLIT = ("sim-60", "sim-600", "overconfident", "mixed")


@pytest.fixture(scope="module")
def datasets():
    return {name: load(name) for name in DATASET_NAMES}


def test_the_six_names():
    assert set(DATASET_NAMES) == set(SHAPES)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shapes_and_types(datasets, name):
    data = datasets[name]
    assert data.name == name
    assert data.logits.shape == SHAPES[name]
    assert data.logits.dtype == np.float64 and np.all(np.isfinite(data.logits))
    assert data.labels.shape == SHAPES[name][:1]
    assert np.issubdtype(data.labels.dtype, np.integer)
    assert data.labels.min() >= 0 and data.labels.max() < SHAPES[name][1]


def test_six_is_the_article_example(datasets):
    six = datasets["six"]
    assert six.logits.tolist() == [[3, 1, 0], [2.5, 1, 0], [3, 0.5, 0], [1.5, 2, 0], [0.5, 0, 1.5], [2, 2.2, 0]]
    assert six.labels.tolist() == [0, 0, 1, 1, 2, 0]
    assert six.groups is None and six.is_calibration is None


@pytest.mark.parametrize("name", SPLIT)
def test_split_rule_even_rows_calibrate(datasets, name):
    split = datasets[name].is_calibration
    assert split.dtype == np.bool_
    assert split.tolist() == [i % 2 == 0 for i in range(SHAPES[name][0])]


def test_digits_mlp_is_the_shipped_file_of_scikit_learns_digits(datasets):
    """The one built-in dataset read from a file: its labels are the digits of the held-out images (recomputed
    here from scikit-learn's load_digits with the documented split seed), its split is the file's (calibration
    rows first), and its header names the data's licence and the model."""
    from importlib import resources

    from sklearn.datasets import load_digits

    data = datasets["digits-mlp"]
    _, y = load_digits(return_X_y=True)
    order = np.random.default_rng(20270227).permutation(y.size)
    assert data.labels.tolist() == y[order[600:]].tolist()
    assert data.is_calibration.tolist() == [True] * 598 + [False] * 599 and data.groups is None
    header = resources.files("calib").joinpath("data/digits_mlp.csv").read_text(encoding="utf-8")[:800]
    assert "CC BY 4.0" in header and "MLPClassifier" in header and "tools/train_digits_mlp.py" in header
    assert np.mean(np.argmax(data.logits, axis=1) == data.labels) > 0.9  # a network that learned the task


def test_the_digits_file_is_package_data():
    """pyproject.toml ships the file with the package, so an installed calib can load the dataset."""
    import tomllib
    from pathlib import Path

    from calib.datasets import DIGITS_FILE

    table = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = table["tool"]["setuptools"]["package-data"]["calib"]
    assert any(Path(DIGITS_FILE).match(p) for p in patterns)


def test_twelve_is_not_split(datasets):
    assert datasets["twelve"].is_calibration is None and datasets["twelve"].groups is None


def test_sim_60_is_a_prefix_of_sim_600(datasets):
    small, large = datasets["sim-60"], datasets["sim-600"]
    assert np.array_equal(small.logits, large.logits[:60])
    assert np.array_equal(small.labels, large.labels[:60])
    assert np.array_equal(small.is_calibration, large.is_calibration[:60])


def test_sim_logits_are_in_documented_range(datasets):
    z = datasets["sim-600"].logits
    assert z.min() >= 0.0 and z.max() < 5.0
    # three uniform logits per row: their mean is near 2.5
    assert z.mean() == pytest.approx(2.5, abs=0.15)


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_loading_twice_gives_identical_data(datasets, name):
    again = load(name)
    first = datasets[name]
    assert first.logits.tobytes() == again.logits.tobytes()
    assert first.labels.tobytes() == again.labels.tobytes()
    for a, b in ((first.groups, again.groups), (first.is_calibration, again.is_calibration)):
        assert (a is None and b is None) or np.array_equal(a, b)


def test_loading_returns_fresh_arrays():
    first = load("sim-60")
    first.logits[0, 0] = 99.0
    assert load("sim-60").logits[0, 0] != 99.0


def test_overconfident_design(datasets):
    data = datasets["overconfident"]
    cal = data.is_calibration
    assert abs(fit_temperature(data.logits[cal], data.labels[cal]) - 2.0) < 0.1
    confidence, correct = top_label(data.logits, data.labels, 1.0)
    assert 0.64 <= correct.mean() <= 0.68
    assert 0.80 <= confidence.mean() <= 0.85


def test_mixed_groups(datasets):
    data = datasets["mixed"]
    assert data.groups.tolist() == ["A"] * 2000 + ["B"] * 2000
    # a calibrated latent model sharpened ×3 (A) and softened ×0.5 (B): fitted T per group ≈ 3 and ≈ 0.5
    a = data.groups == "A"
    assert fit_temperature(data.logits[a], data.labels[a]) == pytest.approx(3.0, abs=0.2)
    assert fit_temperature(data.logits[~a], data.labels[~a]) == pytest.approx(0.5, abs=0.05)
    # both groups are present in both parts
    for part in (data.is_calibration, ~data.is_calibration):
        assert set(data.groups[part]) == {"A", "B"}


def test_unknown_dataset_is_refused():
    with pytest.raises(ValueError, match="unknown dataset 'sim-6000'"):
        load("sim-6000")
    with pytest.raises(ValueError, match="unknown dataset"):
        load("")


# --- the generator ----------------------------------------------------------------------------

def test_lcg_first_outputs_from_seed_zero():
    # x ← (1664525 x + 1013904223) mod 2**32 from x = 0, in plain integers
    expected, x = [], 0
    for _ in range(5):
        x = (1664525 * x + 1013904223) % 2 ** 32
        expected.append(x)
    assert expected[:4] == [1013904223, 1196435762, 3519870697, 2868466484]  # the published sequence
    assert (lcg_uniforms(0, 5) * 2 ** 32).tolist() == expected


def test_lcg_streams_are_prefixes_and_in_unit_interval():
    long = lcg_uniforms(12345, 1000)
    assert np.array_equal(lcg_uniforms(12345, 10), long[:10])
    assert long.min() >= 0.0 and long.max() < 1.0
    assert long.mean() == pytest.approx(0.5, abs=0.05)
    assert lcg_uniforms(1, 0).shape == (0,)
    with pytest.raises(ValueError, match="count must be non-negative"):
        lcg_uniforms(1, -1)


def test_box_muller_by_hand():
    # u1 = 1 - e^{-1/2} gives radius 1; u2 = 0, 1/4 give angles 0, π/2
    u1 = 1.0 - np.exp(-0.5)
    out = lcg_normals([[u1, 0.0], [u1, 0.25], [0.0, 0.3]])
    assert out == pytest.approx(np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]), abs=1e-15)


def test_box_muller_normals_have_unit_variance():
    draws = lcg_normals(lcg_uniforms(7, 40_000).reshape(-1, 2)).ravel()
    assert draws.mean() == pytest.approx(0.0, abs=0.03)
    assert draws.std() == pytest.approx(1.0, abs=0.03)
    assert np.all(np.isfinite(draws))


def test_part_masks():
    assert list(part_masks(load("twelve"))) == ["all"]
    masks = part_masks(load("sim-60"))
    assert list(masks) == ["calibration", "test"]
    assert np.array_equal(masks["calibration"], ~masks["test"])


def test_even_odd_split_is_the_rule_of_the_built_in_data_and_of_a_users_file():
    from calib import even_odd_split, split_masks

    assert even_odd_split(5).tolist() == [True, False, True, False, True]
    assert even_odd_split(0).tolist() == []
    assert np.array_equal(load("sim-60").is_calibration, even_odd_split(60))
    assert np.array_equal(split_masks(9, "even-odd", min_rows=1)["calibration"], even_odd_split(9))
