"""calib.discrimination.auroc against its definition (a plain double loop over pairs) and scikit-learn."""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from calib import auroc


def pairwise(scores, positive):
    """P(score of a positive > score of a negative) + ½ P(equal): the Mann–Whitney definition, pair by pair."""
    pos = [s for s, p in zip(scores, positive) if p]
    neg = [s for s, p in zip(scores, positive) if not p]
    wins = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


@pytest.mark.parametrize("seed", range(6))
def test_auroc_is_the_pairwise_definition_and_scikit_learns(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 120))
    scores = np.round(rng.random(n), int(rng.integers(1, 4)))  # rounding makes ties
    positive = rng.random(n) < scores
    positive[:2] = [True, False]
    assert auroc(scores, positive) == pytest.approx(pairwise(scores, positive), abs=1e-12)
    assert auroc(scores, positive) == pytest.approx(roc_auc_score(positive, scores), abs=1e-12)


def test_auroc_refuses_one_outcome_only():
    with pytest.raises(ValueError, match="positive"):
        auroc([0.2, 0.4], [1, 1])
    with pytest.raises(ValueError, match="scores"):
        auroc([[0.2, 0.4]], [1, 0])
