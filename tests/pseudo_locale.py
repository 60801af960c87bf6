"""A pseudo-locale, generated from the English content at test time and never shipped.

Like Android's ``en-XA``: every letter of every translatable text gets an accent, vowels are doubled
(text about a third longer), and numbers use a decimal comma, a spaced percent sign and ``;``
between the ends of an interval. A page built from it shows at a glance whatever bypasses the
strings tables: an English word or a ``.`` decimal in its visible text came from code, not content.

Not a test module: ``test_i18n.py`` imports it.
"""

import re
import shutil
import tomllib
from pathlib import Path

TAG = "en-XA"
FORMAT = {
    "decimal": ",",
    "group": "\u202f",
    "group_from": 5,
    "percent": "{value}\u00a0%",
    "interval": "[{lo}; {hi}{close}",
    "list": "; ",
    "list_and": " ð ",
    "points": "{value}\u00a0ƥƥ",
    "avoid_decimals": 0,  # a decimal comma: "1,058" cannot read as a grouped count
}

_LOWER = "abcdefghijklmnopqrstuvwxyz"
_LOWER_ACCENTED = "áƀçðéƒĝĥíĵķĺɱñóƥʠŕšţúṽŵẋýž"
_UPPER = _LOWER.upper()
_UPPER_ACCENTED = "ÁƁÇÐÉƑĜĤÍĴĶĹṀÑÓƤɊŔŠŢÚṼŴẊÝŽ"
_LETTERS = dict(zip(_LOWER + _UPPER, _LOWER_ACCENTED + _UPPER_ACCENTED))
_VOWELS = set("aeiouAEIOU")

# What a translator leaves alone in a section file: template code, math, code, links, markup.
_KEEP_MD = re.compile(
    r"\{\{.*?\}\}|\{%.*?%\}|\{##.*?##\}"      # Jinja: expressions, statements, comments
    r"|\$\$.*?\$\$|(?<![\\$])\$(?!\$).+?(?<!\\)\$"  # TeX
    r"|```.*?```|`[^`\n]*`"                   # code
    r"|\[\[component:[^\]]*\]\]|\[\^[^\]]*\]"   # components, footnote references
    r"|\]\([^)]*\)|\{:?[#.][^}]*\}"           # link targets, attribute lists
    r"|<[^>]*>|&\w+;",                        # HTML tags and entities
    re.S)
# What a translator leaves alone in a string: placeholders and TeX.
_KEEP_STRING = re.compile(r"\{\w+\}|(?<![\\$])\$(?!\$).+?(?<!\\)\$")


def pseudo_text(text):
    """Accented letters, doubled vowels; typed decimals with a comma and a spaced percent sign."""
    text = re.sub(r"(?<=\d)\.(?=\d)", ",", text)
    text = re.sub(r"(?<=\d)%", "\u00a0%", text)
    return "".join(_LETTERS[c] * (2 if c in _VOWELS else 1) if c in _LETTERS else c for c in text)


def _outside(pattern, text):
    """``text`` with :func:`pseudo_text` applied outside the matches of ``pattern``."""
    out, last = [], 0
    for match in pattern.finditer(text):
        out += [pseudo_text(text[last:match.start()]), match.group(0)]
        last = match.end()
    return "".join(out + [pseudo_text(text[last:])])


def pseudo_markdown(source):
    """A section file in the pseudo-locale: only the prose changes (headings keep their ``#``)."""
    return _outside(_KEEP_MD, source)


def pseudo_string(value):
    return _outside(_KEEP_STRING, value)


def _toml_value(value):
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def _write_table(lines, prefix, table):
    plain = {k: v for k, v in table.items() if not isinstance(v, dict)}
    if prefix:
        lines.append(f"[{prefix}]")
    lines += [f'"{k}" = {_toml_value(v)}' for k, v in plain.items()]
    for key, value in table.items():
        if isinstance(value, dict):
            _write_table(lines, f'{prefix}."{key}"' if prefix else f'"{key}"', value)


def pseudo_strings(english):
    """The English strings table in the pseudo-locale, as TOML text (same keys; its own ``[format]``)."""
    def convert(table, key=""):
        if key == "format":
            return dict(FORMAT)
        return {k: convert(v, k) if isinstance(v, dict) else pseudo_string(v) if isinstance(v, str) else v
                for k, v in table.items()}

    lines = []
    _write_table(lines, "", convert(english))
    return "\n".join(lines) + "\n"


def make_pseudo_locale(content_root):
    """Write ``content_root/en-XA/`` from ``content_root/en/``; returns the folder."""
    source, target = Path(content_root) / "en", Path(content_root) / TAG
    if target.exists():
        shutil.rmtree(target)
    target.mkdir()
    with open(source / "strings.toml", "rb") as handle:
        english = tomllib.load(handle)
    (target / "strings.toml").write_text(pseudo_strings(english), encoding="utf-8")
    for path in sorted(source.glob("[0-9][0-9]-*.md")):
        (target / path.name).write_text(pseudo_markdown(path.read_text(encoding="utf-8")), encoding="utf-8")
    return target
