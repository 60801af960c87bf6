"""The explorer's panel manifest, ``templates/panels/manifest.toml``: one record per panel or control.

A record names what the page needs to show one panel (or one control) of the explorer macro
(``templates/components/_explorer.html.j2``): its markup templates (one per slot of the explorer:
``head`` above the slider, ``buttons`` beside the T = 1 and fitted-T buttons, ``body`` below them,
or the name of another record whose markup offers that slot), the state keys it reads or writes, its
JavaScript view (a classic script in ``static/js`` that registers itself with ``CT.explorerView``) and
its stylesheet, if any. Everything else follows from the manifest: the panel names the macro accepts,
the markup it renders, the scripts and stylesheets of the page (in manifest order, where
``static/<kind>/order.txt`` says ``<panels>``) and the group radios (shown where a panel reads
``group``). ``[widgets]`` holds each embeddable widget's measured heights (``sitegen.embeds.heights``,
written by ``tools/embed_heights.py``). docs/panels.md is the recipe.
"""

import tomllib
from pathlib import Path
from typing import NamedTuple

from sitegen.common.errors import BuildError
from sitegen.common.settings import EMBED_MEASURED_WIDTHS

__all__ = ["Entry", "MANIFEST", "PANELS_MARK", "SLOTS", "load_manifest", "template_globals", "expand_order",
           "widget_heights"]

MANIFEST = Path("templates") / "panels" / "manifest.toml"
PANELS_MARK = "<panels>"           # the line of static/<kind>/order.txt where the manifest's files go
SLOTS = ("head", "buttons", "body")  # the explorer's own slots, in page order
KINDS = ("panel", "control")
PRINTS_ECE = ("always", "offered")  # a panel prints the ECE at the slider's T: always, or at the offered bin counts
_FIELDS = {"name", "kind", "markup", "reads", "writes", "script", "style", "prints_ece", "lab", "doc"}
# where the lab's wide layout puts a panel: beside the figures with the controls (side), or among them (main)
LAB_COLUMNS = ("side", "main")


class Entry(NamedTuple):
    """One panel or control of the explorer."""

    name: str        # what a component passes in ``panels=(…)``
    kind: str        # "panel" (draws state) or "control" (writes it)
    markup: dict     # slot -> template (relative to templates/), rendered once per explorer even if shared
    reads: tuple     # the state keys its view reads
    writes: tuple    # the state keys it writes (controls)
    script: str      # its view, static/js/<script> ("" for none)
    style: str       # its stylesheet, static/css/<style> ("" for none)
    prints_ece: str  # "always" / "offered" when it prints the ECE at the slider's T (the slider says it then), else ""
    lab: str         # the lab's column on wide screens: "side" (with the controls, sticky) or "main" (the figures)


