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
            "import sitegen.figures\n"
            "sitegen.figures._pyplot()\n")
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


def test_the_architecture_module_list_names_every_module_of_both_packages():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    layout = text.split("\n## Modules\n", 1)[1].split("```", 2)[1]
    listed, package = {}, None
    for line in layout.splitlines():
        if not line.startswith(" ") and line.strip():
            package = line.split()[0].rstrip("/")
        elif line.startswith("  ") and line.split()[0].endswith(".py") and package in ("calib", "sitegen"):
            listed.setdefault(package, set()).add(line.split()[0])
    for package in ("calib", "sitegen"):
        actual = {path.name for path in (ROOT / package).glob("*.py")}
        assert listed.get(package) == actual, (package, sorted(actual ^ listed.get(package, set())))


PAGE_SIDE = sorted((ROOT / "sitegen").glob("*.py")) + [ROOT / "build.py"]


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
