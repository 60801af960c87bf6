"""Size caps: a module of calib/ or sitegen/ holds one job and stays readable in one sitting.

The guideline is about 450 lines for a Python module and 350 for a script of static/js/; a module over
it is listed as a warning (printed at the end of the run), not a failure, so no import is hand-packed and no
module split only to dodge a number. The backstop fails: no Python module over 600 lines, no script over 450
(tests and benches are not capped). A file over its backstop is split by moving a whole job into a module of
its own, not by packing more onto each line.
"""

import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# pattern: (guideline, backstop)
CAPS = {"calib/**/*.py": (450, 600), "sitegen/**/*.py": (450, 600), "static/js/*.js": (350, 450)}


def line_count(path):
    """Lines of a text file, as ``wc -l`` counts them (a last line without a newline counts too)."""
    text = path.read_text(encoding="utf-8")
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def over(files, cap, root=ROOT):
    """``"path: N lines"`` (relative to ``root``) for each of ``files`` longer than ``cap`` lines."""
    return [f"{path.relative_to(root).as_posix()}: {line_count(path)} lines" for path in files
            if line_count(path) > cap]


def test_line_count_counts_every_line(tmp_path):
    path = tmp_path / "x.py"
    for text, expected in (("", 0), ("a\n", 1), ("a\nb", 2), ("a\n\n\nb\n", 4)):
        path.write_text(text, encoding="utf-8")
        assert line_count(path) == expected, text


def test_over_lists_only_files_past_the_cap(tmp_path):
    (tmp_path / "short.py").write_text("a\n" * 3, encoding="utf-8")
    (tmp_path / "long.py").write_text("a\n" * 5, encoding="utf-8")
    assert over(sorted(tmp_path.glob("*.py")), 4, tmp_path) == ["long.py: 5 lines"]


def test_the_patterns_reach_the_subpackages():
    assert any(p.parent.name == "render" for p in ROOT.glob("sitegen/**/*.py"))


@pytest.mark.parametrize("pattern", CAPS)
def test_no_file_exceeds_its_backstop(pattern):
    guideline, backstop = CAPS[pattern]
    files = sorted(ROOT.glob(pattern))
    assert files, f"no {pattern} found"
    failing = over(files, backstop)
    assert not failing, (f"over the backstop of {backstop} lines (move a whole job into a module of its own): "
                         + "; ".join(failing))
    long = over(files, guideline)
    if long:
        warnings.warn(f"over the guideline of about {guideline} lines (one job per module): " + "; ".join(long),
                      stacklevel=1)
