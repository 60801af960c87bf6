"""What an "Embed" box says beside its snippet (templates/embed-box.html.j2), one function per part,
so the page's renderer passes one dict: ``box_context(root, lang, widget)``."""

from .embed_heights import wide_height
from .embed_theme import THEMES
from .settings import EMBED_MEASURED_WIDTHS

__all__ = ["box_context"]


def box_context(root, lang, widget):
    """The names the embed box template reads beyond ``widget`` and ``snippet``: the measured widths
    and the height for the widest (``None`` when unmeasured), CSS pixels; the colour schemes offered."""
    return {"narrow_width": EMBED_MEASURED_WIDTHS[0], "wide_width": EMBED_MEASURED_WIDTHS[-1],
            "wide_height": wide_height(root, lang, widget.name), "themes": THEMES}
