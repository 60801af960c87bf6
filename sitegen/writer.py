"""Writing the site atomically: build into a temporary sibling, then swap it into place."""

import os
import shutil
import tempfile
from pathlib import Path

from .errors import BuildError

__all__ = ["write_site"]

_MARKER = ".calib-tutorial-site"


def _is_safe_to_replace(path):
    """True when ``path`` is absent, empty, or a folder an earlier build wrote (it holds our marker)."""
    if not path.exists():
        return True
    if not path.is_dir():
        return False
    return (path / _MARKER).exists() or not any(path.iterdir())


def write_site(out_dir, files):
    """Write ``files`` ({relative path: str or bytes}) as the folder ``out_dir``, all or nothing.

    Everything goes into a temporary sibling first; only when every file is
    written is the old folder moved aside and the new one renamed into place.
    On any failure the temporary folder is removed and ``out_dir`` is left as
    it was. Refuses to replace a folder that an earlier build did not write.
    """
    out = Path(out_dir).resolve()
    if not _is_safe_to_replace(out):
        raise BuildError(f"refusing to replace {out}: it exists and was not written by build.py")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
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
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.replace(out, old / "site")
        os.replace(staging, out)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
