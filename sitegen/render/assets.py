"""The stylesheet and the scripts as pages ship them: concatenated in ``order.txt`` order and minified.

The sources in ``static/`` keep their comments and layout; the page (whose first view counts every
byte) gets them without. Each file of the concatenation starts with a ``/* js/<file> */`` header so
that the build's messages can name the file a problem is in (:func:`script_files`); :func:`shipped`
drops the headers from what pages get.
"""

import re
from pathlib import Path

import rcssmin
import rjsmin

from sitegen.common.cache import memoized
from sitegen.common.errors import BuildError
from sitegen.common.style import TOKENS_MARK, css_properties, load_tokens
from sitegen.render.panels import expand_order

__all__ = ["APP_SCRIPT", "WIDGET_SCRIPT", "WIDGETS_MARK", "split_widgets", "minify", "read_static", "read_script",
           "shipped", "script_files", "inline_script"]

APP_SCRIPT = "app.js"  # the site's first script, shared by every language (sitegen.assemble.page.site_scripts)
WIDGET_SCRIPT = "widgets.js"  # the widgets' code, loaded by the first widget that starts (static/js/core.js)
WIDGETS_MARK = "<widgets>"  # the line of static/js/order.txt after which the scripts go to WIDGET_SCRIPT


@memoized("minify")  # pure: keyed by the kind, the source text and its name
def minify(kind, text, name):
    """``text``, the stylesheet (``kind`` "css") or classic script ("js") ``static/<kind>/<name>``, without
    its comments and the whitespace it never needs: rcssmin and rjsmin, maintained pure-Python minifiers
    (building needs no Node). Literals (strings; in scripts also templates and regular expressions) are
    copied as they are.

    rjsmin can join ``a < !--b`` into ``<!--`` (and ``a-- > b`` into ``-->``), which a classic script may
    read as a comment; a file where it would stops the build (write ``a < (!--b)``)."""
    out = rcssmin.cssmin(text) if kind == "css" else rjsmin.jsmin(text)
    for marker in ("<!--", "-->"):
        if out.count(marker) > text.count(marker):
            raise BuildError(f"static/{kind}/{name}: minified, it would hold {marker}, which a browser may read as "
                             "a comment: put parentheses where the two tokens meet")
    return out


def read_static(root):
    """The stylesheet and the script, each concatenated in its ``order.txt`` order and minified, with a
    ``/* css/<file> */`` or ``/* js/<file> */`` header before each file. The stylesheet's ``<tokens>`` line
    is the custom properties of sitegen/common/style_tokens.toml (:func:`sitegen.common.style.css_properties`)."""
    parts = {}
    for kind in ("css", "js"):
        folder = Path(root) / "static" / kind
        order_file = folder / "order.txt"
        if not order_file.exists():
            raise BuildError(f"{order_file} is missing")
        names = [line.strip() for line in order_file.read_text(encoding="utf-8").splitlines()
                 if line.strip() and not line.startswith("#")]
        names = expand_order(root, kind, names)  # "<panels>": the manifest's scripts or stylesheets
        chunks = []
        for name in names:
            if kind == "js" and name == WIDGETS_MARK:  # where widgets.js starts (split_widgets)
                chunks.append(f"/* js/{WIDGETS_MARK} */\n")
                continue
            if kind == "css" and name == TOKENS_MARK:  # the custom properties of sitegen/common/style_tokens.toml
                chunks.append("/* css/tokens */\n" + minify(kind, css_properties(load_tokens()), "tokens") + "\n")
                continue
            path = folder / name
            if not path.exists():
                raise BuildError(f"{order_file}: lists {name}, which does not exist")
            chunks.append(f"/* {kind}/{name} */\n" + minify(kind, path.read_text(encoding="utf-8"), name) + "\n")
        parts[kind] = "".join(chunks)
    return parts["css"], parts["js"]


def split_widgets(script):
    """``(first, widgets)``: the concatenated script of :func:`read_static` cut where order.txt's
    ``<widgets>`` line stands (all of it first when there is none)."""
    first, _, widgets = script.partition(f"/* js/{WIDGETS_MARK} */\n")
    return first, widgets


def read_script(root, name):
    """``static/js/<name>``, a script only some pages inline, minified like the others."""
    path = Path(root) / "static" / "js" / name
    if not path.is_file():
        raise BuildError(f"{path} is missing")
    return minify("js", path.read_text(encoding="utf-8"), name) + "\n"


_FILE_HEADERS = re.compile(r"^/\* (?:js|css)/\S+ \*/\n", re.M)
_SCRIPT_HEADER = re.compile(r"^/\* js/(\S+) \*/$", re.M)


def shipped(text):
    """The stylesheet or script as pages get it: without the ``/* js/<file> */`` headers, which only
    serve the build's own messages (a strings key a script reads names its file)."""
    return _FILE_HEADERS.sub("", text)


def script_files(script):
    """The concatenated script of :func:`read_static` back as ``[(file name, text)]``; text before the
    first header (none in a real build) is named ``(script)``."""
    parts = _SCRIPT_HEADER.split(script)
    return list(zip(["(script)", *parts[1::2]], parts[0::2]))


def inline_script(text):
    """A script's text made safe inside an HTML ``<script>`` element (no ``</script`` or ``<!--`` in it)."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.I).replace("<!--", "<\\!--")
