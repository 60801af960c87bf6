"""Serving a built site on loopback: the preview (``build.py --serve``), the browser tests and the page bench.

Only 127.0.0.1 is ever bound. With ``gzip=True`` every file goes out gzip-compressed (level 6) to a
client that accepts it, as a static host such as GitHub Pages would send it; without, files go out
as they are on disk. With ``prefix="/calibration-tutorial/"`` the site is served only under that
sub-path, as GitHub Pages serves a project site, and like Pages it answers 404 for dot-files
(upload-pages-artifact leaves them out).
"""

import contextlib
import functools
import gzip as gzip_module
import http.server
import io
import os
import threading
from urllib.parse import unquote, urlsplit

__all__ = ["make_server", "serving"]

HOST = "127.0.0.1"


class StaticHandler(http.server.SimpleHTTPRequestHandler):
    """``SimpleHTTPRequestHandler`` with three switches: ``gzip`` responses, ``log`` lines on stderr and
    a sub-path ``prefix`` outside which (and for dot-files within which) everything is a 404."""

    gzip = False
    log = False
    prefix = "/"

    def log_message(self, *args):
        if self.log:
            super().log_message(*args)

    def send_head(self):
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


def make_server(folder, port=0, *, gzip=False, log=False, prefix="/"):
    """A threading HTTP server for ``folder`` on 127.0.0.1:``port`` (0: any free port), not yet started."""
    if not (prefix.startswith("/") and prefix.endswith("/")):
        raise ValueError(f"prefix must start and end with '/'; got {prefix!r}")
    handler = type("Handler", (StaticHandler,), {"gzip": gzip, "log": log, "prefix": prefix})
    server = http.server.ThreadingHTTPServer((HOST, port), functools.partial(handler, directory=str(folder)))
    server.daemon_threads = True
    return server


@contextlib.contextmanager
def serving(folder, port=0, *, gzip=False, log=False, prefix="/"):
    """Serve ``folder`` from a background thread while the block runs; yields the base URL (ending in "/")."""
    server = make_server(folder, port, gzip=gzip, log=log, prefix=prefix)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
