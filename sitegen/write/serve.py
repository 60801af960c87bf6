"""Serving a built site on loopback: the preview (``build.py --serve``), the browser tests and the page bench;
and the preview's watcher, which rebuilds the site when a source changes.

Only 127.0.0.1 is ever bound. With ``gzip=True`` every file goes out gzip-compressed (level 6) to a
client that accepts it, as a static host such as GitHub Pages would send it; without, files go out
as they are on disk. With ``prefix="/calibration-tutorial/"`` the site is served only under that
sub-path, as GitHub Pages serves a project site, and like Pages it answers 404 for dot-files
(upload-pages-artifact leaves them out).

The watcher (:class:`Watcher`, :func:`watch`) polls the modification times of the sources from a thread
(standard library only) and calls a rebuild when one changes. With ``reload=`` (a :class:`Builds`, the
preview only) every HTML page is sent with a small script added that polls ``/__build__`` and reloads
the page when a rebuild finished; the files on disk, and so the built site, never hold it.
"""

import contextlib
import functools
import gzip as gzip_module
import http.server
import io
import os
import sys
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["make_server", "serving", "Builds", "Watcher", "watch", "WATCHED", "POLL_SECONDS"]

HOST = "127.0.0.1"
BUILD_PATH = "/__build__"  # the preview's count of finished builds, for the reload script
# Added to each HTML page as it is sent by the preview (never written to the site): reload on a new build.
RELOAD_SCRIPT = ('<script>/* build.py --serve: reload when the site is rebuilt */(function(){{var built="{version}";'
                 'setInterval(function(){{fetch("' + BUILD_PATH + '",{{cache:"no-store"}}).then(function(r){{'
                 'return r.text()}}).then(function(now){{if(now!==built)location.reload()}},function(){{}})}},'
                 '1000)}})();</script>\n')


class Builds:
    """The preview's count of finished builds (``version``): pages it serves reload when it changes."""

    def __init__(self):
        self.version = 0


