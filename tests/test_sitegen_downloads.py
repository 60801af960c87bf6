"""The CSV downloads of sitegen/render/downloads.py: header, one row per example or grid point, "." decimals, ASCII.

Values are checked against the dataset itself and an NLL computed here with
plain NumPy (an independent restatement of the formula, not the engine's).
"""

import csv
import io
import math

import numpy as np
import pytest

import calib
from sitegen.render.downloads import data_csv, metrics_csv


def rows_of(text):
    assert text.isascii()
    assert "\r" not in text and text.endswith("\n")
    return list(csv.reader(io.StringIO(text)))


def is_plain_number(cell):
    """A number written with a "." decimal point (no comma, no U+2212), as Python reads it back."""
    try:
        float(cell)
    except ValueError:
        return False
    return "," not in cell


@pytest.mark.parametrize("name", ["six", "sim-60", "mixed"])
def test_data_csv(name):
    dataset = calib.load(name)
    n, k = dataset.logits.shape
    rows = rows_of(data_csv(dataset))
    assert rows[0] == ["index", "split", "group", "label"] + [f"logit_{j}" for j in range(k)]
    assert len(rows) == n + 1
    for i, row in enumerate(rows[1:]):
        assert len(row) == 4 + k
        assert row[0] == str(i) and row[3] == str(int(dataset.labels[i]))
        # the split rule as the README states it: even rows calibrate, odd rows test; unsplit sets are "all"
        expected_part = "all" if dataset.is_calibration is None else ("calibration" if i % 2 == 0 else "test")
        assert row[1] == expected_part
        assert row[2] == ("" if dataset.groups is None else ("A" if i < 2000 else "B"))
        assert all(is_plain_number(cell) for cell in row[4:])
        # full precision: every logit reads back exactly
        assert [float(cell) for cell in row[4:]] == dataset.logits[i].tolist()


def test_data_csv_of_the_worked_example_by_hand():
    rows = rows_of(data_csv(calib.load("six")))
    assert rows[1] == ["0", "all", "", "0", "3.0", "1.0", "0.0"]
    assert rows[6] == ["5", "all", "", "0", "2.0", "2.2", "0.0"]


def plain_nll(logits, labels, t):
    """Mean negative log-likelihood at temperature ``t``, written out with math.log/math.exp."""
    total = 0.0
    for row, label in zip(logits.tolist(), labels.tolist()):
        scaled = [z / t for z in row]
        top = max(scaled)
        log_sum = top + math.log(sum(math.exp(z - top) for z in scaled))
        total += log_sum - scaled[label]
    return total / len(labels)


@pytest.mark.parametrize("name", ["six", "sim-60"])
def test_metrics_csv(precomputed, name):
    result = precomputed.datasets[name]
    grid = precomputed.grid
    rows = rows_of(metrics_csv(result, grid))
    header = rows[0]
    assert header[:6] == ["part", "temperature", "nll", "brier", "accuracy", "mean_confidence"]
    for scheme in ("equal-width", "adaptive"):
        for bins in (4, 5, 10, 15, 20):  # the offered bin counts (README, payload format)
            assert f"ece_{scheme}_{bins}" in header and f"mce_{scheme}_{bins}" in header
    parts = ["all"] if result.dataset.is_calibration is None else ["calibration", "test"]
    assert len(rows) == 1 + len(parts) * len(grid)
    assert [row[0] for row in rows[1:]] == [p for p in parts for _ in grid]
    assert header[-1] == "fitted"
    for row in rows[1:]:
        assert len(row) == len(header)
        assert all(is_plain_number(cell) for cell in row[1:-1])
    # the temperature column is the grid, exactly; the metric columns have eight decimals
    assert [float(row[1]) for row in rows[1:len(grid) + 1]] == list(map(float, grid))
    assert all(len(cell.split(".")[1]) == 8 for row in rows[1:] for cell in row[2:-1])
    # the fitted column marks, in each part, the one row at the dataset's fitted T
    assert {row[-1] for row in rows[1:]} == {"true", "false"}
    marked = [row for row in rows[1:] if row[-1] == "true"]
    assert [row[0] for row in marked] == parts
    assert all(float(row[1]) == pytest.approx(result.fitted_t, rel=1e-9) for row in marked)
    # NLL at T = 1 of the first part, against the formula written out here
    dataset = result.dataset
    mask = np.ones(dataset.labels.size, bool) if dataset.is_calibration is None else dataset.is_calibration
    t1_row = next(row for row in rows[1:] if float(row[1]) == 1.0)
    expected = plain_nll(dataset.logits[mask], dataset.labels[mask], 1.0)
    assert float(t1_row[2]) == pytest.approx(expected, abs=1e-8)


def test_metrics_csv_of_the_worked_example_quotes_the_published_nll(precomputed):
    rows = rows_of(metrics_csv(precomputed.datasets["six"], precomputed.grid))
    t1_row = next(row for row in rows[1:] if float(row[1]) == 1.0)
    assert t1_row[2].startswith("0.82278")  # README: NLL 0.82278 at T = 1
    assert t1_row[4] == "0.66666667"        # four of six top labels are right
