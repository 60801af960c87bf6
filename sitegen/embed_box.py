"""What an "Embed" box says beside its snippet (templates/embed-box.html.j2), one function per part,
so the page's renderer passes one dict: ``box_context(root, lang, widget)``."""

from pathlib import Path

from .embed_heights import wide_height
from .embed_theme import THEMES
from .settings import EMBED_MEASURED_WIDTHS

__all__ = ["RESIZER", "box_context", "resizer_path", "resizer_script"]

RESIZER = "resizer.js"  # static/js/resizer.js, published beside each edition's embed pages


def box_context(root, lang, widget):
    """The names the embed box template reads beyond ``widget`` and ``snippet``: the measured widths
    and the height for the widest (``None`` when unmeasured), CSS pixels; the colour schemes offered;
    the address of the resizer script (absolute with a base URL, else relative to the page)."""
    return {"narrow_width": EMBED_MEASURED_WIDTHS[0], "wide_width": EMBED_MEASURED_WIDTHS[-1],
            "wide_height": wide_height(root, lang, widget.name), "themes": THEMES,
            "resizer_src": widget.src.rsplit("/", 1)[0] + "/" + RESIZER}


def resizer_path(widget):
    """Where the resizer script goes in the site: beside ``widget``'s embed page (e.g. ``es/embed/resizer.js``)."""
    return widget.path.rsplit("/", 1)[0] + "/" + RESIZER


def resizer_script(root):
    """The resizer script's text, ``static/js/resizer.js`` of the site in ``root``."""
    return (Path(root) / "static" / "js" / RESIZER).read_text(encoding="utf-8")