class StaticHandler(http.server.SimpleHTTPRequestHandler):
    """``SimpleHTTPRequestHandler`` with three switches: ``gzip`` responses, ``log`` lines on stderr and
    a sub-path ``prefix`` outside which (and for dot-files within which) everything is a 404."""

    gzip = False
    log = False
    prefix = "/"
    reload = None  # a Builds: the preview's reload script and BUILD_PATH

    def log_message(self, *args):
        if self.log:
            super().log_message(*args)

    def send_head(self):
        if self.reload is not None:
            sent = self._send_reloading()
            if sent is not None:
                return sent
        if self.prefix != "/":
            path = urlsplit(self.path).path
            rest = unquote(path[len(self.prefix):]) if path.startswith(self.prefix) else None
            if rest is None or any(part.startswith(".") for part in rest.split("/")):
                self.send_error(404)
                return None
            self.path = "/" + rest
        if not self.gzip or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().send_head()
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        if not os.path.isfile(path):
            return super().send_head()  # listings, redirects and 404s as usual
        with open(path, "rb") as handle:
            body = gzip_module.compress(handle.read(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


    def _send_reloading(self):
        """The build count at BUILD_PATH, or an HTML page with the reload script added; None for the rest."""
        path = urlsplit(self.path).path
        if path == BUILD_PATH:
            return self._send_body(str(self.reload.version).encode("ascii"), "text/plain; charset=utf-8")
        file = self.translate_path(self.path)
        if os.path.isdir(file) and path.endswith("/"):
            file = os.path.join(file, "index.html")
        if not (file.endswith(".html") and os.path.isfile(file)):
            return None
        with open(file, encoding="utf-8") as handle:
            html = handle.read()
        script = RELOAD_SCRIPT.format(version=self.reload.version)
        at = html.rfind("</body>")
        html = html[:at] + script + html[at:] if at >= 0 else html + script
        return self._send_body(html.encode("utf-8"), "text/html; charset=utf-8")

    def _send_body(self, body, content_type):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        return io.BytesIO(body)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's listen queue of 5 is below the six connections a browser opens at once to one host (each
    # request here is a connection of its own, HTTP/1.0): on a busy machine the kernel then drops the seventh's
    # SYN and the browser waits a second or more before it tries again
    request_queue_size = 64

    def handle_error(self, request, client_address):
        """A browser that leaves mid-response (a click on a link cancels the page's pending requests) is no
        error: say nothing, as a static host would; anything else prints its traceback as before."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def make_server(folder, port=0, *, gzip=False, log=False, prefix="/", reload=None):
    """A threading HTTP server for ``folder`` on 127.0.0.1:``port`` (0: any free port), not yet started.
    ``reload``: a :class:`Builds` (the preview only) adds the reload script to the pages it sends."""
    if not (prefix.startswith("/") and prefix.endswith("/")):
        raise ValueError(f"prefix must start and end with '/'; got {prefix!r}")
    handler = type("Handler", (StaticHandler,), {"gzip": gzip, "log": log, "prefix": prefix, "reload": reload})
    return _Server((HOST, port), functools.partial(handler, directory=str(folder)))


@contextlib.contextmanager
def serving(folder, port=0, *, gzip=False, log=False, prefix="/", reload=None):
    """Serve ``folder`` from a background thread while the block runs; yields the base URL (ending in "/")."""
    server = make_server(folder, port, gzip=gzip, log=log, prefix=prefix, reload=reload)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# What a preview rebuilds on: the prose and strings, the templates, the static files, the page code and
# the engine (and build.py itself).
WATCHED = ("content", "templates", "static", "sitegen", "calib", "build.py")
POLL_SECONDS = 0.5


def _ignored(name):
    """Names no build reads: caches, dot-files (editors' swap and lock files) and backup files."""
    return name == "__pycache__" or name.startswith((".", "#")) or name.endswith(("~", ".pyc", ".swp"))


class Watcher:
    """The sources under ``root`` (``paths``: folders, walked recursively, and files; plus ``extra``
    absolute paths such as a ``--data`` file) by modification time and size. :meth:`step` rescans and
    returns the paths that changed, appeared or disappeared since the last scan (empty: nothing did)."""

    def __init__(self, root, paths=WATCHED, extra=()):
        self.root = Path(root)
        self.paths = [self.root / name for name in paths] + [Path(path) for path in extra]
        self.state = self.scan()

    def scan(self):
        """``{path: (mtime_ns, size)}`` of every watched file that exists now."""
        found = {}
        for top in self.paths:
            if top.is_file():
                stat = top.stat()
                found[str(top)] = (stat.st_mtime_ns, stat.st_size)
                continue
            for folder, dirs, files in os.walk(top):
                dirs[:] = sorted(name for name in dirs if not _ignored(name))
                for name in files:
                    if not _ignored(name):
                        path = os.path.join(folder, name)
                        with contextlib.suppress(OSError):  # removed between listing and stat
                            stat = os.stat(path)
                            found[path] = (stat.st_mtime_ns, stat.st_size)
        return found

    def step(self):
        """The paths that changed since the last call (or since the watcher was made), sorted."""
        now = self.scan()
        changed = sorted(path for path in now.keys() | self.state.keys() if now.get(path) != self.state.get(path))
        self.state = now
        return changed


def watch(watcher, rebuild, stop, interval=POLL_SECONDS):
    """Every ``interval`` seconds until the event ``stop`` is set: when :meth:`Watcher.step` reports
    changes, call ``rebuild(changed)``. Meant for a daemon thread; a rebuild that raises ends nothing."""
    while not stop.wait(interval):
        changed = watcher.step()
        if changed:
            try:
                rebuild(changed)
            except Exception as error:  # noqa: BLE001 (the preview keeps serving the last good site)
                print(f"build.py: rebuild failed: {error.__class__.__name__}: {error}", file=sys.stderr, flush=True)
