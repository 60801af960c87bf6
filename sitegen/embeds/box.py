"""What an "Embed" box says beside its snippet (templates/embed-box.html.j2), one function per part,
so the page's renderer passes one dict: ``box_context(root, lang, widget)``."""

from pathlib import Path

from sitegen.common.settings import EMBED_MEASURED_WIDTHS, EMBED_PANEL_CHOICES
from sitegen.embeds.heights import measured, panels_key, wide_height
from sitegen.embeds.theme import THEMES

__all__ = ["RESIZER", "box_context", "resizer_path", "resizer_script"]

RESIZER = "resizer.js"  # static/js/resizer.js, published once, in the root's embed folder (embed/resizer.js)


def box_context(root, lang, widget):
    """The names the embed box template reads beyond ``widget`` and ``snippet``: the measured widths
    and the height for the widest (``None`` when unmeasured), CSS pixels; the colour schemes offered;
    the address of the resizer script (absolute with a base URL, else relative to the page); the slimmer
    versions offered (``panels``: each ``{value, height, wide_height}``, measured ones only)."""
    return {"narrow_width": EMBED_MEASURED_WIDTHS[0], "wide_width": EMBED_MEASURED_WIDTHS[-1],
            "wide_height": wide_height(root, lang, widget.name), "themes": THEMES,
            "resizer_src": _resizer_src(widget), "panels": _panel_choices(root, lang, widget.name)}


def _panel_choices(root, lang, name):
    """The slimmer versions of widget ``name`` whose heights were measured in ``lang``."""
    choices = []
    for value in EMBED_PANEL_CHOICES.get(name, ()):
        heights = measured(root, lang, panels_key(name, value))
        if heights:
            choices.append({"value": value, "height": heights[EMBED_MEASURED_WIDTHS[0]],
                            "wide_height": heights[EMBED_MEASURED_WIDTHS[-1]]})
    return choices


def resizer_path(widget):
    """Where the resizer script goes in the site: the root's embed folder, for every edition (``embed/resizer.js``)."""
    return widget.path.split("/")[-2] + "/" + RESIZER


def _resizer_src(widget):
    """The resizer's address from ``widget``'s page: absolute when the snippet's is, else relative to
    the edition's page (``../embed/resizer.js`` from ``es/index.html``)."""
    if "://" in widget.src:
        return widget.src[:-len(widget.path)] + resizer_path(widget)
    return "../" * (widget.path.count("/") - 1) + resizer_path(widget)


def resizer_script(root):
    """The resizer script's text, ``static/js/resizer.js`` of the site in ``root``."""
    return (Path(root) / "static" / "js" / RESIZER).read_text(encoding="utf-8")
