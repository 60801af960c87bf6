#!/usr/bin/env python3
"""Write docs/api.md, the reference of ``import calib``, from the engine's own docstrings.

    .venv/bin/python tools/apidoc.py           # (re)writes docs/api.md
    .venv/bin/python tools/apidoc.py --check   # exit 1 if docs/api.md is not what this script writes now

Every name of ``calib.__all__``, grouped by the module that defines it (modules and names sorted): its
signature (functions and classes) or value (constants), and the first paragraph of its docstring (for a
constant, the comment on or just above its assignment). Standard library only (``inspect``, ``ast``), and
deterministic: no object addresses, no paths of this machine. tests/test_docs.py fails when the file is stale.
"""

import ast
import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "api.md"
ROLE = re.compile(r":(?:func|class|data|mod|meth|attr|exc|obj):`~?([^`]+)`")

HEADER = """\
# The engine's API (`import calib`)

Generated from the docstrings by `tools/apidoc.py`; do not edit by hand. After changing a public name or
its docstring, regenerate it with `.venv/bin/python tools/apidoc.py` (`tests/test_docs.py` fails while this
file is stale). Conventions shared by every function (array shapes, validation, a temperature as a scalar
or a grid, the binning schemes) are in [engine.md](engine.md).
"""


def first_paragraph(text):
    """The first paragraph of ``text`` as one line, reST roles (:func:`x`) written as code (`x`)."""
    paragraph = inspect.cleandoc(text or "").split("\n\n", 1)[0]
    return ROLE.sub(r"`\1`", " ".join(line.strip() for line in paragraph.splitlines())).strip()


def assigns(node, name):
    """Whether the top-level statement ``node`` assigns ``name`` (``NAME = …`` or ``NAME: type = …``)."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return any(isinstance(target, ast.Name) and target.id == name for target in targets)


def assignment_comment(module, name):
    """The comment on the line that assigns ``name`` at the top of ``module``, else the comment lines
    just above it; "" when there is none."""
    source = inspect.getsource(module)
    lines = source.splitlines()
    for node in ast.parse(source).body:
        if assigns(node, name):
            line = lines[node.lineno - 1]
            if "#" in line:
                return line.split("#", 1)[1].strip()
            above, i = [], node.lineno - 2
            while i >= 0 and lines[i].lstrip().startswith("#"):
                above.insert(0, lines[i].lstrip()[1:].strip())
                i -= 1
            return " ".join(above)
    return ""


def defining_module(package, name, obj):
    """The module of ``package`` that defines ``name``: a function's or class's ``__module__``, else the
    submodule that assigns it at top level."""
    module = getattr(obj, "__module__", None)
    if (inspect.isfunction(obj) or inspect.isclass(obj)) and module and module.startswith(package.__name__ + "."):
        return importlib.import_module(module)
    for path in sorted(Path(package.__file__).parent.glob("*.py")):
        candidate = importlib.import_module(f"{package.__name__}.{path.stem}") if path.stem != "__init__" else package
        try:
            tree = ast.parse(inspect.getsource(candidate))
        except (OSError, TypeError):
            continue
        if any(assigns(node, name) for node in tree.body):
            return candidate
    raise SystemExit(f"tools/apidoc.py: cannot tell which module of {package.__name__} defines {name}")


def entry(module, name, obj):
    """One name's Markdown: a heading, its signature or value, and its first paragraph."""
    if inspect.isclass(obj) or callable(obj):
        kind = "class" if inspect.isclass(obj) else "function"
        try:
            shown = f"{name}{inspect.signature(obj)}"
        except (TypeError, ValueError):
            shown = name
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            kind, shown = "exception", f"class {name}({obj.__bases__[0].__name__})"
        doc = first_paragraph(inspect.getdoc(obj))
    else:
        kind, shown = "constant", f"{name} = {obj!r}"
        doc = first_paragraph(assignment_comment(module, name))
    if re.search(r"0x[0-9a-f]{6,}", shown):
        raise SystemExit(f"tools/apidoc.py: {name}: an object address in {shown!r} would change every run")
    parts = [f"### `{name}`", "", f"*{kind}*", "", "```python", shown, "```", ""]
    if doc:
        parts += [doc, ""]
    return parts


def render():
    """The whole of docs/api.md as text."""
    sys.path.insert(0, str(ROOT))
    package = importlib.import_module("calib")
    modules = {}
    for name in package.__all__:
        obj = getattr(package, name)
        if inspect.ismodule(obj):  # a submodule exported whole (e.g. calib.datasets): its own section
            modules.setdefault(obj.__name__, (obj, []))
            continue
        module = defining_module(package, name, obj)
        modules.setdefault(module.__name__, (module, []))[1].append((name, obj))
    out = [HEADER, "Modules: " + ", ".join(f"[`{m}`](#{m.replace('.', '')})" for m in sorted(modules)) + ".", ""]
    for module_name in sorted(modules):
        module, names = modules[module_name]
        out += [f"## {module_name}", ""]
        summary = first_paragraph(module.__doc__)
        if summary:
            out += [summary, ""]
        for name, obj in sorted(names, key=lambda item: item[0]):
            out += entry(module, name, obj)
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    text = render()
    if argv == ["--check"]:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print("tools/apidoc.py: docs/api.md is stale: run .venv/bin/python tools/apidoc.py", file=sys.stderr)
            return 1
        return 0
    if argv:
        print("usage: tools/apidoc.py [--check]", file=sys.stderr)
        return 2
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"tools/apidoc.py: wrote {OUTPUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
