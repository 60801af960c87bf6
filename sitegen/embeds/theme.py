"""The colour scheme an embed page asks for with ``#state/theme=light|dark|auto`` (docs/links.md).

The full page follows the reader's system (base.css: the dark palette inside
``@media (prefers-color-scheme: dark)``). An embed page starts ``<html data-theme="light">``, which that
media query skips, so it matches a white course page; ``theme=auto`` drops the attribute (the system
decides again) and ``theme=dark`` sets ``data-theme="dark"``, whose rule this module writes from the
stylesheet's own dark palette, so that palette keeps one home.
"""

import re

from sitegen.common.errors import BuildError

__all__ = ["THEMES", "themed_css"]

THEMES = ("light", "dark", "auto")  # the values of theme=, the first the embed pages' default
_DARK_ROOT = re.compile(r"@media\s*\(\s*prefers-color-scheme\s*:\s*dark\s*\)\s*\{\s*:root[^{]*\{([^}]*)\}")


def themed_css(css):
    """``css`` (the site's stylesheet) with the rules of an embed page's forced schemes appended:
    ``:root[data-theme="dark"]`` takes the dark palette, each forced scheme its ``color-scheme``."""
    match = _DARK_ROOT.search(css)
    if not match:
        raise BuildError("static/css/base.css: no :root block inside @media (prefers-color-scheme: dark)")
    palette = " ".join(line.strip() for line in match.group(1).strip().splitlines())
    return (css + '\n:root[data-theme="light"] { color-scheme: light; }\n'
            f':root[data-theme="dark"] {{ color-scheme: dark; {palette} }}\n')
