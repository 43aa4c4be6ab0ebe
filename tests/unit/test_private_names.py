"""No private name (a leading underscore) crosses a module boundary in src/, figures_gen/ or tools/.

A helper another module needs is public in its one home (`point.scalar`, `kernels.first_true`).
Allowed: the standard library's own (`os._exit`), and a package's private helper module imported by
its own package (`from figures_gen import _playbook`: figures_gen counts every public module as a figure).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
