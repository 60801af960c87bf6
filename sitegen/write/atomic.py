"""Writing the site atomically: build into a temporary sibling, then swap it into place (the one-file
edition likewise: a temporary file beside it, then ``os.replace``)."""

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from sitegen.common.errors import BuildError

__all__ = ["write_site", "write_file", "check_file_target"]

_MARKER = ".calib-tutorial-site"


def _is_safe_to_replace(path):
    """True when ``path`` is absent, empty, or a folder an earlier build wrote (it holds our marker)."""
    if not path.exists():
        return True
    if not path.is_dir():
        return False
    return (path / _MARKER).exists() or not any(path.iterdir())


def _fill(staging, files):
    """Write every file, the marker, and readable permissions into the fresh folder ``staging``."""
    for relative, content in sorted(files.items()):
        target = staging / relative
        if target.resolve().parent != staging and staging not in target.resolve().parents:
            raise BuildError(f"output path escapes the site folder: {relative}")
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        target.write_bytes(data)
    (staging / _MARKER).write_text("written by build.py; safe to delete\n", encoding="utf-8")
    for folder in [staging, *staging.rglob("*")]:
        if folder.is_dir():
            os.chmod(folder, 0o755)


def _swap(staging, out):
    """Put the folder ``staging`` where ``out`` is; if any step fails, put ``out`` back as it was.

    Returns the folder holding the previous ``out`` (to be removed by the caller), or None.
    """
    if not out.exists():
        os.replace(staging, out)
        return None
    aside = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    try:
        os.replace(out, aside / "site")
    except BaseException:
        aside.rmdir()
        raise
    try:
        os.replace(staging, out)
    except BaseException:
        try:
            os.replace(aside / "site", out)
        except BaseException as error:
            raise BuildError(f"could not put the previous site back after a failed swap: it is in {aside / 'site'} "
                             f"(move it back to {out} by hand): {error}") from error
        aside.rmdir()
        raise
    return aside


def check_site_target(out_dir):
    """Refuse, with a one-line :class:`BuildError`, a site folder :func:`write_site` would refuse or could not
    write, before anything is computed: an existing folder an earlier build did not write, or a location
    whose missing folders cannot be made (the nearest existing ancestor is a file, or not writable)."""
    out = Path(out_dir).resolve()
    if not _is_safe_to_replace(out):
        raise BuildError(f"refusing to replace {out}: it exists and was not written by build.py")
    ancestor = out.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise BuildError(f"cannot write the site to {out}: {ancestor} is a file, not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise BuildError(f"cannot write the site to {out}: the folder {ancestor} is not writable")


def write_site(out_dir, files):
    """Write ``files`` ({relative path: str or bytes}) as the folder ``out_dir``, all or nothing.

    Everything goes into a temporary sibling first; only when every file is
    written is the old folder moved aside and the new one moved into place.
    Whichever step fails, the temporary folders are removed and ``out_dir`` is
    left exactly as it was (should even moving it back fail, the message says
    where it is). A file-system error becomes a one-line :class:`BuildError`.
    Refuses to replace a folder that an earlier build did not write.
    """
    out = Path(out_dir).resolve()
    if not _is_safe_to_replace(out):
        raise BuildError(f"refusing to replace {out}: it exists and was not written by build.py")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
        try:
            _fill(staging, files)
            aside = _swap(staging, out)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    except OSError as error:
        raise BuildError(f"cannot write the site to {out}: {error.strerror or error}") from error
    if aside is not None:
        try:
            shutil.rmtree(aside)
        except OSError as error:
            raise BuildError(f"the new site is in {out}, but the previous copy could not be removed: "
                             f"{aside}: {error.strerror or error}") from error


def check_file_target(path):
    """Refuse, with a one-line :class:`BuildError`, a path :func:`write_file` could not write: a folder,
    or a file whose folder does not exist."""
    target = Path(path)
    if target.is_dir():
        raise BuildError(f"cannot write the file {target}: it is a folder")
    if not target.parent.is_dir():
        raise BuildError(f"cannot write the file {target}: its folder {target.parent} does not exist")


def write_file(path, text):
    """Write ``text`` (UTF-8) as the file ``path``, all or nothing: into a temporary file beside it,
    then ``os.replace``; on any failure the temporary file is removed and ``path`` is left as it was.
    A file-system error becomes a one-line :class:`BuildError`."""
    target = Path(path)
    check_file_target(target)
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.new-", dir=target.parent)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as error:
        raise BuildError(f"cannot write the file {target}: {error.strerror or error}") from error
