"""The page's one word counter, and the reading times the contents print.

The rule (issue 26), for a piece of HTML as a reader with JavaScript sees it: every word of text, in
headings, paragraphs, list items, captions, table cells, the summaries of ``<details>``, figure text and the
text of the widgets; not the inside of ``<script>``, ``<style>``, ``<template>``, ``<code>``, ``<pre>``,
``<noscript>`` or ``<textarea>``; of a closed ``<details>`` only its ``<summary>``; nothing the reader cannot
see (an element with the ``hidden`` attribute, the class ``visually-hidden``, or ``static-only``: the
fallback a reader without JavaScript gets). A ``<math>`` element is one word; words split at ordinary
whitespace, so text joined by no-break spaces ("T = 1" written as text, a grouped number) is one word.

The build counts each section's HTML with :func:`count_words` for the contents; the browser test
(tests/browser/test_core_words.py) counts the core part with the same function, after building every
widget in it and marking every element the browser does not render ``hidden``.

A section's time is its words at ``WORDS_PER_MINUTE`` plus ``FIGURE_MINUTES`` for each figure (an
interactive widget or a static figure) and ``EXERCISE_MINUTES`` for each exercise outside closed deep
dives, rounded to whole minutes; a part's time and the page's are sums of the times printed, so the
contents add up.
"""

import re
from html.parser import HTMLParser

from sitegen.common.settings import EXERCISE_MINUTES, FIGURE_MINUTES, WORDS_PER_MINUTE

__all__ = ["count_words", "section_tasks", "section_minutes"]

_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                   "track", "wbr"})
# Inline elements: their ends do not separate words ("T" in <var> then "\u00a0=\u00a01" is one word, as a browser
# shows it); every other element's end does (a cell, a list item, a label, an SVG text).
_INLINE = frozenset({"a", "abbr", "b", "bdi", "bdo", "cite", "data", "dfn", "em", "i", "kbd", "mark", "q", "s",
                     "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "tspan"})
_UNREAD = frozenset({"script", "style", "template", "code", "pre", "noscript", "textarea"})
_UNSEEN = frozenset({"visually-hidden", "static-only"})  # classes a reader with JavaScript never sees
# A word runs to the next ordinary whitespace: no-break spaces join (the formula "T = 1" written as text).
_WORD = re.compile(r"[^ \t\n\r\f\v]+")
FORMULA = "\u220e"  # what a <math> element counts as: one word


def count_words(html):
    """The number of words a reader reads in ``html`` by the page's rule (see the module)."""
    return len(_WORD.findall(_text(html)))


def _text(html):
    tree = _Tree()
    tree.feed(html)
    tree.close()
    return "".join(tree.parts)


class _Tree(HTMLParser):
    """The counted text of ``html``: an explicit element stack that closes implied ends (``<p>``, ``<li>``,
    ``<td>``… left open) the way a browser does, by popping to the element an end tag names."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.parts = [], []  # stack: [tag, read (True/False), closed details (bool)]

    def _reading(self):
        for i, (_, read, closed) in enumerate(self.stack):
            if not read:
                return False
            if closed:  # inside a closed <details>: only inside its summary
                return i + 1 < len(self.stack) and self.stack[i + 1][0] == "summary"
        return True

    def handle_starttag(self, tag, attrs):
        if tag not in _INLINE:
            self.parts.append(" ")  # a block's, cell's or label's start separates words too
        if tag in _VOID:
            return
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        read = not (tag in _UNREAD or "hidden" in attrs or classes & _UNSEEN)
        if tag == "math" and read and self._reading():
            self.parts.append(f" {FORMULA} ")
            read = False  # one word, whatever it holds
        self.stack.append([tag, read, tag == "details" and "open" not in attrs])

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in _VOID:
            return
        if not any(open_tag == tag for open_tag, _, _ in self.stack):
            return  # a stray end tag, as a browser ignores it
        while self.stack:
            closed = self.stack.pop()[0]
            if closed not in _INLINE:
                self.parts.append(" ")  # a block's, cell's or label's end separates words
            if closed == tag:
                break

    def handle_data(self, data):
        if self._reading():
            self.parts.append(data)


class _Tasks(HTMLParser):
    """Counts the exercises and figures of one section's HTML outside closed deep dives."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.exercises, self.figures = [], 0, 0

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if not any(self.stack):
            self.exercises += tag == "details" and "exercise" in classes
            self.figures += "data-component" in attrs or "data-figure" in attrs
        self.stack.append(tag == "details" and "deep-dive" in classes and "open" not in attrs)

    def handle_endtag(self, tag):
        if tag not in _VOID and self.stack:
            self.stack.pop()


def section_tasks(html):
    """``(exercises, figures)`` in one section's HTML outside closed deep dives: exercise disclosures
    (``<details class="exercise">``) and figures (elements marked ``data-figure``)."""
    parser = _Tasks()
    parser.feed(html)
    parser.close()
    return parser.exercises, parser.figures


def section_minutes(words, exercises, figures, pace=WORDS_PER_MINUTE):
    """Whole minutes (at least one for a section with any words) to read ``words`` words at ``pace`` words
    a minute, look at ``figures`` figures and try ``exercises`` exercises at their allowances."""
    exact = words / pace + figures * FIGURE_MINUTES + exercises * EXERCISE_MINUTES
    return max(1 if words else 0, int(exact + 0.5))
