"""The build cache: slow, pure steps of the build kept on disk, keyed by everything they depend on.

A content-only edit (prose, strings) then reuses the engine's results instead of recomputing them.
Each entry is one pickled value in ``<folder>/<kind>/<key>.pickle``. Its key is a SHA-256 over

- the *base*: :func:`source_digest` (every file under ``calib/`` and ``sitegen/``, and ``build.py``,
  so no module name is hard-coded and a renamed or split module still changes it) and
  :func:`environment_digest` (the Python, every installed distribution's name and version, numpy's
  CPU features in use and the variables that switch them: numpy's SIMD results differ in the last bits);
- the entry's *kind* and its inputs, written by :func:`fingerprint`: plain values and containers by
  content, a file (``Path``) by its name and bytes, and a value the cache returned by that value's own
  key (:meth:`BuildCache.tag`), so a result computed from a cached result is keyed by its inputs' keys.

An entry is written to a temporary file and renamed into place, and read back only if its header,
lengths and CRC-32 match: a partial or corrupt entry is a miss and is rewritten. Arrays are stored out of
band (pickle protocol 5) and read back in place from a private map of the file, not copied. The folder
is safe to delete at any time. A value that cannot be keyed (a type :func:`fingerprint` does not know) is simply
computed, never cached. Nothing here changes a byte of the output: a hit returns the value the same
computation returned (tests/test_cache.py builds both ways and compares every file).

Four ways in: :meth:`BuildCache.get_or_compute` (``build.py`` wraps its stages with it); the
:func:`cached` decorator for a slow, pure function of the page code (an entry per call); the
:func:`memoized` decorator for a quick one called many times (TeX to MathML, script squeezing: one table
per kind, read once, written back at the end of the build); and
:func:`sitegen.render.jinja_cache.compiled_templates`, which keeps Jinja's compiled templates. The decorators
use the cache made active by :func:`using` and simply call the function when none is (tests, other
callers).

A value the cache returns is an input of later steps by its key: it must not be mutated (mutating a
value that no cached step takes, such as the data files' dict, is harmless).
"""

import contextlib
import datetime
import functools
import hashlib
import mmap
import os
import pickle
import struct
import sys
import tempfile
import zlib
from pathlib import Path

from sitegen.common.digests import CHECKOUT, environment_digest, source_digest

__all__ = ["BuildCache", "Uncacheable", "source_digest", "environment_digest", "fingerprint", "using", "active",
           "cached", "memoized", "KEEP_BYTES", "KEEP_ENTRIES"]

_MAGIC = b"calib-build-cache 2\n"
_HEADER = struct.Struct("<IQI")  # CRC-32 of the rest, the pickle's length, the number of buffers
_ALIGN = 64  # each array's bytes start at a multiple of this in the file (numpy reads them in place)
# Kept per kind, the most recently used first: entries up to this many bytes (three precomputations of
# about 110 MB; thousands of figures) and at most this many (a few builds' templates).
KEEP_BYTES = 400 * 2**20
KEEP_ENTRIES = 500
MEMO_SIZE = 20000  # results kept per memo table


class Uncacheable(TypeError):
    """A value :func:`fingerprint` cannot key; the step that takes it is computed, not cached."""


def _feed(digest, value, tags):
    """Write ``value`` into ``digest`` unambiguously (type, length, content); see :func:`fingerprint`."""
    tagged = tags.get(id(value))
    if tagged is not None and tagged[0] is value:
        digest.update(b"K" + tagged[1].encode("ascii"))
    elif value is None or isinstance(value, (bool, int, float, complex)):
        digest.update(b"V" + repr((type(value).__name__, value)).encode("ascii") + b";")
    elif isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        digest.update(b"S%d:" % len(data) + data)
    elif isinstance(value, bytes):
        digest.update(b"B%d:" % len(value) + value)
    elif isinstance(value, Path):
        digest.update(b"P")
        _feed(digest, _key_name(value), tags)
        _feed(digest, value.read_bytes() if value.is_file() else None, tags)
    elif isinstance(value, (datetime.date, datetime.time)):
        _feed(digest, repr(value), tags)
    elif isinstance(value, dict):  # in order: a table's order can show on the page
        digest.update(b"D" + type(value).__qualname__.encode("utf-8") + b"%d:" % len(value))
        for key, item in value.items():
            _feed(digest, key, tags)
            _feed(digest, item, tags)
    elif isinstance(value, (list, tuple)):
        digest.update(b"L" + type(value).__qualname__.encode("utf-8") + b"%d:" % len(value))
        for item in value:
            _feed(digest, item, tags)
    else:
        raise Uncacheable(f"cannot key a {type(value).__qualname__}")


