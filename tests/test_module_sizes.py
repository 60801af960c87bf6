"""Size caps: a module of calib/ or sitegen/ holds one job and stays readable in one sitting.

No ``calib/*.py`` or ``sitegen/*.py`` file over 450 lines and no ``static/js/*.js`` file over 350
(tests and benches are not capped). A file over its cap is split by moving a whole job into a module
of its own, not by packing more onto each line.
"""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CAPS = {"calib/*.py": 450, "sitegen/*.py": 450, "static/js/*.js": 350}


def line_count(path):
    """Lines of a text file, as ``wc -l`` counts them (a last line without a newline counts too)."""
    text = path.read_text(encoding="utf-8")
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def test_line_count_counts_every_line(tmp_path):
    path = tmp_path / "x.py"
    for text, expected in (("", 0), ("a\n", 1), ("a\nb", 2), ("a\n\n\nb\n", 4)):
        path.write_text(text, encoding="utf-8")
        assert line_count(path) == expected, text


@pytest.mark.parametrize("pattern", CAPS)
def test_no_file_exceeds_its_size_cap(pattern):
    cap = CAPS[pattern]
    files = sorted(ROOT.glob(pattern))
    assert files, f"no {pattern} found"
    over = [f"{path.relative_to(ROOT).as_posix()}: {line_count(path)} lines"
            for path in files if line_count(path) > cap]
    assert not over, f"over the cap of {cap} lines (move a whole job into a module of its own): " + "; ".join(over)
