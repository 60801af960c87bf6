"""``build.py --data``: the reader's own model as one more dataset of the page.

Bad input runs ``build.py`` as a subprocess against an existing output folder
and checks the exit status, the one stderr line naming the file and the place,
and that the folder is byte-identical afterwards (bad input is refused before
anything is computed, so these are quick). The good builds are the session's
shared ``user_builds`` (tests/conftest.py, inputs from tests/user_inputs.py): a small
model with hostile display text and groups, its one-file edition, the same file with
``--no-examples --split none``, and a model no better than chance.
The payload bound at a larger model is in tests/test_user_payload.py.
"""

import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from user_inputs import HOSTILE_GROUPS, HOSTILE_NAME, model_file

from sitegen.yours.model import _shown_probs, csv_cell, shown_classes

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 900


def run(*options, cwd=ROOT):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, str(ROOT / "build.py"), *map(str, options)], cwd=str(cwd), env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)


def tree_hash(folder):
    digest = hashlib.sha256()
    for path in sorted(Path(folder).rglob("*")):
        digest.update(path.relative_to(folder).as_posix().encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


# --- unit pieces -------------------------------------------------------------------------------------

def test_few_classes_show_every_class_in_order():
    assert shown_classes(np.array([[0.0, 2.0, 1.0]]), np.array([0])).tolist() == [[0, 1, 2]]


def test_many_classes_show_the_top_nine_with_the_label_and_all_others():
    logits = np.arange(20, dtype=float)[None, :].repeat(2, axis=0)  # class 19 largest
    shown = shown_classes(logits, np.array([15, 0]))
    assert shown[0].tolist() == [19, 18, 17, 16, 15, 14, 13, 12, 11, -1]
    # the label (class 0, smallest logit) takes the ninth place, then "all others"
    assert shown[1].tolist() == [19, 18, 17, 16, 15, 14, 13, 12, 0, -1]


def test_all_others_is_the_rest_of_the_probability():
    probs = np.full((2, 1, 20), 0.05)
    classes = np.array([[19, 18, 17, 16, 15, 14, 13, 12, 11, -1]])
    shown = _shown_probs(probs, classes)
    assert shown.shape == (2, 1, 10)
    assert np.allclose(shown[..., -1], 11 * 0.05)
    assert np.allclose(shown.sum(axis=2), 1.0)


@pytest.mark.parametrize("text, expected", [("=SUM(A1)", "'=SUM(A1)"), ("+1", "'+1"), ("-x", "'-x"), ("@a", "'@a"),
                                            ("\tx", "'\tx"), ("\rx", "'\rx"), ("plain", "plain")])
def test_a_text_cell_that_could_be_a_formula_gets_an_apostrophe(text, expected):
    assert csv_cell(text) == expected


def test_numbers_are_never_changed():
    assert csv_cell(-3.5) == -3.5 and csv_cell(-2) == -2 and csv_cell(np.float64(-1e-9)) == -1e-9


# --- bad input: exit 2, one line naming the file and place, the previous site untouched ----------------

@pytest.fixture
def previous_site(tmp_path):
    site = tmp_path / "site"
    (site / "data").mkdir(parents=True)
    (site / ".calib-tutorial-site").write_text("written by build.py; safe to delete\n")
    (site / "index.html").write_text("<p>the previous build</p>\n")
    (site / "data" / "six.js").write_text("// previous\n")
    return site


def bad_inputs(folder):
    """``{case: (path, options, text the message must hold)}``: every bad input the issue lists."""
    folder = Path(folder)
    rng = np.random.default_rng(0)
    good_logits, good_labels = rng.normal(size=(40, 3)), np.arange(40) % 3
    cases = {}

    def npz(name, place, **arrays):
        path = folder / f"{name}.npz"
        np.savez(path, **arrays)
        cases[name] = (path, (), place)

    def text(name, body, place, suffix=".csv"):
        path = folder / f"{name}{suffix}"
        path.write_text(body, encoding="utf-8")
        cases[name] = (path, (), place)

    cases["missing"] = (folder / "nowhere.npz", (), "cannot read")
    unreadable = folder / "folder.npz"
    unreadable.mkdir()
    cases["unreadable"] = (unreadable, (), "cannot read")
    text("unknown-extension", "1,2,3\n", "extension", suffix=".txt")
    npz("pickle", "logits", logits=np.array([[1, 2]], dtype=object), labels=np.array([0]))
    npz("complex", "logits", logits=good_logits.astype(complex), labels=good_labels)
    npz("strings", "logits", logits=good_logits.astype(str), labels=good_labels)
    nan = good_logits.copy()
    nan[7, 2] = np.nan
    npz("nan", "logits[7, 2]", logits=nan, labels=good_labels)
    inf = good_logits.copy()
    inf[3, 1] = -np.inf
    npz("inf", "logits[3, 1]", logits=inf, labels=good_labels)
    # one column is a binary model's score: labels past 0/1 name the missing class columns
    npz("one-dimensional", "labels[2]", logits=good_logits[:, 0], labels=good_labels)
    npz("mismatched", "labels", logits=good_logits, labels=good_labels[:-1])
    npz("fractional-label", "labels[5]", logits=good_logits, labels=np.where(np.arange(40) == 5, 0.5, good_labels))
    npz("label-out-of-range", "labels[9]", logits=good_logits, labels=np.where(np.arange(40) == 9, 3, good_labels))
    npz("small-part", "at least", logits=good_logits[:12], labels=good_labels[:12])
    npz("bad-split", "split[4]", logits=good_logits, labels=good_labels,
        split=np.where(np.arange(40) == 4, "banana", "test"))  # "train" rows are dropped with a note
    npz("too-many-groups", "groups", logits=np.tile(good_logits, (20, 1)), labels=np.tile(good_labels, 20),
        groups=np.array([f"g{i % 30}" for i in range(800)]))
    text("ragged", "label,a,b,c\n0,1,2,3\n1,1,2\n", "line 3")
    text("non-numeric", "label,a,b,c\n0,1,2,3\n1,1,x,3\n", "line 3, column 'b'")
    # an archive whose logits member declares 2**40 float64 values in a header a few bytes long
    huge = folder / "huge.npz"
    import zipfile
    with zipfile.ZipFile(huge, "w") as archive:
        buffer = io.BytesIO()
        np.lib.format.write_array_header_2_0(buffer, {"descr": "<f8", "fortran_order": False,
                                                      "shape": (2 ** 20, 2 ** 20)})
        archive.writestr("logits.npy", buffer.getvalue())
        buffer = io.BytesIO()
        np.save(buffer, good_labels)
        archive.writestr("labels.npy", buffer.getvalue())
    cases["huge-declared"] = (huge, (), "limit")
    # everyday pandas exports that used to be fitted without a word (issue 18)
    import pandas as pd
    rng = np.random.default_rng(1)
    top = rng.integers(0, 4, 60)
    logits4 = rng.normal(size=(60, 4)) + 4 * np.eye(4)[top]  # the label is the top class

    def pandas_csv(name, df, hint, **options):
        path = folder / f"{name}.csv"
        df.to_csv(path, **options)
        cases[name] = (path, (), hint)

    pandas_csv("pandas-index", pd.DataFrame(logits4).assign(label=top), "index=False")
    keep = top != 3
    pandas_csv("one-based", pd.DataFrame(logits4[keep]).assign(label=top[keep] + 1), "1-based labels? subtract 1",
               index=False)
    pandas_csv("column-number-header", pd.DataFrame(np.column_stack([top, logits4])), "header=False", index=False)
    npz("index-arrays-gap", "rows are in neither", logits=logits4, labels=top, val_idx=np.arange(25),
        test_idx=np.arange(30, 60))
    good = folder / "good.npz"
    np.savez(good, logits=good_logits, labels=good_labels)
    split_file = folder / "with-split.npz"
    np.savez(split_file, logits=good_logits, labels=good_labels, split=np.arange(40) % 2 == 0)
    cases["seed-with-file-split"] = (split_file, ("--seed", "3"), "--seed")
    cases["name-too-long"] = (good, ("--name", "x" * 500), "--name")
    cases["name-control-character"] = (good, ("--name", "a\nb"), "--name")
    return cases


CASES = ["missing", "unreadable", "unknown-extension", "pickle", "complex", "strings", "nan", "inf", "one-dimensional",
         "mismatched", "fractional-label", "label-out-of-range", "small-part", "bad-split",
         "too-many-groups", "ragged", "non-numeric", "huge-declared", "seed-with-file-split", "name-too-long",
         "name-control-character", "pandas-index", "one-based", "column-number-header",
         "index-arrays-gap"]


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_line_naming_file_and_place_and_keeps_the_site(case, tmp_path, previous_site):
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    path, options, place = bad_inputs(inputs)[case]
    before = tree_hash(previous_site)
    result = run("--out", previous_site, "--data", path, *options)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("build.py: error: ")
    if case not in ("name-too-long", "name-control-character"):
        assert path.name in lines[0], lines[0]
    assert place in lines[0], lines[0]
    assert tree_hash(previous_site) == before
    assert sorted(p.name for p in previous_site.parent.iterdir()) == ["inputs", "site"]


@pytest.mark.parametrize("options", [("--seed", "x"), ("--split", "foo"), ("--seed", "-1"), ("--seed", "3")])
def test_bad_option_values_exit_2_without_a_traceback(options, tmp_path, previous_site):
    data = model_file(tmp_path / "m.npz", hostile=False)
    before = tree_hash(previous_site)
    extra = ("--split", "even-odd") if options == ("--seed", "3") else ()
    result = run("--out", previous_site, "--data", data, *options, *extra)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("build.py: error: ")
    assert tree_hash(previous_site) == before


@pytest.mark.parametrize("option", [("--name", "x"), ("--input", "probabilities")])
def test_model_options_without_data_are_refused(tmp_path, option):
    result = run("--out", tmp_path / "site", *option)
    assert result.returncode == 2 and f"{option[0]} needs --data" in result.stderr.splitlines()[-1]


# --- good builds (tests/conftest.py: user_builds) -----------------------------------------------

def test_the_reader_dataset_uses_the_fixed_slug_and_no_per_row_csv(user_builds):
    site = user_builds["hostile"]
    names = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    for expected in ("data/yours.js", "data/yours-analysis.js", "data/yours-test-bins.js",
                     "data/yours-calibration-bins.js", "data/yours-groups.js", "downloads/yours-metrics.csv",
                     "downloads/yours-temperature.json", "downloads/yours-groups.csv", "downloads/yours-deploy.py"):
        assert expected in names
    assert "downloads/yours-data.csv" not in names
    assert not any("script" in name or "onerror" in name for name in names)


def test_the_section_follows_the_intro_in_every_language(user_builds):
    for page in ("index.html", "es/index.html"):
        html = (user_builds["hostile"] / page).read_text(encoding="utf-8")
        ids = re.findall(r'<section id="([a-z-]+)"', html)
        assert ids[:2] == ["intro", "yours"], ids[:3]


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, as a browser's tokenizer sees them."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def handle_starttag(self, tag, attrs):
        self.seen.append((tag, dict(attrs)))


def test_the_name_is_text_everywhere(user_builds):
    site = user_builds["hostile"]
    html = (site / "index.html").read_text(encoding="utf-8")
    tags = Tags()
    tags.feed(html)
    assert not [attrs for tag, attrs in tags.seen if tag == "img" and attrs.get("src") == "x"]
    assert not [attrs for tag, attrs in tags.seen if "onload" in attrs or "onerror" in attrs]
    assert not [attrs for tag, attrs in tags.seen if attrs.get("id") == "injected"]
    # every <script> the page opens is one the build wrote (none opened by the reader's text)
    assert [attrs.get("id") or attrs.get("src") for tag, attrs in tags.seen if tag == "script"] == \
        [None, "app.js", "ct-strings"]
    assert "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert "{n} =1+1" in html  # placeholders inside the name are not filled
    strings = re.search(r'<script type="application/json" id="ct-strings">(.*?)</script>', html, re.S).group(1)
    assert "<!--" not in strings and "</" not in strings
    assert json.loads(strings)["datasets"]["yours"]["short"] == HOSTILE_NAME.strip()
    for script in sorted((site / "data").glob("yours*.js")):
        text = script.read_text(encoding="utf-8")
        assert "</script" not in text.lower() and "\u2028" not in text and "\u2029" not in text
    # the file, the payload keys and the hash use the slug, never the name
    assert "data/" + HOSTILE_NAME not in html


def test_the_payload_keeps_only_six_examples_with_their_shown_classes(user_builds):
    text = (user_builds["hostile"] / "data" / "yours.js").read_text(encoding="utf-8")
    payload = json.loads(text[text.index('["dataset",') + len('["dataset",'):text.rindex("]);")])
    examples = payload["examples"]
    assert len(examples["index"]) == 6
    assert all(len(row) == 10 and row[-1] == -1 for row in examples["classes"])  # K = 12 > 10: nine and others
    assert all(len(row) == 10 and row[-1] is None for row in examples["logits"])
    assert set(payload["class_names"]) <= {str(c) for row in examples["classes"] for c in row if c >= 0} \
        | {str(c) for c in examples["label"] + examples["predicted"]}


def test_only_the_readers_examples_are_headed_with_their_row_of_the_file(user_builds):
    """The bars name a reader's example's row of their file, counted from 0 (``file_rows``; the heading itself is
    read in tests/browser/test_yours.py); a built-in dataset's examples keep their plain heading."""
    def payload(name):
        text = (user_builds["hostile"] / "data" / f"{name}.js").read_text(encoding="utf-8")
        return json.loads(text[text.index('["dataset",') + len('["dataset",'):text.rindex("]);")])

    assert payload("yours")["examples"]["file_rows"] == 1
    assert "file_rows" not in payload("six")["examples"]
    for lang in ("en", "es"):
        ui = tomllib.loads((ROOT / "content" / lang / "strings.toml").read_text(encoding="utf-8"))["ui"]
        assert "{row}" in ui["example_head_yours"] and "{row}" not in ui["example_head"]


def test_no_examples_leaves_every_row_out_and_says_so(user_builds):
    site = user_builds["bare"]
    text = (site / "data" / "yours.js").read_text(encoding="utf-8")
    payload = json.loads(text[text.index('["dataset",') + len('["dataset",'):text.rindex("]);")])
    assert payload["examples"]["index"] == [] and payload["examples"]["logits"] == []
    html = (site / "index.html").read_text(encoding="utf-8")
    assert "--no-examples" in html and "optimistic" in html


def test_temperature_json_records_the_fit_and_the_file(user_builds):
    record = json.loads((user_builds["hostile"] / "downloads" / "yours-temperature.json").read_text())
    assert record["data_file"]["sha256"] == hashlib.sha256(user_builds["data"].read_bytes()).hexdigest()
    assert 0.05 <= record["temperature"] <= 10
    assert record["bounds"] == [0.05, 10.0] and record["tolerance"] > 0
    assert record["split"] == {"rule": "random", "seed": 0, "rows": {"calibration": 200, "test": 200}}
    assert record["rows_used"] == 200 and record["fitted_on"] == "calibration"
    html = (user_builds["hostile"] / "index.html").read_text(encoding="utf-8")
    assert "seed 0" in html


def test_group_names_in_the_csv_cannot_run_as_formulas(user_builds):
    rows = list(csv.reader(io.StringIO((user_builds["hostile"] / "downloads" / "yours-groups.csv").read_text())))
    groups = {row[1] for row in rows[1:]}
    assert "'" + HOSTILE_GROUPS[0] in groups and HOSTILE_GROUPS[0] not in groups
    assert all(not cell.startswith(("=", "+", "@")) for row in rows for cell in row)


def test_a_build_without_data_has_no_trace_of_the_reader_model(tmp_path):
    result = run("--out", tmp_path / "site", "--lang", "en")
    assert result.returncode == 0, result.stderr
    site = tmp_path / "site"
    assert not [p for p in site.rglob("*yours*")]
    html = (site / "index.html").read_text(encoding="utf-8")
    assert 'id="yours"' not in html and '"yours"' not in (site / "app.js").read_text(encoding="utf-8")


def test_the_one_file_edition_carries_the_report_and_temperature_json(user_builds):
    html = (user_builds["single"]).read_text(encoding="utf-8")
    assert 'id="yours"' in html
    href = re.search(r'href="data:application/json;base64,([A-Za-z0-9+/=]+)" download="yours-temperature.json"', html)
    record = json.loads(__import__("base64").b64decode(href.group(1)))
    assert record["data_file"]["sha256"] == hashlib.sha256(user_builds["data"].read_bytes()).hexdigest()
    tags = Tags()
    tags.feed(html)
    assert not [attrs for tag, attrs in tags.seen if tag == "img" and attrs.get("src") == "x"]
    assert not [attrs for tag, attrs in tags.seen if "onload" in attrs or "onerror" in attrs]


def yours_section(html):
    return html[html.index('<section id="yours"'):html.index("</section>", html.index('<section id="yours"'))]


def test_the_deploy_sentence_shows_the_json_value_once_in_every_language(user_builds):
    record = json.loads((user_builds["hostile"] / "downloads" / "yours-temperature.json").read_text())
    full = json.dumps(record["temperature"])
    assert float(full) == float(f"{record['temperature']:.10g}")
    for page in ("index.html", "es/index.html"):
        section = yours_section((user_builds["hostile"] / page).read_text(encoding="utf-8"))
        # the code to deploy T carries it too, once per snippet (tests/test_user_decision.py runs them)
        snippets = re.findall(r'<pre class="yours-snippet".*?</pre>', section, re.S)
        assert len(snippets) == 3 and all(s.count(full) == 1 for s in snippets), page
        section = re.sub(r'<pre class="yours-snippet".*?</pre>', "", section, flags=re.S)
        assert section.count(full) == 1, page
        deploy = re.search(r'<span class="yours-deploy">(.*?)</span></p>', section, re.S).group(1)
        assert f'<code class="yours-t-full">{full}</code>' in deploy and "yours-temperature.json" in deploy
        # elsewhere T keeps three significant digits
        shown = re.search(r'<span class="yours-t">([^<]*)</span>', section).group(1)
        assert len(re.sub(r"\D", "", shown).lstrip("0")) <= 3, shown


def test_split_none_says_all_rows_in_whole_sentences_and_warns(user_builds, tmp_path):
    section = yours_section((user_builds["bare"] / "index.html").read_text(encoding="utf-8"))
    for glued in ("the all", "all rows (", "on the all", "set aside for fitting", "of all rows rows"):
        assert glued not in section, glued
    assert "all 400 rows" in section.replace("&nbsp;", " ")
    warning = [line for line in user_builds["bare_stderr"].splitlines() if "warning" in line]
    assert len(warning) == 1 and warning[0].startswith("build.py: warning: ") and "optimistic" in warning[0]
    assert not [line for line in user_builds["hostile_stderr"].splitlines() if "warning" in line]
    # the same sentence as python -m calib fit --split none
    calib = subprocess.run([sys.executable, "-m", "calib", "fit", str(user_builds["data"]), "--split", "none"],
                           cwd=str(ROOT), capture_output=True, text=True, timeout=TIMEOUT)
    assert calib.returncode == 0, calib.stderr
    assert warning[0].split("warning: ", 1)[1] in calib.stderr


def test_a_fit_at_the_bound_and_at_chance_warns_on_stderr_and_on_the_page_in_every_language(user_builds):
    import html as html_module
    import tomllib
    warned = [line for line in user_builds["warned_stderr"].splitlines() if "warning" in line]
    assert len(warned) == 2 and all(line.startswith("build.py: warning: ") for line in warned), warned
    assert "upper bound 10" in warned[0] and "1/K = 20.0%" in warned[1]
    record = json.loads((user_builds["warned"] / "downloads" / "yours-temperature.json").read_text())
    assert record["temperature"] >= 9.9 and record["split"]["rows"] == {"calibration": 200, "test": 200}
    for page, lang in (("index.html", "en"), ("es/index.html", "es")):
        strings = tomllib.loads((ROOT / "content" / lang / "strings.toml").read_text(encoding="utf-8"))["yours"]
        section = yours_section((user_builds["warned"] / page).read_text(encoding="utf-8"))
        notes = [html_module.unescape(note) for note in
                 re.findall(r'<p class="yours-warning" role="note"[^>]*>(.*?)</p>', section, re.S)]
        assert len(notes) == 2, page
        assert all(f"<strong>{strings['warning_title']}:</strong>" in note for note in notes)
        assert strings["warning"]["t_high_bound"].split("{hi}")[1] in notes[0]
        assert strings["warning_chance"]["test"].split("{chance})")[1] in notes[1]
        assert "{" not in notes[0] + notes[1]
        # a warning blocks "helps" on the page as on the command line: the verdict is "check", in its own words
        verdict = re.search(r'<p class="yours-verdict" data-verdict="([a-z]+)">(.*?)</p>', section, re.S)
        assert verdict.group(1) == "check", page
        assert strings["verdict"]["check"].split("{these}")[0] in html_module.unescape(verdict.group(2))
    assert record["decision"]["verdict"]["code"] == "check"
    assert record["decision"]["verdict"]["checks"] == ["t_high_bound", "chance_accuracy"]
    for key in ("hostile", "bare"):
        assert "yours-warning" not in (user_builds[key] / "index.html").read_text(encoding="utf-8")


def test_a_file_of_probabilities_says_so_and_its_code_tempers_their_logarithms(user_builds):
    """The "warned" build reads a CSV with --input probabilities; "hostile" an .npz of logits."""
    import tomllib
    assert "of probabilities (T divides their logarithms)" in user_builds["warned_stderr"]
    assert "of probabilities" not in user_builds["hostile_stderr"]
    for page, lang in (("index.html", "en"), ("es/index.html", "es")):
        sentence = tomllib.loads((ROOT / "content" / lang / "strings.toml").read_text(encoding="utf-8"))["yours"][
            "read_as_probabilities"]
        assert sentence in yours_section((user_builds["warned"] / page).read_text(encoding="utf-8")), page
        assert sentence not in yours_section((user_builds["hostile"] / page).read_text(encoding="utf-8")), page
    deploy = {key: (user_builds[key] / "downloads" / "yours-deploy.py").read_text() for key in ("warned", "hostile")}
    assert 'SCORES = "probabilities"' in deploy["warned"] and "pass log(p) as the logits" in deploy["warned"]
    assert 'SCORES = "logits"' in deploy["hostile"] and "log(p)" not in deploy["hostile"]


def test_the_record_table_names_the_split_once(user_builds):
    for page, label in (("index.html", "Split"), ("es/index.html", "División")):
        section = yours_section((user_builds["hostile"] / page).read_text(encoding="utf-8"))
        cell = re.search(rf'<th scope="row">{label}</th><td[^>]*>(.*?)</td>', section, re.S).group(1)
        assert not cell.startswith(label) and "seed 0" in cell or "semilla 0" in cell, cell


def test_an_out_folder_that_cannot_be_made_is_refused_before_the_build(tmp_path):
    """Its parent is a file: refused in one line before the data file is even read (it does not exist)."""
    (tmp_path / "notes.txt").write_text("a file\n")
    result = run("--out", tmp_path / "notes.txt" / "deeper" / "site", "--data", tmp_path / "absent.npz",
                 "--lang", "en")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("build.py: error: cannot write the site"), lines
    assert "notes.txt" in lines[0] and "absent.npz" not in lines[0]
    assert (tmp_path / "notes.txt").read_text() == "a file\n"


@pytest.mark.parametrize("description, summary", [("ImageNet-100 subset", "ImageNet-100 subset."),
                                                  ("ImageNet-100 subset.", "ImageNet-100 subset."),
                                                  ("Is it calibrated?", "Is it calibrated?"), ("", "")])
def test_a_description_becomes_one_sentence(description, summary):
    from sitegen.yours.model import _as_sentence

    assert _as_sentence(description, "{description}.") == summary


def test_the_explorers_dataset_line_separates_the_description(user_builds):
    for page in ("index.html", "es/index.html"):
        html = (user_builds["hostile"] / page).read_text(encoding="utf-8")
        strings = json.loads(re.search(r'<script type="application/json" id="ct-strings">(.*?)</script>', html,
                                       re.S).group(1))
        assert strings["datasets"]["yours"]["summary"] == "=rows from <b>ward 3</b>."  # given without a full stop
        assert re.fullmatch(r"\{summary\}\s+\{line\}", strings["ui"]["dataset_summary"])


def test_the_groups_csv_writes_numbers_like_the_metrics_csv_and_each_groups_own_t(user_builds):
    site = user_builds["hostile"]
    text = (site / "downloads" / "yours-groups.csv").read_text()
    lines = text.split("\n")[:-1]  # (a group name may hold U+2029, a line break to str.splitlines)
    header = next(csv.reader([lines[0]]))
    assert lines[0] == ",".join(f'"{name}"' for name in header)
    record = json.loads((site / "downloads" / "yours-temperature.json").read_text())
    # each group's own T as the report prints it (three significant digits), from the page
    html = (site / "index.html").read_text(encoding="utf-8")
    shown_t = {}
    for line in lines[1:]:
        raw = line.split(",")
        # text cells quoted, number cells not: temperature, rows and five metrics with 8 decimals
        assert all(cell.startswith('"') and cell.endswith('"') for cell in raw[:3]), line
        assert all(re.fullmatch(r"-?\d+\.\d{8}", cell) for cell in raw[-5:]), line
        assert re.fullmatch(r"\d+", raw[-6]) and (raw[-7] == "" or re.fullmatch(r"\d+\.\d+(e-?\d+)?", raw[-7])), line
        part, group, condition = next(csv.reader([line]))[:3]
        t = raw[-7]
        if condition == "t1":
            assert float(t) == 1.0
        elif condition == "global":
            assert float(t) == record["temperature"]
        elif group == "pooled":
            assert t == ""  # each group at its own T: no single T
        else:
            assert float(t) != record["temperature"]
            shown_t.setdefault(group, set()).add(t)
    assert len(shown_t) == 2 and all(len(ts) == 1 for ts in shown_t.values())  # one own T per group, every part
    own = dict(re.findall(r'<tr><th scope="row">(.*?) \(T = ([\d.]+)\)</th>',
                          html[html.index('id="yours-groups-caption"'):html.index("yours-examples")]))
    assert len(own) == 2
    assert sorted(f"{float(t):.3g}" for (t,) in shown_t.values()) == sorted(own.values())


def test_the_metrics_csv_marks_the_fitted_row(user_builds):
    rows = list(csv.reader(io.StringIO((user_builds["hostile"] / "downloads" / "yours-metrics.csv").read_text())))
    record = json.loads((user_builds["hostile"] / "downloads" / "yours-temperature.json").read_text())
    assert rows[0][-1] == "fitted"
    marked = [row for row in rows[1:] if row[-1] == "true"]
    assert [row[0] for row in marked] == ["calibration", "test"]
    assert all(float(row[1]) == record["temperature"] for row in marked)


def test_the_record_says_its_bin_counts_are_the_non_empty_bins(user_builds):
    for page, words in (("index.html", "non-empty bin"), ("es/index.html", "intervalo no vacío")):
        section = yours_section((user_builds["hostile"] / page).read_text(encoding="utf-8"))
        table = section[re.search(r'<table class="yours-bins[ "]', section).start():]
        rows = re.findall(r'<tr><th scope="row">', table[:table.index("</table>")])
        cell = section[section.index('id="yours-record-caption"'):]
        binning = re.findall(r'<tr><th scope="row">[^<]*</th><td[^>]*>(.*?)</td></tr>', cell)[4]
        assert words in binning, binning
        assert len(binning.split(": ", 1)[1].split(", ")) == len(rows), binning