def _key_name(path):
    """A path's name in a key: relative to the checkout for its own files (a copy of the sources elsewhere
    finds the same entries), absolute otherwise (a reader's data file, whose name the page may show)."""
    resolved = Path(path).resolve()
    return resolved.relative_to(CHECKOUT).as_posix() if resolved.is_relative_to(CHECKOUT) else str(path)


def fingerprint(*values, tags=None):
    """SHA-256 (hex) of ``values``: None, numbers, text, bytes, dates, lists, tuples and dicts (in order)
    by content, a ``Path`` by its name (:func:`_key_name`) and bytes, and an object in ``tags``
    ({id: (object, key)}) by its key. Raises :class:`Uncacheable` for anything else."""
    digest = hashlib.sha256()
    for value in values:
        _feed(digest, value, tags or {})
    return digest.hexdigest()


def _padding(offset):
    return b"\0" * (-offset % _ALIGN)


def _encode(value):
    """An entry's bytes, as chunks: magic, header, the buffer lengths, the pickle (protocol 5), then each
    contiguous array's bytes out of band, aligned, so that :func:`_decode` maps them instead of copying."""
    buffers = []
    stream = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
    raws = [buffer.raw() for buffer in buffers]
    lengths = struct.pack(f"<{len(raws)}Q", *(raw.nbytes for raw in raws))
    body = [lengths, _padding(len(_MAGIC) + _HEADER.size + len(lengths)), stream]
    offset = len(_MAGIC) + _HEADER.size + sum(len(part) for part in body)
    for raw in raws:
        body += [_padding(offset), raw]
        offset += len(body[-2]) + raw.nbytes
    crc = 0
    for part in body:
        crc = zlib.crc32(part, crc)
    return [_MAGIC, _HEADER.pack(crc, len(stream), len(raws)), *body]


def _decode(path):
    """The value of the entry at ``path``, its arrays backed by a private (copy-on-write) map of the file.
    Raises on anything but a complete, sound entry."""
    with open(path, "rb") as handle:
        view = memoryview(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY))
    if view[:len(_MAGIC)] != _MAGIC:
        raise ValueError("not a cache entry")
    crc, stream_length, count = _HEADER.unpack_from(view, len(_MAGIC))
    offset = len(_MAGIC) + _HEADER.size
    lengths = struct.unpack_from(f"<{count}Q", view, offset)
    spans, check = [], zlib.crc32(view[offset:offset + 8 * count])
    offset += 8 * count
    for length in (stream_length, *lengths):
        start = offset + (-offset % _ALIGN)
        spans.append((start, start + length))
        check = zlib.crc32(view[start:start + length], zlib.crc32(view[offset:start], check))
        offset = start + length
    if offset != len(view) or check != crc:
        raise ValueError("a partial or damaged cache entry")
    (start, end), *arrays = spans
    return pickle.loads(view[start:end], buffers=[view[a:b] for a, b in arrays])


_ABSENT = "\0absent"  # a key the table lacks (its absence is what was read)


class _Reading:
    """A read-only view of a mapping that notes which keys are read (``read`` becomes None, "all of
    them", when it is iterated, measured or copied)."""

    def __init__(self, table):
        self._table, self.read = table, {}

    def __getitem__(self, key):
        if self.read is not None:
            self.read[key] = None
        return self._table[key]

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __contains__(self, key):
        if self.read is not None:
            self.read[key] = None
        return key in self._table

    def _all(self):
        self.read = None
        return self._table

    def __iter__(self):
        return iter(self._all())

    def __len__(self):
        return len(self._all())

    keys, items, values = (lambda self: self._all().keys(), lambda self: self._all().items(),
                           lambda self: self._all().values())


