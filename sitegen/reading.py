"""Reading time of a rendered section, for the table of contents.

A section's words are those a reader of the core path reads: the text of its paragraphs and list items
outside closed ``<details>`` (deep dives, exercise answers), tables, code and the widgets (a ``<math>``
counts as one word). The deep dives' visible summaries count here, since the reader reads them; the
core-path budget of issue 17 leaves them out (tests/test_core_path.py counts that on its own).
"""

import math
from html.parser import HTMLParser

from .settings import WORDS_PER_MINUTE

__all__ = ["section_words", "reading_minutes"]

_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                   "wbr"})
_SKIPPED = frozenset({"table", "caption", "figcaption", "pre", "code", "script", "style", "svg", "noscript",
                      "template", "textarea", "nav", "math"})


class _Words(HTMLParser):
    """Collects the counted text of one section's HTML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.parts = [], []

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        attrs = dict(attrs)
        skipped = (tag in _SKIPPED or (tag == "details" and "open" not in attrs)
                   or "data-component" in attrs or "table-caption" in (attrs.get("class") or "").split())
        prose = tag in ("p", "li") and (attrs.get("class") or "dive-summary") == "dive-summary"
        if tag == "math" and not any(s for _, s, _ in self.stack):
            self.parts.append(" ∎ ")  # a formula reads as one word
        self.stack.append((tag, skipped, prose))

    def handle_endtag(self, tag):
        while self.stack:
            top = self.stack.pop()[0]
            if top in ("p", "li"):
                self.parts.append(" ")
            if top == tag:
                break

    def handle_data(self, data):
        if any(prose for _, _, prose in self.stack) and not any(skipped for _, skipped, _ in self.stack):
            self.parts.append(data)


def section_words(html):
    """The number of words a reader of the core path reads in one section's HTML (see the module)."""
    parser = _Words()
    parser.feed(html)
    parser.close()
    return len("".join(parser.parts).split())


def reading_minutes(words, pace=WORDS_PER_MINUTE):
    """Whole minutes to read ``words`` words at ``pace`` words a minute, rounded up (0 for no words)."""
    return math.ceil(words / pace)
