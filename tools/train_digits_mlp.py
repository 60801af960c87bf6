#!/usr/bin/env python3
"""Train the built-in dataset ``digits-mlp`` and write its held-out logits to calib/data/digits_mlp.csv.

    .venv/bin/python tools/train_digits_mlp.py           # trains and rewrites the file
    .venv/bin/python tools/train_digits_mlp.py --check   # trains and says whether the file would change (exit 1)

The only built-in dataset that is a file rather than seeded code: a real network on real images, so a reader can
see temperature scaling on logits nobody designed. The build reads the committed file (no training stack needed,
byte-identical builds); this script is how it was made, and needs scikit-learn (the test extras install it).

Data: the 1,797 8×8 images of scikit-learn's ``load_digits``, its copy of the test set of the UCI Machine
Learning Repository's "Optical Recognition of Handwritten Digits" (E. Alpaydin and C. Kaynak, 1998; licence
CC BY 4.0), pixel values divided by 16 (to [0, 1]).
Split: rows permuted by ``numpy.random.default_rng(SPLIT_SEED)``; the first ``TRAIN_ROWS`` train the network, of
the others the first ``CALIBRATION_ROWS`` are the calibration rows and the rest the test rows.
Model: ``MLPClassifier`` (scikit-learn), one hidden layer of 64 ReLU units, Adam, no weight penalty
(``alpha=0``), ``random_state=0``, ``EPOCHS`` epochs with no early stop (``tol=0``): trained until its training
loss is near zero, the regime in which Guo et al. (2017) found modern networks over-confident.
Logits: the output layer before the softmax (the forward pass written out below; its softmax is the model's
``predict_proba``), written with ``DECIMALS`` decimals.
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# the recipe's one home is calib.datasets: the page quotes the same constants
from calib import datasets as recipe  # noqa: E402

SPLIT_SEED, TRAIN_ROWS = recipe.DIGITS_SPLIT_SEED, recipe.DIGITS_TRAIN_ROWS
CALIBRATION_ROWS = recipe.DIGITS_CALIBRATION_ROWS
EPOCHS, HIDDEN = recipe.DIGITS_EPOCHS, (recipe.DIGITS_HIDDEN_UNITS,)
OUT = ROOT / "calib" / recipe.DIGITS_FILE
DECIMALS = 6


def train():
    """``(logits, labels, split, model)`` of the held-out rows, as the module docstring describes."""
    from sklearn.datasets import load_digits
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    x, y = load_digits(return_X_y=True)
    x = x / 16.0
    order = np.random.default_rng(SPLIT_SEED).permutation(y.size)
    train_rows, held = order[:TRAIN_ROWS], order[TRAIN_ROWS:]
    model = MLPClassifier(hidden_layer_sizes=HIDDEN, activation="relu", solver="adam", alpha=0.0, max_iter=EPOCHS,
                          tol=0.0, n_iter_no_change=EPOCHS, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # it runs all EPOCHS by design
        model.fit(x[train_rows], y[train_rows])
    hidden = x[held]
    for weights, bias in zip(model.coefs_[:-1], model.intercepts_[:-1]):
        hidden = np.maximum(hidden @ weights + bias, 0.0)
    logits = hidden @ model.coefs_[-1] + model.intercepts_[-1]
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    assert np.allclose(shifted / shifted.sum(axis=1, keepdims=True), model.predict_proba(x[held]), atol=1e-9)
    split = np.where(np.arange(held.size) < CALIBRATION_ROWS, "calibration", "test")
    return logits, y[held], split, model


def text(logits, labels, split, model):
    """The file's text: a commented header (source, licence, model, split), then one row per held-out image."""
    k = logits.shape[1]
    header = [
        "# digits-mlp: held-out logits of a small neural network on scikit-learn's handwritten digits",
        "# made by tools/train_digits_mlp.py (see its docstring); read by calib.datasets.load('digits-mlp')",
        "# images: UCI ML Optical Recognition of Handwritten Digits (Alpaydin and Kaynak, 1998), CC BY 4.0,",
        "#   as bundled with scikit-learn (BSD-3-Clause) in sklearn.datasets.load_digits",
        f"# model: MLPClassifier(hidden_layer_sizes={HIDDEN}, activation='relu', solver='adam', alpha=0,",
        f"#   max_iter={EPOCHS}, tol=0, random_state=0) on {TRAIN_ROWS} images (final training loss"
        f" {model.loss_:.2e}); split seed {SPLIT_SEED}",
        "# logits: the output layer before the softmax; rows: calibration, then test",
        "split,label," + ",".join(f"logit_{j}" for j in range(k)),
    ]
    rows = [f"{s},{int(label)}," + ",".join(f"{v:.{DECIMALS}f}" for v in z)
            for s, label, z in zip(split, labels, logits)]
    return "\n".join(header + rows) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="train, and exit 1 if the file would change")
    args = parser.parse_args(argv)
    new = text(*train())
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == new
        print(f"{OUT.relative_to(ROOT)}: {'unchanged' if same else 'would change'}")
        return 0 if same else 1
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(new, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({new.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
