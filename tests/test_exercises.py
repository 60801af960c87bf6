"""The exercises' worked answers print what the engine computes, in both languages.

Each section's exercises are ``<details class="exercise">`` disclosures (they open without
JavaScript). Every number an answer prints is recomputed here from the engine (``calib``) or, for
the binomial bound, from the inputs the exercise itself states, and looked for in the answer as the
page's filters write it. The site is one build into a temporary folder, or ``CALIB_TEST_SITE``.
"""

import html
import math
import re
from pathlib import Path

import numpy as np
import pytest

import calib
from sitegen.common.numbers import number_filters
from sitegen.content.sections import load_strings

ROOT = Path(__file__).resolve().parents[1]
PAGES = {"en": "index.html", "es": "es/index.html"}
# Where the exercises sit: section id → how many.
# (the lab, #explorer, holds the two that ask the reader to check an answer in it; the equations the proof)
PLACES = {"temperature": 1, "fitting": 1, "reliability": 1, "held-out": 1, "explorer": 2, "chance": 1, "bins": 1,
          "equations": 1}


@pytest.fixture(scope="module")
def site(built_site):
    """The session's built site (tests/conftest.py: one build, or ``CALIB_TEST_SITE``)."""
    return built_site


def plain(fragment):
    return re.sub(r"[ \t\r\n]+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment))).strip()  # keeps no-break spaces


def answers(page):
    """``{section id: [(question, answer text)]}`` for every exercise of the page."""
    found = {}
    for slug, body in re.findall(r'<section id="([a-z0-9-]+)"[^>]*>(.*?)</section>', page, re.S):
        for question, answer in re.findall(r'<p>(<strong>(?:(?!<p>).)*?)</p>\s*'
                                           r'<details class="exercise">\s*<summary>[^<]*</summary>(.*?)</details>',
                                           body, re.S):
            found.setdefault(slug, []).append((plain(question), plain(answer)))
    return found


@pytest.fixture(scope="module", params=sorted(PAGES))
def edition(request, site):
    lang = request.param
    page = (site / PAGES[lang]).read_text(encoding="utf-8")
    filters = number_filters(load_strings(ROOT / "content" / lang)["format"])
    return lang, page, answers(page), filters


def test_every_exercise_is_in_its_place_with_its_answer_in_a_disclosure(edition):
    lang, page, found, _ = edition
    assert {slug: len(items) for slug, items in found.items()} == PLACES
    assert sum(PLACES.values()) >= 8
    summary = load_strings(ROOT / "content" / lang)["exercise"]["answer"]
    # (an exercise inside a deep dive is rendered by Markdown's md_in_html, with a line break before its summary)
    assert len(re.findall(rf'<details class="exercise">\s*<summary>{re.escape(summary)}</summary>', page)) == \
        sum(PLACES.values())
    assert '<details class="exercise" open' not in page  # closed until the reader asks


def numbers_in(text, expected, where):
    # math spaces its tokens ([ 0.25 , 0.50 )), a formula written as text joins them with no-break spaces
    flat = text.replace(" ", "").replace("\u00a0", "")
    missing = [value for value in expected
               if value not in text and value.replace(" ", "").replace("\u00a0", "") not in flat]
    assert not missing, f"{where}: the answer lacks {missing}: {text[:300]!r}"


def test_the_softmax_by_hand(edition):
    lang, _, found, f = edition
    answer = found["temperature"][0][1]
    six = calib.load("six")
    z, t = six.logits[0], 2.0
    numbers_in(answer, [f["fixed"](p, 3) for p in calib.scaled_probs(six.logits[:1], t)[0]], "softmax")
    exps = np.exp((z - z.max()) / t)
    # the exponentials and their sum at three decimals, or at four where the edition's numbers of 1 or more may
    # not show exactly three (Spanish: 1.058 would read as a thousand)
    shown = [[f["fixed"](e, d) for e in exps] + [f["fixed"](exps.sum(), d)] for d in (3, 4)]
    numbers_in(answer, max(shown, key=lambda values: sum(v in answer for v in values)), "softmax")


@pytest.fixture(scope="module")
def six():
    data = calib.load("six")
    t = calib.fit_temperature(data.logits, data.labels)
    return data, t


def test_where_the_wrong_mover_lands(edition, six):
    _, _, found, f = edition
    answer = found["reliability"][0][1]
    data, t = six
    (conf1, correct), (conf_fit, _) = calib.top_label(data.logits, data.labels, 1.0), \
        calib.top_label(data.logits, data.labels, t)
    moved = [i for i in range(data.labels.size) if np.floor(conf1[i] * 4) != np.floor(conf_fit[i] * 4)
             and not correct[i]]
    assert len(moved) == 1
    i = moved[0]
    lower_fit, lower_t1 = np.floor(conf_fit[i] * 4) / 4, np.floor(conf1[i] * 4) / 4
    numbers_in(answer, [f["fixed"](conf_fit[i], 3), f["fixed"](conf1[i], 3),
                        f["interval"]((lower_fit, lower_fit + 0.25), 2), f["interval"]((lower_t1, lower_t1 + 0.25), 2)],
               "wrong mover")


def test_reading_two_dots(edition):
    _, _, found, f = edition
    answer = found["explorer"][0][1]

    def test_bins(name):
        data = calib.load(name)
        rows = ~data.is_calibration
        conf, correct = calib.top_label(data.logits[rows], data.labels[rows], 1.0)
        bins = calib.reliability_bins(conf, correct, 15)
        keep = bins.count > 0
        return bins.confidence[keep], bins.accuracy[keep], bins.count[keep]

    conf, acc, count = test_bins("overconfident")
    fullest = int(np.argmax(count))
    assert acc[fullest] < conf[fullest]  # "below the diagonal"
    numbers_in(answer, [f["pct"](conf[fullest], 1), f["pct"](acc[fullest], 1),
                        f["pp"](conf[fullest] - acc[fullest])], "over-confident dot")
    conf, acc, count = test_bins("mixed")
    most = int(np.argmax(acc - conf))
    assert acc[most] > conf[most]  # "above the diagonal"
    numbers_in(answer, [f["pct"](conf[most], 1), f["pct"](acc[most], 1), f["pp"](acc[most] - conf[most])],
               "under-confident dot")


def test_three_bins(edition, six):
    _, _, found, f = edition
    answer = found["explorer"][1][1]
    data, t = six
    states = [calib.top_label(data.logits, data.labels, temperature) for temperature in (1.0, t)]
    eces = [calib.ece(conf, correct, 3) for conf, correct in states]
    assert eces[1] < eces[0]  # "it lowers it"
    numbers_in(answer, [f["pct"](e, 1) for e in eces], "three bins")
    binned = [calib.reliability_bins(conf, correct, 3) for conf, correct in states]
    assert binned[0].count.tolist() == binned[1].count.tolist() == [0, 3, 3]  # nobody moves; three each
    for b in binned:
        assert np.allclose(b.accuracy[1:], 2 / 3)  # accuracy 2/3 in both bins
        numbers_in(answer, [f["fixed"](c, 3) for c in b.confidence[1:]], "three bins")
        numbers_in(answer, [f["fixed"](abs(a - c), 3) for a, c in zip(b.accuracy[1:], b.confidence[1:])], "three bins")
    assert binned[0].accuracy[1] > binned[0].confidence[1] and binned[0].accuracy[2] < binned[0].confidence[2]


def test_why_not_the_fitting_rows(edition):
    _, _, found, f = edition
    answer = found["held-out"][0][1]
    question = found["held-out"][0][0]
    data = calib.load("sim-60")
    cal, test = data.is_calibration, ~data.is_calibration
    t = calib.fit_temperature(data.logits[cal], data.labels[cal])

    def gain(rows):
        return calib.nll(data.logits[rows], data.labels[rows], 1.0) - calib.nll(data.logits[rows], data.labels[rows], t)

    assert gain(cal) >= 0
    numbers_in(question, [f["fixed"](gain(cal), 3)], "fitting rows")
    numbers_in(answer, [f["fixed"](gain(test), 3)], "fitting rows")
    ends = re.findall(r"(−?\d+\.\d{3}) (?:to|a) (−?\d+\.\d{3})", answer)
    assert ends, answer
    lo, hi = (float(x.replace("−", "-")) for x in ends[-1])
    assert lo < 0 < hi  # "includes zero"


def test_the_bound(edition):
    _, _, found, f = edition
    question, answer = found["chance"][0]
    text = question + " " + answer
    bins = int(re.search(r"B\s*=\s*(\d+)", answer).group(1))
    p = float(re.search(r"p\s*=\s*(\d\.\d+)", text).group(1))
    ks = [int(k) for k in re.findall(r"k\s*=\s*(\d+)", answer)][:2]
    assert len(ks) == 2
    for k in ks:
        tail = sum(math.comb(bins, j) * p ** j * (1 - p) ** (bins - j) for j in range(k, bins + 1))
        numbers_in(answer, [f["pct"](tail, 1)], f"bound, k = {k}")


def test_one_bin(edition):
    _, _, found, f = edition
    answer = found["bins"][0][1]
    data = calib.load("mixed")
    rows = ~data.is_calibration
    conf, correct = calib.top_label(data.logits[rows], data.labels[rows], 1.0)
    numbers_in(answer, [f["fixed"](conf.mean(), 4), f["fixed"](correct.mean(), 4),
                        f["pct"](calib.ece(conf, correct, 1), 1), f["pct"](calib.ece(conf, correct, 15), 1)], "one bin")
    # the difference of the printed numbers gives the printed ECE
    assert (f["pct"](abs(round(conf.mean(), 4) - round(correct.mean(), 4)), 1)
            == f["pct"](calib.ece(conf, correct, 1), 1))


def test_the_derivatives(edition, six):
    _, _, found, f = edition
    answer = found["fitting"][0][1]
    data, t = six
    slope, curvature = calib.nll_beta_derivatives(data.logits, data.labels, t)
    assert abs(slope) < 1e-4 and curvature > 0
    losses = -np.log(calib.scaled_probs(data.logits, 1.0)[np.arange(data.labels.size), data.labels])
    big = int(np.argmax(losses))
    weights = np.zeros(data.labels.size)
    weights[big] = 1 / data.labels.size
    own, _ = calib.nll_beta_derivatives(data.logits, data.labels, t, weights)
    numbers_in(answer, [f["fixed"](curvature, 3), f["fixed"](own, 3), f["fixed"](-own, 3)],
               "derivatives")
