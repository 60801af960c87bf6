"""The atomic writer (sitegen/write/atomic.py): all or nothing, and never a lost site.

Every file-system step of a write (making the temporary folders, writing each
file, setting permissions, moving folders, removing the old copy) is wrapped so
that a test can make exactly the k-th step fail. One successful write counts the
steps; then each step in turn is made to fail, and the previous output folder
must be byte-identical afterwards with no temporary sibling left behind.
"""

import errno
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from sitegen.common.errors import BuildError
from sitegen.write.atomic import write_site

OLD = {"index.html": "old page", "data/a.js": "old a", "data/b.js": "old b"}
NEW = {"index.html": "new page", "data/a.js": "new a", "downloads/c.csv": "x,y\n1,2\n"}

# (owner, attribute) of every file-system operation the writer may use.
STEPS = [(os, "replace"), (os, "rename"), (os, "chmod"), (os, "rmdir"), (tempfile, "mkdtemp"),
         (shutil, "rmtree"), (shutil, "move"), (Path, "write_bytes"), (Path, "write_text"), (Path, "mkdir"),
         (Path, "rename"), (Path, "replace"), (Path, "rmdir")]


class Injected(OSError):
    """The failure a test injects (an OSError, as a full disk or a permission problem would raise)."""


class Faults:
    """Counts the writer's file-system steps and makes the ones listed in ``fail_at`` raise.

    Only the writer's own calls count: a step made inside another one (``rmtree`` calling ``rmdir``) does not.
    """

    def __init__(self, monkeypatch):
        self.calls = []
        self.fail_at = set()
        self.armed = False
        self.depth = 0
        for owner, name in STEPS:
            monkeypatch.setattr(owner, name, self._wrap(name, getattr(owner, name)))

    def _wrap(self, name, real):
        def step(*args, **kwargs):
            if not self.armed or self.depth:
                return real(*args, **kwargs)
            index = len(self.calls)
            self.calls.append(name)
            if index in self.fail_at:
                raise Injected(errno.EIO, f"injected failure at step {index} ({name})")
            self.depth += 1
            try:
                return real(*args, **kwargs)
            finally:
                self.depth -= 1
        return step

    def run(self, out, files, fail_at=()):
        self.calls, self.fail_at, self.armed = [], set(fail_at), True
        try:
            write_site(out, files)
        finally:
            self.armed = False


def snapshot(folder):
    """Every file and sub-folder under ``folder`` (hidden ones included)."""
    folder = Path(folder)
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    dirs = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_dir())
    return files, dirs


def siblings(parent, keep="site"):
    """Everything next to the output folder other than the output folder itself."""
    return sorted(p.name for p in Path(parent).iterdir() if p.name != keep)


def count_steps(faults, tmp_path, previous):
    """Run one successful write (over a previous site if ``previous``) and return its list of steps."""
    out = tmp_path / "count" / "site"
    if previous:
        write_site(out, OLD)
    faults.run(out, NEW)
    assert snapshot(out)[0].keys() == set(NEW) | {".calib-tutorial-site"}
    return list(faults.calls)


def test_every_failing_step_leaves_the_previous_site_byte_identical(tmp_path, monkeypatch):
    faults = Faults(monkeypatch)
    steps = count_steps(faults, tmp_path, previous=True)
    assert {"mkdtemp", "write_bytes", "replace"} <= set(steps)
    for k, name in enumerate(steps):
        parent = tmp_path / f"step-{k:02d}"
        write_site(parent / "site", OLD)
        before = snapshot(parent / "site")
        if k == len(steps) - 1:
            continue  # the last step (removing the old copy) comes after the swap: see the next test
        with pytest.raises(BuildError, match=f"injected failure at step {k} "):
            faults.run(parent / "site", NEW, fail_at={k})
        assert snapshot(parent / "site") == before, f"step {k} ({name}) changed the previous site"
        assert siblings(parent) == [], f"step {k} ({name}) left {siblings(parent)}"


