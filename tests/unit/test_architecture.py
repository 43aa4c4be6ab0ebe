"""The tree's architecture, checked: imports flow one way and nothing circles back.

Read statically from the sources (every import, module-level or inside a function), so a lazy
import cannot hide a circle or an arrow the wrong way.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.stale_refs import stale_in, stale_in_file

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


def _modules(*folders: Path) -> dict[str, Path]:
    return {_module_name(p): p for folder in folders for p in folder.rglob("*.py")}


# The module names come from the paths alone (the parametrised tests are collected by every worker);
# each module's imports are parsed on first use, by the one worker that runs these tests.
MODULES = _modules(SRC / "roofline", SRC / "roofline_site")


@functools.cache
def graph() -> dict[str, set[str]]:
    """{module: the package modules it imports}, for every module of the package and the site."""
    return {name: {m for m in _imports(path) if m in MODULES and m != name} for name, path in MODULES.items()}


def _outside(module: str) -> set[str]:
    return {m.split(".")[0] for m in _imports_of(module)}


def _imports_of(module: str) -> set[str]:
    path = SRC / Path(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return _imports(path)


ROOFLINE = sorted(m for m in MODULES if m == "roofline" or m.startswith("roofline."))


@pytest.mark.parametrize("module", ROOFLINE)
def test_the_package_knows_nothing_of_the_site_the_builder_or_the_figures(module):
    # (matplotlib is allowed: `roofline measure --plot` draws with it, imported only when asked.)
    forbidden = {"roofline_site", "mkdocs", "mkdocs_gen_files", "markdown_exec", "figures_gen", "tools", "tests"}
    assert not (_outside(module) & forbidden), f"{module} imports {sorted(_outside(module) & forbidden)}"


def test_registry_data_never_imports_the_model_or_anything_above_it():
    # The registry may use the error types, the spec loader, the dtype vocabulary it validates against
    # the atomic file writer (a leaf: measurement records are saved through it) and the capped reader.
    allowed = ("roofline.errors", "roofline.registry", "roofline.model.dtypes", "roofline.atomic", "roofline.readfile",
               "roofline.urls")
    for module in (m for m in MODULES if m.startswith("roofline.registry")):
        wrong = {m for m in graph()[module] if m.startswith("roofline") and not m.startswith(allowed)
                 and m != "roofline"}
        assert not wrong, f"{module} (data) imports {sorted(wrong)}"


def _imports_the_runner(module: str) -> bool:
    return any(m == "roofline.measure" or m.startswith("roofline.measure.") for m in graph()[module])


@pytest.mark.parametrize("module", sorted(MODULES))
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


_FROM_FILE = re.compile(r"__file__\)(?:\.resolve\(\))?\.parents?\b")


def test_tests_take_the_root_from_conftest():
    # One root for every test (tests/conftest.py's ROOT): a file that moves keeps finding the tree.
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "tests").rglob("*.py"))
             if path != ROOT / "tests" / "conftest.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if _FROM_FILE.search(line)]
    assert not found, "use `from tests.conftest import ROOT` instead of a path from __file__: " + ", ".join(found)


def test_the_root_check_sees_a_path_from_file():
    here = "Path(__file__" + ")"  # split, so this file does not trip the rule it tests
    assert _FROM_FILE.search(f'DATA = {here}.resolve().parents[2] / "src"')
    assert _FROM_FILE.search(f"HERE = {here}.parent.parent")
    assert not _FROM_FILE.search("readfile.read_capped(Path(__file__), limit)")


# tests/unit mirrors the code: each folder is named after the package, module or source folder its tests
# read, so the next engineer finds a module's tests where the module is. Folders named after what is not
# a module of src/roofline, and where each one's tree lies:
MIRROR_OF = {"site": SRC / "roofline_site", "pages": ROOT / "docs", "figures": ROOT / "figures_gen"}
# The only files at the top: the package marker and the tests of the whole tree (its imports; its text).
UNIT_TOP = {"__init__.py", "test_architecture.py", "test_repository_text.py"}


def _mirror_faults(unit: Path) -> list[str]:
    """Where `unit` stops mirroring the code: a file at its top, or a folder that names no module or package."""
    faults = []
    for path in sorted(unit.rglob("*")):
        rel = path.relative_to(unit)
        if any(part == "__pycache__" or part.startswith(".") for part in rel.parts):
            continue  # caches a run leaves (.hypothesis, .pytest_cache), never tests
        if path.is_file():
            if len(rel.parts) == 1 and rel.name not in UNIT_TOP:
                faults.append(f"{rel}: a test file goes in the folder of what it tests")
            continue
        mirrored = MIRROR_OF.get(rel.parts[0], SRC / "roofline" / rel.parts[0]).joinpath(*rel.parts[1:])
        if not (mirrored.is_dir() or mirrored.with_suffix(".py").is_file()):
            faults.append(f"{rel}/: names no module or package ({mirrored.relative_to(ROOT)} does not exist)")
    return faults


def test_tests_unit_mirrors_the_code():
    faults = _mirror_faults(ROOT / "tests" / "unit")
    assert not faults, "tests/unit must mirror src/:\n" + "\n".join(faults)


def test_the_mirror_check_sees_a_stray_file_and_a_folder_naming_nothing(tmp_path):
    for name in ("__init__.py", "test_architecture.py", "test_review_fixes.py", "model/test_kernels.py",
                 "cli/test_cli.py", "site/glossary/test_entries.py", "site/tasks/test_x.py", "tasks/test_y.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    faults = _mirror_faults(tmp_path)
    assert [f.split(":")[0] for f in faults] == ["site/tasks/", "tasks/", "test_review_fixes.py"], faults


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
    assert _cycles(graph()) == []


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


# --- private names ------------------------------------------------------------
# No private name (a leading underscore) crosses a module boundary in src/, figures_gen/ or tools/.
#
# A helper another module needs is public in its one home (`point.scalar`, `kernels.first_true`).
# Allowed: the standard library's own (`os._exit`), and a package's private helper module imported by
# its own package (`from figures_gen import _playbook`: figures_gen counts every public module as a figure).

ALLOWED = {"os._exit"}


def crossings(source: str, package: str = "") -> list[str]:
    """`from m import _x` and `m._x` (m an imported module or name) in one module's source."""
    tree = ast.parse(source)
    imported: dict[str, str] = {}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                imported[a.asname or a.name] = f"{node.module}.{a.name}"
                private = a.name.startswith("_") and not a.name.startswith("__")
                own_helper_module = private and node.module == package
                if private and not own_helper_module:
                    out.append(f"from {node.module} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                imported[a.asname or a.name.split(".")[0]] = a.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name) and node.value.id in imported):
            name = f"{node.value.id}.{node.attr}"
            if name not in ALLOWED:
                out.append(name)
    return out


def test_no_private_name_crosses_a_module_boundary():
    bad = []
    for f in sorted([*ROOT.glob("src/**/*.py"), *ROOT.glob("figures_gen/**/*.py"), *ROOT.glob("tools/**/*.py")]):
        package = ".".join(f.relative_to(ROOT / "src" if f.is_relative_to(ROOT / "src") else ROOT).parts[:-1])
        bad += [f"{f.relative_to(ROOT)}: {c}" for c in crossings(f.read_text(encoding="utf-8"), package)]
    assert not bad, "\n".join(bad)


def test_a_private_crossing_is_caught():
    src = "from roofline.model import kernels\nfrom roofline.model.point import _scalar\nkernels._size('b', 1)\n"
    assert crossings(src, "roofline.model") == ["from roofline.model.point import _scalar", "kernels._size"]
    assert crossings("import os\nos._exit(1)\nfrom figures_gen import _playbook\n", "figures_gen") == []


# --- stale references --------------------------------------------------------
# No comment or docstring names a module, a module's function or a file the tree no longer has.
#
# Scanned: every Python file under src/, figures_gen/, tools/ and tests/ (comments and docstrings),
# and the calculator's docs/assets/calculator/*.js (comments). What counts as one of ours is in
# tests/support/stale_refs.py; the fake references below show the check fails.

SCANNED = ("src/**/*.py", "figures_gen/**/*.py", "tools/**/*.py", "tests/**/*.py", "docs/assets/calculator/*.js")


def test_no_comment_or_docstring_names_what_does_not_exist():
    files = sorted({f for pattern in SCANNED for f in ROOT.glob(pattern)})
    assert len(files) > 100  # the globs found the tree
    stale = [str(s) for f in files for s in stale_in_file(f, ROOT)]
    assert not stale, "\n".join(stale)


HERE = ROOT / "src" / "roofline" / "cli.py"


@pytest.mark.parametrize("text, name", [
    ("mirrors roofline.calculator_view.kernel_outputs", "roofline.calculator_view.kernel_outputs"),  # gone function
    ("see roofline.model.perfect_overlap", "roofline.model.perfect_overlap"),  # gone module
    ("uses kernels._scalar here", "kernels._scalar"),  # a module basename of ours, gone name
    ("(tests/unit/test_calculator_kernels_parity.py)", "tests/unit/test_calculator_kernels_parity.py"),
    ("written by src/roofline_site/gen_figures.py", "src/roofline_site/gen_figures.py"),
    ("parity-tested by test_calculator_kernels_parity.py", "test_calculator_kernels_parity.py"),
    ("mirrored in perfect_overlap.js", "perfect_overlap.js"),
])
def test_a_fake_stale_reference_is_caught(text, name):
    assert [s.name for s in stale_in(text, HERE, ROOT)] == [name]


@pytest.mark.parametrize("text", [
    "mirrors roofline.calculator_view.calculate and kernels.decode",  # live function, module basename
    "see roofline.model.kernels and tests/unit/cli/test_cli.py, kernels.js and view.js",
    "vLLM's vllm/v1/attention/backends/mla/common.py and self.stage.flops",  # not ours: another repo, a method
    "https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py",  # a URL
    "a [[release.change]] table; the site's calculator/registry.json",  # TOML syntax; a built file
])
def test_live_or_foreign_names_pass(text):
    assert stale_in(text, HERE, ROOT) == []