class BuildCache:
    """The entries under ``folder`` for one ``base`` key (see the module's docstring). With
    ``enabled=False`` every step is computed and nothing is read or written."""

    def __init__(self, folder, base, enabled=True, keep_bytes=KEEP_BYTES, keep_entries=KEEP_ENTRIES):
        self.folder, self.base, self.enabled = Path(folder), base, enabled
        self.keep_bytes, self.keep_entries = keep_bytes, keep_entries
        self.tags = {}
        self.hits, self.misses = [], []
        self.tables, self.changed = {}, set()

    def table(self, kind):
        """The memo table of ``kind`` ({key: value}, least recently used first), read on first use."""
        if kind not in self.tables:
            hit, table = self.load("memo", self.key("memo", kind))
            self.tables[kind] = table if hit and isinstance(table, dict) else {}
        return self.tables[kind]

    def flush(self):
        """Write back the memo tables that gained entries, each cut to its :data:`MEMO_SIZE` most recent."""
        for kind in sorted(self.changed):
            table = self.tables[kind]
            self.store("memo", self.key("memo", kind), dict(list(table.items())[-MEMO_SIZE:]))
        self.changed.clear()

    def key(self, kind, *inputs):
        """The key of a ``kind`` step over ``inputs`` (raises :class:`Uncacheable`)."""
        return fingerprint(self.base, kind, *inputs, tags=self.tags)[:40]

    def tag(self, value, key):
        """Key ``value`` by ``key`` wherever it is an input (the cache tags every value it returns)."""
        self.tags[id(value)] = (value, key)
        return value

    def _path(self, kind, key):
        return self.folder / kind / f"{key}.pickle"

    def load(self, kind, key):
        """``(True, value)`` for a sound entry, else ``(False, None)`` (missing, partial, corrupt, unreadable)."""
        path = self._path(kind, key)
        try:
            value = _decode(path)
        except Exception:  # noqa: BLE001 (a damaged entry, whatever the damage, is a miss)
            return False, None
        with contextlib.suppress(OSError):
            os.utime(path)  # most recently used: kept by pruning
        return True, value

    def store(self, kind, key, value):
        """Write the entry atomically (a temporary file renamed into place), then prune the kind's folder.
        A value that cannot be pickled, or a folder that cannot be written, leaves the cache as it was."""
        try:
            chunks = _encode(value)
        except Exception as error:  # noqa: BLE001
            print(f"build.py: note: the {kind} step is not cached ({error.__class__.__name__}: {error})",
                  file=sys.stderr)
            return
        folder = self.folder / kind
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".", suffix=".part", dir=folder)
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.writelines(chunks)
                os.replace(temporary, self._path(kind, key))
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError:
            return
        self._prune(folder, self._path(kind, key))

    def _prune(self, folder, written):
        """Keep a kind's most recently used entries within :data:`KEEP_BYTES` and :data:`KEEP_ENTRIES`,
        ``written`` (the newest) always among them, and no stale temporary file."""
        entries = []
        for path in folder.iterdir():
            with contextlib.suppress(OSError):
                stat = path.stat()
                entries.append((path != written, -stat.st_mtime, stat.st_size, path))
        entries.sort()
        total, kept, stale = 0, 0, []
        for _, _, size, path in (entry for entry in entries if entry[3].suffix == ".pickle"):
            total, kept = total + size, kept + 1
            if kept > 1 and (total > self.keep_bytes or kept > self.keep_entries):
                stale.append(path)
        # a temporary file older than a day is a write that died (one in progress is seconds old)
        newest = -min(entry[1] for entry in entries)
        stale += [path for _, age, _, path in entries if path.suffix == ".part" and -age < newest - 86400]
        for path in stale:
            with contextlib.suppress(OSError):
                path.unlink()

    def get_or_compute(self, kind, inputs, compute):
        """The cached value of the ``kind`` step over ``inputs`` (a tuple), or ``compute()``'s, then stored.
        The value comes back tagged with its key."""
        if not self.enabled:
            return compute()
        try:
            key = self.key(kind, *inputs)
        except Uncacheable:
            return compute()
        hit, value = self.load(kind, key)
        (self.hits if hit else self.misses).append(kind)
        if not hit:
            value = compute()
            self.store(kind, key, value)
        # Plain values (None, numbers, text, the empty tuple) are shared by unrelated code: never tag them.
        plain = isinstance(value, (type(None), bool, int, float, complex, str, bytes)) or value.__class__ is tuple \
            and not value
        return value if plain else self.tag(value, key)

    def get_or_compute_reading(self, kind, inputs, table, compute):
        """:meth:`get_or_compute` with one more input, a mapping ``table`` of which the step reads a few keys:
        ``compute(view)`` gets a view noting the keys read (kept per ``inputs``, found again at each miss),
        and the entry is keyed by their values only: an edit elsewhere in the table reuses it."""
        if not self.enabled:
            return compute(table)
        try:
            keys_key = self.key(kind + "-reads", *inputs)
            hit, keys = self.load(kind + "-reads", keys_key)
            if hit:
                return self.get_or_compute(kind, (*inputs, [(k, table.get(k, _ABSENT)) for k in keys]),
                                           lambda: compute(table))
        except Uncacheable:
            return compute(table)
        view = _Reading(table)
        value = compute(view)
        keys = list(view.read) if view.read is not None else list(table)
        self.store(kind + "-reads", keys_key, keys)
        return self.get_or_compute(kind, (*inputs, [(k, table.get(k, _ABSENT)) for k in keys]), lambda: value)

    def summary(self):
        """One phrase for the build's last line: what came from the cache."""
        if not self.enabled:
            return "cache off"

        def count(found, group):
            return sum((kind if kind in ("template", "memo") else "step") == group for kind in found)

        memo = count(self.hits + self.misses, "memo")
        return "; ".join([
            f"cache: {count(self.hits, 'step')} reused, {count(self.misses, 'step')} computed",
            f"templates: {count(self.hits, 'template')} reused, {count(self.misses, 'template')} compiled",
            *([f"memoized calls: {count(self.hits, 'memo')} of {memo} reused"] if memo else [])])