def test_failing_to_remove_the_old_copy_is_loud_and_keeps_the_new_site(tmp_path, monkeypatch):
    faults = Faults(monkeypatch)
    steps = count_steps(faults, tmp_path, previous=True)
    assert steps[-1] == "rmtree"
    parent = tmp_path / "last"
    write_site(parent / "site", OLD)
    with pytest.raises(BuildError, match="could not be removed") as raised:
        faults.run(parent / "site", NEW, fail_at={len(steps) - 1})
    assert snapshot(parent / "site")[0].keys() == set(NEW) | {".calib-tutorial-site"}
    leftover = siblings(parent)
    assert len(leftover) == 1 and leftover[0] in str(raised.value)


def test_every_failing_step_of_a_first_write_leaves_nothing(tmp_path, monkeypatch):
    faults = Faults(monkeypatch)
    steps = count_steps(faults, tmp_path, previous=False)
    for k, name in enumerate(steps):
        parent = tmp_path / f"first-{k:02d}"
        parent.mkdir()
        with pytest.raises(BuildError, match=f"injected failure at step {k} "):
            faults.run(parent / "site", NEW, fail_at={k})
        assert siblings(parent, keep=None) == [], f"step {k} ({name}) left {siblings(parent, keep=None)}"


def test_a_failed_swap_that_cannot_be_undone_says_where_the_previous_site_is(tmp_path, monkeypatch):
    faults = Faults(monkeypatch)
    steps = count_steps(faults, tmp_path, previous=True)
    swap = [k for k, name in enumerate(steps) if name == "replace"][-1]  # the new folder into place
    write_site(tmp_path / "site", OLD)
    before = snapshot(tmp_path / "site")
    # fail the swap, then the move back (the first replace after the swap)
    with pytest.raises(BuildError, match="previous site") as raised:
        faults.run(tmp_path / "site", NEW, fail_at={swap, swap + 1})
    assert faults.calls[swap + 1] == "replace"
    message = str(raised.value)
    kept = [p for p in tmp_path.iterdir() if str(p) in message and p.name != "site"]
    assert kept, message
    assert snapshot(kept[0] / "site") == before


def test_an_interrupted_swap_is_undone_too(tmp_path, monkeypatch):
    """Not only OSError: any exception (here KeyboardInterrupt) at the swap restores the old folder."""
    faults = Faults(monkeypatch)
    steps = count_steps(faults, tmp_path, previous=True)
    assert steps.count("replace") == 2
    parent = tmp_path / "interrupted"
    write_site(parent / "site", OLD)
    before = snapshot(parent / "site")
    real = os.replace
    calls = []

    def interrupted(source, target):
        calls.append(target)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(source, target)

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_site(parent / "site", NEW)
    assert snapshot(parent / "site") == before
    assert siblings(parent) == []


def test_refuses_to_replace_a_folder_it_did_not_write(tmp_path):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("not a site\n", encoding="utf-8")
    before = snapshot(foreign)
    with pytest.raises(BuildError, match="refusing to replace"):
        write_site(foreign, {"index.html": "new"})
    assert snapshot(foreign) == before
    assert siblings(tmp_path, keep="mine") == []
    # a plain file in the way is refused too
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(BuildError, match="refusing to replace"):
        write_site(tmp_path / "file", {"index.html": "new"})


def test_replaces_its_own_folder_and_an_empty_one(tmp_path):
    write_site(tmp_path / "site", {"index.html": "one", "data/a.js": "a"})
    write_site(tmp_path / "site", {"index.html": "two"})
    files, _ = snapshot(tmp_path / "site")
    assert files == {".calib-tutorial-site": files[".calib-tutorial-site"], "index.html": b"two"}
    (tmp_path / "empty").mkdir()
    write_site(tmp_path / "empty", {"index.html": "three"})
    assert (tmp_path / "empty" / "index.html").read_text(encoding="utf-8") == "three"
    assert siblings(tmp_path, keep=None) == ["empty", "site"]


def test_a_path_escaping_the_site_folder_leaves_the_old_folder(tmp_path):
    write_site(tmp_path / "site", {"index.html": "old"})
    before = snapshot(tmp_path / "site")
    with pytest.raises(BuildError, match="escapes the site folder"):
        write_site(tmp_path / "site", {"index.html": "new", "../outside.txt": "x"})
    assert snapshot(tmp_path / "site") == before
    assert siblings(tmp_path) == []
