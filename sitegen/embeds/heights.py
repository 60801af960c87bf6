"""Each embed page's measured height, the home of the iframe snippet's starting height.

``tools/embed_heights.py`` loads every embed page (``embed/<widget>.html``, each language) in
Chromium at the widths of :data:`sitegen.common.settings.EMBED_MEASURED_WIDTHS`, waits for its scripts and
data, reads its content height and writes it into the ``[widgets]`` table of the panel manifest
(``templates/panels/manifest.toml``): ``<widget> = {<lang> = [<height at each width>, …]}``, CSS
pixels rounded up. The snippet starts at the height for the narrowest width (a column that narrow
fits any wider one); the Embed box also quotes the height for the widest.
"""

from sitegen.common.settings import EMBED_DEFAULT_HEIGHT, EMBED_MEASURED_WIDTHS
from sitegen.render.panels import widget_heights

__all__ = ["measured", "panels_key", "snippet_height", "wide_height"]


def measured(root, lang, name):
    """``{width: height}`` (CSS pixels) of widget ``name`` in language ``lang``, or ``{}`` when unmeasured."""
    heights = widget_heights(root).get(name, {}).get(lang)
    return dict(zip(EMBED_MEASURED_WIDTHS, heights)) if heights else {}


def panels_key(name, panels):
    """The manifest key of widget ``name`` cut to ``panels`` (a ``#state/panels=`` value), such as
    ``explorer#panels=reliability``."""
    return f"{name}#panels={panels}"


def snippet_height(root, lang, name):
    """The snippet's starting height: the measured one at the narrowest width, else the default."""
    return measured(root, lang, name).get(EMBED_MEASURED_WIDTHS[0], EMBED_DEFAULT_HEIGHT)


def wide_height(root, lang, name):
    """The measured height at the widest width (``None`` when unmeasured)."""
    return measured(root, lang, name).get(EMBED_MEASURED_WIDTHS[-1])
