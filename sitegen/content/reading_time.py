"""Reading time of a rendered section, for the table of contents, and the time with its exercises and widgets.

A section's words are those a reader of the core path reads: the text of its paragraphs and list items
outside closed ``<details>`` (deep dives, exercise answers), tables, code and the widgets (a ``<math>``
counts as one word, and so does a formula written as text: words are split at ordinary spaces, not
no-break ones). The deep dives' visible summaries count here, since the reader reads them; the
core-path budget of issue 17 leaves them out (tests/test_core_path.py counts that on its own).
"""

import math
import re
from html.parser import HTMLParser

from sitegen.common.settings import EXERCISE_MINUTES, WIDGET_MINUTES, WORDS_PER_MINUTE

__all__ = ["section_words", "reading_minutes", "section_tasks", "working_minutes"]

_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                   "wbr"})
_SKIPPED = frozenset({"table", "caption", "figcaption", "pre", "code", "script", "style", "svg", "noscript",
                      "template", "textarea", "nav", "math"})


# A word runs to the next ordinary space: text joined by no-break spaces (an inline formula written as text,
# sitegen.content.mathml.inline_formula, "T = 1"; a grouped number) is one word, as a <math> is.
_WORD = re.compile(r"[^ \t\n\r\f\v]+")


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
    return len(_WORD.findall("".join(parser.parts)))


def reading_minutes(words, pace=WORDS_PER_MINUTE):
    """Whole minutes to read ``words`` words at ``pace`` words a minute, rounded up (0 for no words)."""
    return math.ceil(words / pace)


class _Tasks(HTMLParser):
    """Counts the exercises and widgets of one section's HTML outside closed deep dives."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.exercises, self.widgets = [], 0, 0

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        hidden = tag == "details" and "deep-dive" in classes and "open" not in attrs
        if not any(self.stack):
            self.exercises += tag == "details" and "exercise" in classes
            self.widgets += "data-component" in attrs
        self.stack.append(hidden)

    def handle_endtag(self, tag):
        if tag not in _VOID and self.stack:
            self.stack.pop()


def section_tasks(html):
    """``(exercises, widgets)`` in one section's HTML outside closed deep dives (exercise disclosures,
    elements with ``data-component``)."""
    parser = _Tasks()
    parser.feed(html)
    parser.close()
    return parser.exercises, parser.widgets


def working_minutes(words, exercises, widgets, pace=WORDS_PER_MINUTE):
    """Whole minutes to read ``words`` words at ``pace`` and work through ``exercises`` exercises and
    ``widgets`` widgets at their allowances (settings ``EXERCISE_MINUTES``, ``WIDGET_MINUTES``), rounded up."""
    return math.ceil(words / pace + exercises * EXERCISE_MINUTES + widgets * WIDGET_MINUTES)
