"""The practitioner's model of issue 18, for the tests of ``build.py --data``: scikit-learn's digits with a
logistic regression, and its held-out logits split into 359 calibration and 360 test rows.

Not a test module: tests/conftest.py writes the file (``write_digits_data``) when the session starts, so the
``digits_report`` build runs in the background, and ``test_user_decision.py`` rebuilds the model to test the
deploy snippets against it (the fit is deterministic).
"""

import numpy as np

CALIBRATION_ROWS = 359


def digits_model():
    """``(model, x, y)``: a logistic regression fitted on 1,078 digits, and the 719 held-out rows."""
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    x, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.size)
    train, held = order[:1078], order[1078:]
    model = LogisticRegression(max_iter=5000).fit(x[train], y[train])
    return model, x[held], y[held]


def write_digits_data(path):
    """Write the held-out rows' logits, labels and split to ``path`` (.npz), as a practitioner would."""
    model, x, y = digits_model()
    split = np.where(np.arange(y.size) < CALIBRATION_ROWS, "calibration", "test")
    np.savez(path, logits=model.decision_function(x), labels=y, split=split)
