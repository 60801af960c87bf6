"""The article's blocks as its grid places them (static/css/base.css, docs/design.md).

* Margin notes: a paragraph a section writes as ``{: .marginnote }`` right after the paragraph, list, heading or
  formula it glosses is wrapped with it in ``<div class="glossed">`` (:class:`MarginNotes`, a Markdown
  extension): from 75rem the note sits in the gutter beside that block, below it inline.
* Tables (:func:`arrange_tables`): one of :data:`WIDE_MIN_COLUMNS` or more columns spans the page rather than
  the text column; one of :data:`STACK_MIN_COLUMNS` or more gets ``class="stack"`` and, on every body cell
  after the first, a ``data-label`` naming its column: on a phone each row becomes a block of label–value
  pairs instead of a table wider than the screen.
"""

import re
import xml.etree.ElementTree as etree
from html import escape, unescape

from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

__all__ = ["MarginNotes", "arrange_tables", "STACK_MIN_COLUMNS", "WIDE_MIN_COLUMNS"]

NOTE = "marginnote"  # the class a margin note's paragraph is given: {: .marginnote }
STACK_MIN_COLUMNS = 4  # a table this wide stacks on a phone; a narrower one fits the column as it is
WIDE_MIN_COLUMNS = 6   # a table this wide spans the page on a wider screen (its region: base.css .wide)
_COMPONENT_PARAGRAPH = re.compile(r"^\[\[component:[^\]]*\]\]$")
_GLOSSABLE = frozenset({"p", "ul", "ol", "h3", "h4", "blockquote", "dl"})


class _Notes(Treeprocessor):
    def run(self, root):
        children = list(root)
        for index, element in enumerate(children):
            if element.tag != "p" or NOTE not in (element.get("class") or "").split() or index == 0:
                continue
            glossed = children[index - 1]
            if glossed.tag not in _GLOSSABLE or _COMPONENT_PARAGRAPH.match((glossed.text or "").strip()):
                continue  # a note after a widget, or after another note, stays a block of its own
            if NOTE in (glossed.get("class") or "").split():
                continue
            wrapper = etree.Element("div", {"class": "glossed"})
            at = list(root).index(glossed)
            root.remove(glossed)
            root.remove(element)
            wrapper.extend([glossed, element])
            wrapper.tail = element.tail
            glossed.tail = element.tail = "\n"
            root.insert(at, wrapper)


class MarginNotes(Extension):
    """Markdown extension: a top-level ``{: .marginnote }`` paragraph and the block before it, wrapped together."""

    def extendMarkdown(self, md):  # noqa: N802 (Markdown's name)
        md.treeprocessors.register(_Notes(md), "margin-notes", 5)  # after attr_list (8) set the classes


_TABLE = re.compile(r'(<div class="table-wrap"[^>]*>\s*)?<table\b([^>]*)>(.*?)</table>', re.S)
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.S)
_CELL = re.compile(r"<(t[hd])\b([^>]*)>(.*?)</\1>", re.S)
_SPAN = re.compile(r'\b(colspan|rowspan)="(\d+)"')


def _text(html):
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", html))).strip()


def _column_labels(head):
    """Each column's label from a table head's rows (column groups spanning several columns included):
    the texts of the header cells above it, joined."""
    grid = {}
    for r, row in enumerate(_ROW.findall(head)):
        c = 0
        for _, attrs, content in _CELL.findall(row):
            while (r, c) in grid:
                c += 1
            spans = dict(_SPAN.findall(attrs))
            for dr in range(int(spans.get("rowspan", 1))):
                for dc in range(int(spans.get("colspan", 1))):
                    grid[(r + dr, c + dc)] = _text(content)
            c += int(spans.get("colspan", 1))
    columns = max((c for _, c in grid), default=-1) + 1
    labels = []
    for c in range(columns):
        texts = [grid[(r, cc)] for (r, cc) in sorted(grid) if cc == c]
        labels.append(" · ".join(dict.fromkeys(t for t in texts if t)))
    return labels


def _label_cells(body, labels):
    def row(match):
        cells, c = [], 0

        def cell(m):
            nonlocal c
            tag, attrs, content = m.groups()
            label = labels[c] if c < len(labels) else ""
            span = int(dict(_SPAN.findall(attrs)).get("colspan", 1))
            c += span
            if c - span == 0 or "data-label" in attrs or not label or tag != "td":
                return m.group(0)
            return f'<{tag}{attrs} data-label="{escape(label)}">{content}</{tag}>'

        cells = _CELL.sub(cell, match.group(0))
        return cells

    return _ROW.sub(row, body)


def arrange_tables(html, stack=True):
    """``html`` with its tables arranged for the grid: a table of :data:`WIDE_MIN_COLUMNS` or more columns in
    a region of its own (``<div class="table-wrap">``) marks that region ``wide``; with ``stack``, a table of
    :data:`STACK_MIN_COLUMNS` or more is marked ``stack`` and its body cells labelled (``data-label``, the
    column's header text), unless it says how it stacks itself (``stack`` or ``no-stack``). A widget's own
    table (``bin-table``, ``compare``) is left as it is."""
    def table(match):
        region, attrs, inner = match.groups()
        region = region or ""
        classes = (re.search(r'\bclass="([^"]*)"', attrs) or [None, ""])[1].split()
        if {"bin-table", "compare"} & set(classes):
            return match.group(0)
        head = re.search(r"<thead\b[^>]*>(.*?)</thead>", inner, re.S)
        labels = _column_labels(head.group(1)) if head else []
        if len(labels) >= WIDE_MIN_COLUMNS and region:
            region = region.replace('class="table-wrap"', 'class="table-wrap wide"', 1)
        if not stack or len(labels) < STACK_MIN_COLUMNS or {"stack", "no-stack"} & set(classes):
            return f"{region}<table{attrs}>{inner}</table>"
        if classes:
            attrs = re.sub(r'\bclass="([^"]*)"', lambda m: f'class="{m.group(1)} stack"', attrs, count=1)
        else:
            attrs += ' class="stack"'
        inner = re.sub(r"<(tbody|tfoot)\b[^>]*>.*?</\1>", lambda m: _label_cells(m.group(0), labels), inner, flags=re.S)
        return f"{region}<table{attrs}>{inner}</table>"

    return _TABLE.sub(table, html)