_ACTIVE = []


@contextlib.contextmanager
def using(cache):
    """Make ``cache`` the one :func:`cached` and :func:`memoized` functions use while the block runs; then
    write back its memo tables (their results are sound even if the build failed later)."""
    _ACTIVE.append(cache)
    try:
        yield cache
    finally:
        _ACTIVE.pop()
        if cache.enabled:
            cache.flush()


def active():
    """The cache made active by :func:`using`, or None."""
    return _ACTIVE[-1] if _ACTIVE else None


def cached(kind):
    """Decorator: the function (pure: its result depends only on its arguments and the sources) is
    looked up in the active cache under ``kind``, keyed by its arguments; called as is when no cache is
    active or an argument cannot be keyed."""
    def decorate(function):
        @functools.wraps(function)
        def lookup(*args, **kwargs):
            cache = active()
            if cache is None:
                return function(*args, **kwargs)
            return cache.get_or_compute(kind, (args, sorted(kwargs.items())),
                                        lambda: function(*args, **kwargs))
        return lookup
    return decorate


def memoized(kind):
    """Decorator: the function (pure, quick, called many times, returning an immutable value) is looked
    up in the active cache's memo table ``kind``, keyed by its arguments; called as is when no cache is
    active or an argument cannot be keyed. An exception is never memoized."""
    def decorate(function):
        @functools.wraps(function)
        def lookup(*args, **kwargs):
            cache = active()
            if cache is None or not cache.enabled:
                return function(*args, **kwargs)
            try:
                key = fingerprint(args, sorted(kwargs.items()), tags=cache.tags)
            except Uncacheable:
                return function(*args, **kwargs)
            table = cache.table(kind)
            if key in table:
                cache.hits.append("memo")
                table[key] = table.pop(key)  # most recently used last
                return table[key]
            cache.misses.append("memo")
            table[key] = value = function(*args, **kwargs)
            cache.changed.add(kind)
            return value
        return lookup
    return decorate
