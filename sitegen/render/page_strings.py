"""An edition's interface strings as its page uses them.

The strings tables (``content/<lang>/strings.toml``, loaded by :func:`sitegen.content.sections.load_strings`)
quote some engine constants as placeholders, which :func:`filled_strings` fills in the edition's
language. The page's scripts read the ``[ui]`` table from a JSON element (:func:`strings_json`) that
carries only the keys the scripts read (:func:`script_ui`); :func:`require_script_strings` stops the
build when a script reads a key the table lacks.
"""

import json
import re

import markupsafe

from sitegen.common.errors import BuildError
from sitegen.common.numbers import number_filters
from sitegen.common.settings import EXERCISE_MINUTES, FIGURE_MINUTES, WORDS_PER_MINUTE
from sitegen.content.sections import _missing
from sitegen.render.assets import script_files

__all__ = ["engine_constants", "fill_constants", "filled_strings", "script_ui", "require_script_strings",
           "strings_json"]


# Placeholders of the strings tables that the build fills from the engine's settings, so no string
# types an engine constant as a word. (Other placeholders, {t}, {ece}, …, are filled later.)
def engine_constants(facts, filters):
    """``{placeholder: text}`` of the engine constants the strings quote, written with ``filters``."""
    an, recipe = facts["an"], facts["recipe"]
    return {
        "table_bins": str(facts["table_bins"]),
        "max_bins": str(an.max_bins),
        "spread_lo": filters["fixed"](an.spread_q.lo * 100, 0), "spread_hi": filters["pct"](an.spread_q.hi, 0),
        "band_lo": filters["fixed"](an.band_q.lo * 100, 0), "band_hi": filters["pct"](an.band_q.hi, 0),
        "floor_lo": filters["pct"](an.floor_q.lo, 0), "floor_hi": filters["pct"](an.floor_q.hi, 0),
        "floor_hi_rank": filters["fixed"](an.floor_q.hi * 100, 0),
        "sim_logit_range": filters["interval"]((0, recipe.sim_logit_range)),
        "sim_60_n": filters["thousands"](facts["sim_60"].n),
        "overconfident_sharpness": filters["num"](recipe.overconfident_sharpness),
        # the contents' timing rule (sitegen.content.reading_time)
        "pace": filters["thousands"](WORDS_PER_MINUTE), "figure_minutes": filters["num"](FIGURE_MINUTES),
        "exercise_minutes": filters["num"](EXERCISE_MINUTES),
    }


def fill_constants(strings, constants, counts):
    """A copy of the strings table with the engine's constants filled in; ``counts`` gives each
    ``[datasets.<name>]`` table its ``{n}`` (the dataset's rows)."""
    def fill(value, extra):
        if isinstance(value, dict):
            filled = type(value).__new__(type(value))
            dict.__init__(filled, {k: fill(v, extra) for k, v in value.items()})
            filled.__dict__.update(getattr(value, "__dict__", {}))
            return filled
        if isinstance(value, str):
            for name, text in {**constants, **extra}.items():
                value = value.replace("{" + name + "}", text)
        return value

    result = fill(strings, {})
    for name, table in strings["datasets"].items():
        result["datasets"][name] = fill(table, {"n": counts[name]} if name in counts else {})
    return result


def filled_strings(strings, facts, datasets):
    """An edition's strings table as its page shows it: :func:`fill_constants` with the engine's constants
    written in its language, and each dataset's row count (``datasets``: name → precomputed result)."""
    filters = number_filters(strings["format"])
    return fill_constants(strings, engine_constants(facts, filters),
                          {name: filters["thousands"](r.dataset.labels.size) for name, r in datasets.items()})


# How the scripts read the [ui] table: ui.name, ui["name"] or ui["prefix" + …]; anything else that
# names the table (ui[key], another name for it) could read a string script_ui leaves out.
_UI_NAME = re.compile(r"\bui\.([A-Za-z_]\w*)")
_UI_KEY = re.compile(r'\bui\[\s*"([\w-]+)"\s*(\+)?')
_UI_OTHER = re.compile(r'\bui\[(?!\s*"[\w-]+"\s*[\]+])'
                       r'|(?<!\bui = CT\.strings\(\))(?<!\bui=CT\.strings\(\))\.ui\b(?!\s*[.\[])')


def script_ui(ui, script):
    """The part of the ``[ui]`` table that ``script`` (the concatenated scripts, with their ``/* js/file */``
    headers) reads: ``ui.name`` and ``ui["name"]``, and every key starting with ``prefix`` for
    ``ui["prefix" + …]``. The page's strings JSON carries only these: the labels that templates write
    are in the HTML already. A script reading the table any other way stops the build, naming its file."""
    exact, prefixes = set(), set()
    for name, body in script_files(script):
        other = _UI_OTHER.search(body)
        if other:
            raise BuildError(f"static/js/{name}: reads the [ui] strings as "
                             f"{body[other.start():other.start() + 30]!r}: write ui.name, ui[\"name\"] or "
                             f"ui[\"prefix\" + …] (or var ui = CT.strings().ui), so the page ships what it reads")
        exact.update(_UI_NAME.findall(body))
        for key, plus in _UI_KEY.findall(body):
            (prefixes if plus else exact).add(key)
    return {key: value for key, value in ui.items()
            if key in exact or any(key.startswith(prefix) for prefix in prefixes)}


def require_script_strings(script, strings):
    """Refuse a ``[ui]`` table lacking a key the page's scripts read as ``ui.name``.

    ``script`` is the concatenated JavaScript with its ``/* js/file */``
    headers, so the message can name the file. (A key built at run time, such
    as ``ui["scheme_" + scheme]``, cannot be seen here.)
    """
    for name, body in script_files(script):
        for match in _UI_NAME.finditer(body):
            if match.group(1) not in strings["ui"]:
                lacking = _missing(strings['ui'], match.group(1)) or 'strings.toml: [ui] lacks ' + match.group(1)
                raise BuildError(f"{lacking} (static/js/{name} reads ui.{match.group(1)})")


def strings_json(strings, script):
    """The strings the page's scripts read, as the text of its ``<script type="application/json">``: the
    ``[ui]`` keys of :func:`script_ui`, the ``[format]`` table and each dataset's ``short`` and ``summary``."""
    script_strings = {"ui": script_ui(strings["ui"], script), "format": strings["format"],
                      "datasets": {name: {"short": table["short"], "summary": table["summary"]}
                                   for name, table in strings["datasets"].items()}}
    # Inside <script>: no "</" (it could close the element) and no "<!--" (it could make the parser miss the end).
    return markupsafe.Markup(json.dumps(script_strings, sort_keys=True, ensure_ascii=False)
                             .replace("</", "<\\/").replace("<!--", "\\u003c!--"))