def _entry(record, where):
    unknown = set(record) - _FIELDS
    if unknown:
        raise BuildError(f"{where}: unknown field {sorted(unknown)[0]!r} (known: {', '.join(sorted(_FIELDS))})")
    if not isinstance(record.get("name"), str) or not record["name"]:
        raise BuildError(f"{where}: a [[panel]] needs a name")
    name = record["name"]
    kind = record.get("kind", "panel")
    if kind not in KINDS:
        raise BuildError(f"{where}: panel {name}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    prints = record.get("prints_ece", "")
    if prints and prints not in PRINTS_ECE:
        raise BuildError(f"{where}: panel {name}: prints_ece must be one of {', '.join(PRINTS_ECE)}, not {prints!r}")
    lab = record.get("lab", "main")
    if lab not in LAB_COLUMNS:
        raise BuildError(f"{where}: panel {name}: lab must be one of {', '.join(LAB_COLUMNS)}, not {lab!r}")
    markup = record.get("markup", {})
    if not isinstance(markup, dict):
        raise BuildError(f"{where}: panel {name}: markup must be a table {{slot = \"template\"}}")
    return Entry(name=name, kind=kind, markup=dict(markup), reads=tuple(record.get("reads", ())),
                 writes=tuple(record.get("writes", ())), script=record.get("script", ""),
                 style=record.get("style", ""), prints_ece=prints, lab=lab)


def load_manifest(root):
    """``(entries, widgets)`` of ``root``'s manifest: the :class:`Entry` list in page order and
    ``{widget: {lang: [height at each of EMBED_MEASURED_WIDTHS]}}`` (CSS pixels). A malformed manifest
    stops the build naming the file."""
    path = Path(root) / MANIFEST
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BuildError(f"{path} is missing") from None
    except tomllib.TOMLDecodeError as error:
        raise BuildError(f"{path}: {error}") from None
    entries = [_entry(record, path) for record in data.get("panel", [])]
    names = [e.name for e in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise BuildError(f"{path}: panel {twice[0]} is declared twice")
    slots = set(SLOTS) | set(names)
    for e in entries:
        for slot in e.markup:
            if slot not in slots:
                raise BuildError(f"{path}: panel {e.name}: unknown slot {slot!r} (a slot is one of "
                                 f"{', '.join(SLOTS)} or another panel's name)")
    widgets = data.get("widgets", {})
    for name, langs in widgets.items():
        def good(heights):
            return (isinstance(heights, list) and len(heights) == len(EMBED_MEASURED_WIDTHS)
                    and all(isinstance(x, int) and x > 0 for x in heights))
        if not isinstance(langs, dict) or not all(good(h) for h in langs.values()):
            raise BuildError(f"{path}: [widgets] {name}: give {{<lang> = [<height>, …]}}, one positive whole height in "
                             f"CSS pixels per width of EMBED_MEASURED_WIDTHS {list(EMBED_MEASURED_WIDTHS)}")
    return entries, dict(widgets)


def template_globals(templates_dir):
    """The names the explorer macro reads from the manifest of the site whose templates are ``templates_dir``:
    ``explorer_panels`` (the names, in page order), ``explorer_markup(panels, slot)`` (the templates to
    include in ``slot`` for those panels, each once), ``panels_reading(panels, key)`` (those of ``panels``
    whose view reads state ``key``), ``panels_printing_ece(panels, offered)`` (whether one of them prints
    the ECE at the slider's T; ``offered``: the bin count shown is an offered one) and
    ``panels_of_markup(panels, template)`` (those of ``panels`` whose markup is ``template``) and
    ``lab_column(panels, template)`` (the lab layout's column of that markup: "side" or "main")."""
    entries, _ = load_manifest(Path(templates_dir).parent)
    by_name = {e.name: e for e in entries}

    def markup(panels, slot):
        chosen, seen = [], set()
        for e in entries:
            template = e.markup.get(slot) if e.name in panels else None
            if template and template not in seen:
                seen.add(template)
                chosen.append(template)
        return chosen

    def reading(panels, key):
        return [p for p in panels if p in by_name and key in by_name[p].reads]

    def printing_ece(panels, offered):
        kinds = {by_name[p].prints_ece for p in panels if p in by_name}
        return "always" in kinds or (offered and "offered" in kinds)

    def names_of(panels, template):
        return [e.name for e in entries if e.name in panels and template in e.markup.values()]

    def column_of(panels, template):
        return "side" if any(e.lab == "side" for e in entries if e.name in panels and template in e.markup.values()) \
            else "main"

    return {"explorer_panels": tuple(by_name), "explorer_markup": markup, "panels_reading": reading,
            "panels_printing_ece": printing_ece, "panels_of_markup": names_of, "lab_column": column_of}


def expand_order(root, kind, names):
    """``names`` (the files of ``static/<kind>/order.txt``, ``kind`` "js" or "css") with the line
    ``<panels>`` replaced by the manifest's scripts (or stylesheets), in manifest order, each once."""
    if PANELS_MARK not in names:
        return names
    entries, _ = load_manifest(root)
    own = []
    for e in entries:
        name = e.script if kind == "js" else e.style
        if name and name not in own and name not in names:
            own.append(name)
    at = names.index(PANELS_MARK)
    return names[:at] + own + names[at + 1:]


def widget_heights(root):
    """``{widget: {lang: [height at each of EMBED_MEASURED_WIDTHS]}}``, the manifest's ``[widgets]`` table."""
    return load_manifest(root)[1]
