"""A language's terminology table, ``content/<lang>/glossary.md``: one term per idea, the variants it replaced,
and the English name each entry of the page's glossary shows (the table is not a section, and not rendered)."""

import re
from pathlib import Path
from typing import NamedTuple

from sitegen.common.errors import BuildError

__all__ = ["GLOSSARY", "GlossaryRow", "load_glossary", "glossary_names"]

GLOSSARY = "glossary.md"


class GlossaryRow(NamedTuple):
    """One idea of a language's terminology table: its English name, the one term this language uses,
    the phrases that term replaced (each «quoted» in the table), the notes, and the ``[terms]`` key of
    strings.toml whose entry of the page's glossary it names (``[terms.KEY]`` in the notes), if any."""

    english: str
    term: str
    replaced: tuple
    notes: str
    key: str | None


_QUOTED = re.compile(r"«([^«»]+)»")
_TERMS_KEY = re.compile(r"\[terms\.(\w+)\]")


def load_glossary(content_dir):
    """The rows of ``glossary.md``'s terminology table (the first Markdown table of four columns: English,
    this language, replaced variants, notes), or ``[]`` for a language without the file. A row of another
    width, or a ``[terms]`` key named by two rows, stops the build with one line naming the file and line."""
    path = Path(content_dir) / GLOSSARY
    if not path.is_file():
        return []
    rows, keys = [], {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("|"):
            if rows:
                break  # the table has ended
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4:
            raise BuildError(f"{path}, line {number}: a row of the terminology table has {len(cells)} cells, not 4")
        if set(line) <= set("|-: "):
            continue  # the header's rule
        key = next(iter(_TERMS_KEY.findall(cells[3])), None)
        if key in keys:
            raise BuildError(f"{path}, line {number}: [terms.{key}] is already named on line {keys[key]}")
        if key:
            keys[key] = number
        rows.append(GlossaryRow(cells[0], cells[1], tuple(_QUOTED.findall(cells[2])), cells[3], key))
    return rows[1:]  # without the header


def glossary_names(rows):
    """``{[terms] key: English name}`` for the page's glossary: a row's first cell without Markdown marks
    and without a trailing abbreviation (the entry's own name carries it: «… (NLL)»)."""
    return {row.key: re.sub(r" \(\w+\)$", "", row.english.replace("*", "").replace("`", ""))
            for row in rows if row.key}
