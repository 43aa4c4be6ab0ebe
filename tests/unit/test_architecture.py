"""The tree's architecture, checked: imports flow one way and nothing circles back.

Read statically from the sources (every import, module-level or inside a function), so a lazy
import cannot hide a circle or an arrow the wrong way.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC if SRC in path.parents else ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, absolute names, from any scope."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)  # `from pkg import module`
    return found


def _graph(*folders: Path) -> dict[str, set[str]]:
    files = [p for folder in folders for p in folder.rglob("*.py")]
    names = {_module_name(p): p for p in files}
    return {name: {m for m in _imports(path) if m in names and m != name} for name, path in names.items()}


GRAPH = _graph(SRC / "roofline", SRC / "roofline_site")


def _outside(module: str) -> set[str]:
    return {m.split(".")[0] for m in _imports_of(module)}


def _imports_of(module: str) -> set[str]:
    path = SRC / Path(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return _imports(path)


ROOFLINE = sorted(m for m in GRAPH if m == "roofline" or m.startswith("roofline."))


@pytest.mark.parametrize("module", ROOFLINE)
def test_the_package_knows_nothing_of_the_site_the_builder_or_the_figures(module):
    # (matplotlib is allowed: `roofline measure --plot` draws with it, imported only when asked.)
    forbidden = {"roofline_site", "mkdocs", "mkdocs_gen_files", "markdown_exec", "figures_gen", "tools", "tests"}
    assert not (_outside(module) & forbidden), f"{module} imports {sorted(_outside(module) & forbidden)}"


def test_registry_data_never_imports_the_model_or_anything_above_it():
    # The registry may use the error types, the spec loader, the dtype vocabulary it validates against
    # the atomic file writer (a leaf: measurement records are saved through it) and the capped reader.
    allowed = ("roofline.errors", "roofline.registry", "roofline.model.dtypes", "roofline.atomic", "roofline.readfile")
    for module in (m for m in GRAPH if m.startswith("roofline.registry")):
        wrong = {m for m in GRAPH[module] if m.startswith("roofline") and not m.startswith(allowed)
                 and m != "roofline"}
        assert not wrong, f"{module} (data) imports {sorted(wrong)}"


def _imports_the_runner(module: str) -> bool:
    return any(m == "roofline.measure" or m.startswith("roofline.measure.") for m in GRAPH[module])


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_only_the_cli_imports_the_benchmark_runner(module):
    # roofline.measure times kernels on this machine; the number tokens (quantities/machine.py), the
    # model and the site read its records through roofline.registry.machine, never the runner.
    if module == "roofline.cli" or module == "roofline.measure" or module.startswith("roofline.measure."):
        return
    assert not _imports_the_runner(module), f"{module} imports the benchmark runner (roofline.measure)"


def test_the_runner_check_sees_a_lazy_import(tmp_path):
    # The rule above must be able to fail: an import inside a function is found.
    path = tmp_path / "q.py"
    path.write_text("def f():\n    from roofline.measure.runner import run\n")
    assert "roofline.measure.runner" in _imports(path)
    assert not any(m.startswith("roofline.measure") for m in _imports_of("roofline.quantities.machine"))


def test_the_package_does_not_look_for_a_repository():
    for path in (SRC / "roofline").rglob("*.py"):
        assert "parents[" not in path.read_text(encoding="utf-8"), f"{path.relative_to(ROOT)} finds a folder by __file__"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    # A package importing its own submodules (quantities/__init__ gathering its topics) is not a circle.
    def edges(m):
        return {n for n in graph[m] if not n.startswith(m + ".") and not m.startswith(n + ".")}

    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    assert _cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_circle():
    # The check above must be able to fail: a two-module circle and a three-module one are found.
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": set()}
    assert sorted(_cycles(graph)) == [["a", "b"], ["c", "d", "e"]]


def test_mkdocs_names_only_hook_files_and_gen_scripts_in_their_folders():
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("!", lambda loader, suffix, node: None)  # !ENV and friends
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    hooks = config["hooks"]
    assert hooks and all(h.startswith("src/roofline_site/hooks/") and h.endswith("_hook.py") for h in hooks), hooks
    scripts = next(p["gen-files"]["scripts"] for p in config["plugins"] if isinstance(p, dict) and "gen-files" in p)
    assert scripts and all(s.startswith("src/roofline_site/gen/") for s in scripts), scripts


def _deep_imports(path: Path) -> list[str]:
    """Lines of `path` that import from inside the package instead of its public face."""
    deep = re.compile(r"^\s*(?:from\s+roofline\.[\w.]+\s+import|import\s+roofline\.)")
    return [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if deep.match(line)]


def test_pages_and_figures_import_only_the_public_face():
    # Executed blocks in pages and glossary entries, and the figure scripts, read `roofline` only, so a move
    # inside the package never becomes a page edit. (The site glue in src/roofline_site may reach further.)
    files = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "glossary").rglob("*.md"), *(ROOT / "figures_gen").glob("*.py")]
    deep = [line for path in files for line in _deep_imports(path)]
    assert not deep, "import from `roofline` (its __all__) instead:\n" + "\n".join(deep)


def test_the_public_face_names_resolve():
    import roofline

    missing = [name for name in roofline.__all__ if not hasattr(roofline, name)]
    assert not missing, f"roofline.__all__ names what it cannot load: {missing}"
