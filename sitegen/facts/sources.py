"""The bibliography: the sources the page cites, read from ``content/sources.toml``.

One table per source (its key is how the prose reaches it, ``src.<key>``) with ``cite`` (how the
running text cites it), ``year`` and ``id`` (a DOI, an arXiv id or a web address), the last two
optional. Years live there so the sources section quotes them as expressions, never typed twice.
"""

import html
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple, Optional
from urllib.parse import quote

from sitegen.common.errors import BuildError

__all__ = ["SOURCES_FILE", "Source", "load_sources", "source_link", "source_facts"]

SOURCES_FILE = Path(__file__).resolve().parents[2] / "content" / "sources.toml"
_FIELDS = {"cite": str, "year": int, "id": str}


class Source(NamedTuple):
    """One cited work: how the prose cites it, its year (None for a web page without one) and its
    identifier (``doi:…``, ``arXiv:…``, a web address, or None for a work with none of them)."""

    cite: str
    year: Optional[int]
    identifier: Optional[str]


def load_sources(path=SOURCES_FILE):
    """``{key: Source}`` of the sources file ``path``, in its order; a malformed file or record stops the
    build with one line naming the file and the record."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            table = tomllib.load(handle)
    except FileNotFoundError:
        raise BuildError(f"{path}: the sources file is missing") from None
    except tomllib.TOMLDecodeError as error:
        raise BuildError(f"{path}: invalid TOML: {error}") from None
    sources = {}
    for key, record in table.items():
        if not isinstance(record, dict):
            raise BuildError(f"{path}: {key} must be a table [{key}] with cite, year and id")
        unknown = sorted(set(record) - set(_FIELDS))
        if unknown:
            raise BuildError(f"{path}: [{key}] has an unknown field {unknown[0]!r} (fields: cite, year, id)")
        for field, kind in _FIELDS.items():
            if field in record and (not isinstance(record[field], kind) or isinstance(record[field], bool)):
                what = "a whole number" if kind is int else "a string"
                raise BuildError(f"{path}: [{key}] {field} must be {what}")
        if not record.get("cite", "").strip():
            raise BuildError(f"{path}: [{key}] has no cite (how the prose cites the source)")
        sources[key] = Source(record["cite"], record.get("year"), record.get("id"))
    return sources


def source_link(identifier):
    """``(url, label)`` of a source identifier: a DOI → https://doi.org/…, an arXiv id → https://arxiv.org/abs/…,
    a web address as it is; the label is HTML-escaped (a DOI may hold ``<`` and ``>``).

    >>> source_link("arXiv:1706.04599")
    ('https://arxiv.org/abs/1706.04599', 'arXiv:1706.04599')
    >>> source_link("doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2")[0]
    'https://doi.org/10.1175/1520-0493(1950)078%3C0001:VOFEIT%3E2.0.CO;2'
    """
    if identifier.startswith("doi:"):
        url = "https://doi.org/" + quote(identifier[4:], safe="/():;.-_")
    elif identifier.startswith("arXiv:"):
        url = "https://arxiv.org/abs/" + identifier[6:]
    else:
        url = identifier
    return url, html.escape(identifier, quote=True)


def source_facts(sources):
    """``src``, the prose's view of ``sources`` (:func:`load_sources`): per key a namespace with ``cite``,
    ``year``, ``url`` and ``label`` (the last two None for a work without a DOI, arXiv page or web address)."""
    out = {}
    for key, source in sources.items():
        url, label = source_link(source.identifier) if source.identifier else (None, None)
        # An identifier is code, not words: <code> keeps it out of translation (the label is escaped already).
        label = f"<code>{label}</code>" if label else None
        out[key] = SimpleNamespace(cite=source.cite, year=source.year, url=url, label=label)
    return SimpleNamespace(**out)
