"""The engine is a library: nothing in ``calib`` needs the page, Jinja, Markdown or matplotlib,
and its modules import each other without a cycle.

Dependencies point one way: ``build.py`` → ``sitegen`` → ``calib``.
"""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "calib"
PAGE_ONLY = ("sitegen", "jinja2", "markupsafe", "markdown", "latex2mathml", "matplotlib", "rjsmin", "rcssmin")


def engine_modules():
    """Every module of the engine by dotted name: ``calib`` and ``calib.<file>``."""
    return ["calib"] + [f"calib.{path.stem}" for path in sorted(ENGINE.glob("*.py")) if path.stem != "__init__"]


def imported_modules(path, package="calib"):
    """The absolute names of the modules ``path`` imports (relative imports resolved within ``package``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package if node.module is None else f"{package}.{node.module}"
                if node.module is None:  # from . import x
                    names.update(f"{package}.{alias.name}" for alias in node.names)
                else:
                    names.add(base)
            else:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_every_engine_module_imports_with_the_page_libraries_unimportable():
    blocker = f"""
import importlib.abc, sys
BLOCKED = {PAGE_ONLY!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is blocked: the engine must not need it")
        return None
sys.meta_path.insert(0, Block())
import importlib
for name in {engine_modules()!r}:
    importlib.import_module(name)
print(sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED))
"""
    done = subprocess.run([sys.executable, "-c", blocker], capture_output=True, text=True, cwd=str(ROOT), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_blocker_really_blocks():
    """The same blocker stops the page package's use of matplotlib (so the test above can fail); figures.py
    imports it when it first draws."""
    code = ("import importlib.abc, sys\n"
            "class Block(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'matplotlib':\n"
            "            raise ImportError('blocked')\n"
            "sys.meta_path.insert(0, Block())\n"
            "import sitegen.figures.static_svg\n"
            "sitegen.figures.static_svg._pyplot()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT), timeout=120)
    assert done.returncode != 0 and "blocked" in done.stderr


def test_no_engine_module_imports_the_page_or_its_libraries():
    for path in sorted(ENGINE.glob("*.py")):
        roots = {name.split(".")[0] for name in imported_modules(path)}
        assert not roots & set(PAGE_ONLY), f"{path.relative_to(ROOT)} imports {sorted(roots & set(PAGE_ONLY))}"


def test_the_engine_import_graph_has_no_cycle():
    modules = set(engine_modules())
    graph = {}
    for path in sorted(ENGINE.glob("*.py")):
        name = "calib" if path.stem == "__init__" else f"calib.{path.stem}"
        graph[name] = sorted((imported_modules(path) & modules) - {name})
    # the package imports its modules to re-export them; a module importing the package would close a cycle
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in graph.get(node, ()):
            if state.get(target) == "open":
                cycle = stack[stack.index(target):] + [target]
                raise AssertionError("import cycle: " + " → ".join(cycle))
            if target not in state:
                visit(target)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert "calib.fitting" in graph and graph["calib"], graph  # the graph was really read


def test_imported_modules_resolves_relative_imports():
    path = ENGINE / "subgroups.py"
    names = imported_modules(path)
    assert {"calib.binning", "calib.fitting", "calib.scaling", "calib.datasets"} <= names


def listed_modules(text):
    """``{folder: {file names}}`` of the module list in architecture.md: a line with no indent names a top
    folder (``calib/``), an indented name ending in ``/`` a subpackage of the folder above it, and the first
    word(s) of a deeper line its files (``a.js, b.js`` lists several)."""
    layout = text.split("\n## Modules\n", 1)[1].split("```", 2)[1]
    listed, stack = {}, []
    for line in layout.splitlines():
        if not line.strip() or line.startswith(" " * 20):
            continue  # blank, or a description's continuation line
        depth = (len(line) - len(line.lstrip(" "))) // 2
        tokens = line.split()
        if depth == 0:
            stack = [tokens[0].rstrip("/")]
            continue
        names = []
        for token in tokens:  # "a.js, b.js  what they do": names go on while a comma follows
            if not token.rstrip(",").endswith((".py", ".js", "/")):
                break
            names.append(token.rstrip(","))
            if not token.endswith(","):
                break
        if names and names[0].endswith("/"):
            stack = stack[:depth] + [names[0].rstrip("/")]
        for name in names:
            if not name.endswith("/"):
                listed.setdefault("/".join(stack[:depth]), set()).add(name)
    return listed


def test_listed_modules_reads_folders_subpackages_and_lists():
    text = ("\n## Modules\n```\ncalib/    x\n  a.py     y\n                   more\nsitegen/   z\n  b.py  w\n"
            "  pkg/      p\n    c.py    q\nstatic/js  s\n  d.js, e.js   one each\n```\n")
    assert listed_modules(text) == {"calib": {"a.py"}, "sitegen": {"b.py"}, "sitegen/pkg": {"c.py"},
                                    "static/js": {"d.js", "e.js"}}


def test_the_architecture_module_list_names_every_module_and_script():
    listed = listed_modules((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    actual = {"calib": {p.name for p in ENGINE.glob("*.py")},
              "static/js": {p.name for p in (ROOT / "static" / "js").glob("*.js")}}
    for path in (ROOT / "sitegen").rglob("*.py"):
        actual.setdefault(path.parent.relative_to(ROOT).as_posix(), set()).add(path.name)
    for folder in actual:
        if folder != "sitegen" and folder.startswith("sitegen/"):
            actual[folder].discard("__init__.py")  # a subpackage's own line describes its __init__
    missing = {f: sorted(names - listed.get(f, set())) for f, names in actual.items() if names - listed.get(f, set())}
    extra = {f: sorted(names - actual.get(f, set())) for f, names in listed.items()
             if f in actual and names - actual[f]}
    assert not missing and not extra, f"not listed: {missing}; listed but absent: {extra}"


def test_every_module_and_script_opens_by_saying_its_job():
    """Every module of calib/ and sitegen/ (and build.py, tools/) has a docstring whose first line says what
    it does, and every script of static/js/ opens with a comment ``/* <file> — <its job>``."""
    vague = []
    for path in sorted([*ENGINE.glob("*.py"), *(ROOT / "sitegen").rglob("*.py"), ROOT / "build.py",
                        *(ROOT / "tools").glob("*.py")]):
        text = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        first = text.strip().split("\n", 1)[0]
        if len(first.split()) < 4:
            vague.append(f"{path.relative_to(ROOT)}: {first!r}")
    for path in sorted((ROOT / "static" / "js").glob("*.js")):
        head = path.read_text(encoding="utf-8").lstrip().split("\n", 1)[0]
        if not head.startswith(f"/* {path.name} — ") or len(head.split()) < 6:
            vague.append(f"{path.relative_to(ROOT)}: {head!r}")
    assert not vague, "these do not open by saying their job:\n" + "\n".join(vague)


# The page's packages in pipeline order (docs/architecture.md, "The pipeline"): a module may import its own
# package and any earlier one, never a later one; common/ comes first, so every stage may import it.
STAGES = ("common", "content", "compute", "analyses", "facts", "yours", "figures", "render", "embeds", "assemble",
          "write")


def sitegen_graph():
    """``{module: imported sitegen modules}`` for every module under sitegen/ (dotted names)."""
    graph = {}
    for path in sorted((ROOT / "sitegen").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = ".".join(parts[:-1])
        graph[name] = sorted(m for m in imported_modules(path, package) if m.startswith("sitegen."))
    return graph


def test_every_sitegen_module_is_in_a_stage_package():
    loose = [name for name in sitegen_graph() if name.count(".") == 1 and name.split(".")[1] not in STAGES]
    assert not loose, f"modules outside the stage packages: {loose}"
    assert {p.name for p in (ROOT / "sitegen").iterdir() if p.is_dir() and p.name != "__pycache__"} == set(STAGES)


def test_no_package_imports_a_later_stage():
    wrong = []
    for name, targets in sitegen_graph().items():
        if name == "sitegen":
            continue
        own = STAGES.index(name.split(".")[1])
        for target in targets:
            stage = target.split(".")[1] if target.count(".") else None
            if stage in STAGES and STAGES.index(stage) > own:
                wrong.append(f"{name} imports {target}")
    assert not wrong, "a stage imports a later one:\n" + "\n".join(wrong)


def test_the_stage_rule_can_fail(tmp_path):
    """The rule above reads imports as written: an earlier stage importing a later one is found."""
    path = tmp_path / "probe.py"
    path.write_text("from sitegen.render.payload import to_script\nfrom . import sibling\n", encoding="utf-8")
    assert imported_modules(path, "sitegen.facts") >= {"sitegen.render.payload", "sitegen.facts.sibling"}


def test_the_sitegen_import_graph_has_no_cycle():
    graph = sitegen_graph()
    modules = set(graph)
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in graph.get(node, ()):
            target = target if target in modules else target.rsplit(".", 1)[0]  # from x.y import name
            if target not in modules or target == node:
                continue
            if state.get(target) == "open":
                raise AssertionError("import cycle: " + " → ".join(stack[stack.index(target):] + [target]))
            if target not in state:
                visit(target)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert "sitegen.assemble.page" in graph and len(graph["sitegen.assemble.page"]) > 10  # really read


PAGE_SIDE = sorted((ROOT / "sitegen").rglob("*.py")) + [ROOT / "build.py"]


def calib_imports(path):
    """``(line, what)`` of every import of the engine in ``path``: ``"calib.x"`` for a submodule import
    (``import calib.x``, ``from calib.x import y``), else the name taken from ``calib`` (``from calib import y``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names
                      if alias.name.startswith("calib.")]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module == "calib":
                found += [(node.lineno, alias.name) for alias in node.names]
            elif node.module.startswith("calib."):
                found += [(node.lineno, node.module)]
    return found


def test_the_page_side_imports_only_the_engines_public_api():
    """``sitegen`` and ``build.py`` take from ``calib`` only names in ``calib.__all__``: no submodule import,
    no private name, so the engine's API is what ``__all__`` (and the docs generated from it) says."""
    import calib

    public = set(calib.__all__)
    seen, wrong = 0, []
    for path in PAGE_SIDE:
        for line, what in calib_imports(path):
            seen += 1
            if what not in public or what.startswith("_"):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert not wrong, "imports outside calib.__all__:\n" + "\n".join(wrong)
    assert seen > 10  # the imports were really found


def test_calib_imports_sees_submodule_and_name_imports(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text("import calib.io\nfrom calib.binning import stable_order\nfrom calib import ece, _x\n"
                    "def f():\n    from calib.io import SPLIT_RULES\n", encoding="utf-8")
    assert sorted(calib_imports(path)) == [(1, "calib.io"), (2, "calib.binning"), (3, "_x"), (3, "ece"),
                                           (5, "calib.io")]


def test_calib_exports_exist_and_include_smooth_and_subgroups():
    import calib
    from calib import smooth, subgroups

    assert len(set(calib.__all__)) == len(calib.__all__)
    assert all(hasattr(calib, name) for name in calib.__all__)
    for module in (smooth, subgroups):
        functions = [n for n in module.__all__ if callable(getattr(module, n)) and not n[0].isupper()]
        assert functions and set(functions) <= set(calib.__all__), module.__name__
