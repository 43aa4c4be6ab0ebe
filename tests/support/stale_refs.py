"""Names a comment or docstring gives that the tree no longer has: a module (`roofline.model.kernels`),
a module's function (`kernels.decode`, `roofline.model.kernels.decode`) or a file
(`tests/unit/cli/test_cli.py`, `kernels.js`).

Only what this repository could hold is checked: dotted names rooted at one of its packages or at a
module basename of theirs (`kernels`, `calculator_view`), paths whose first folder is one of its
folders, and bare `*.py` / `*.js` names of the kinds it keeps (`test_*.py`, the calculator's `*.js`).
A name in a URL is the other site's; a file the build writes (BUILT) is named as the site holds it.
The stale-reference test (in tests/unit/test_architecture.py) runs it over the tree.
"""

from __future__ import annotations

import ast
import importlib
import io
import os
import re
import tokenize
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PACKAGES = ("roofline", "roofline_site", "figures_gen")
#: Folders a path in a comment may start with to be one of ours.
OUR_FOLDERS = frozenset({"src", "docs", "tests", "tools", "figures_gen", "glossary", "measurements", "roofline",
                         "roofline_site", "model", "registry", "quantities", "configs", "measure", "hooks", "gen",
                         "numbers", "html", "assets", "calculator", "support", "unit", "site", "fixtures", "data",
                         "release", "glossary_pages", "reports", ".ci"})
#: Files the build writes into site/ (named as the built site holds them), not in the tree.
BUILT = frozenset({"calculator/registry.json", "calculator/registry_more.json", "assets/site.js", "assets/site.css"})
#: Where a relative path may be anchored, besides the mentioning file's own folder.
ANCHORS = ("", "src", "src/roofline", "src/roofline_site", "docs", "docs/assets", "docs/assets/calculator", "tests")
FILE_EXT = ("py", "js", "md", "toml", "json", "css", "yml", "yaml", "txt", "csv", "svg", "html", "lock", "cfg")
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+")
_PATH = re.compile(r"(?<![\w/.@-])((?:\.?[\w-]+/)+[\w.-]+\.(?:" + "|".join(FILE_EXT) + r"))\b")
_BARE = re.compile(r"(?<![\w/.@-])([\w-]+\.(?:py|js))\b")
_DOTTED = re.compile(r"(?<![\w.\[])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")


@dataclass(frozen=True)
class Stale:
    file: str
    line: int
    name: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: names {self.name!r}, which does not exist"


def python_prose(text: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring of a Python source."""
    out = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
           if tok.type == tokenize.COMMENT]
    for node in _scopes(ast.parse(text)):
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            out.append((body[0].lineno, body[0].value.value))
    return out


def _scopes(node: ast.AST):
    """The module and every class and function in it, at any depth: only statements are visited (a
    docstring opens a scope's body; walking every expression too took half this check's time)."""
    if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        yield node
    for name in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, name, ()):
            if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                yield from _scopes(child)


def js_prose(text: str) -> list[tuple[int, str]]:
    """(line, text) of every comment of a JavaScript source (a `//` after a quote's `:` is a URL, not one)."""
    out = []
    for m in re.finditer(r"/\*.*?\*/|(?:^|(?<=\s))//[^\n]*", text, re.S):
        out.append((text.count("\n", 0, m.start()) + 1, m.group()))
    return out


@lru_cache(maxsize=None)
def _module_basenames(root: Path) -> dict[str, tuple[str, ...]]:
    """{'kernels': ('roofline.model.kernels', 'roofline.measure.kernels'), ...} over our packages."""
    names: dict[str, list[str]] = {}
    for pkg_dir in (root / "src" / "roofline", root / "src" / "roofline_site", root / "figures_gen"):
        for f in pkg_dir.rglob("*.py"):
            rel = f.relative_to(pkg_dir.parent).with_suffix("")
            dotted = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
            names.setdefault(rel.parts[-2] if rel.name == "__init__" else rel.name, []).append(dotted)
    return {k: tuple(v) for k, v in names.items()}


def _resolves(dotted: str) -> bool:
    """Whether `pkg.mod.attr...` is an importable module, or a module's attribute (one level past it)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        rest = parts[i:]
        return not rest or hasattr(obj, rest[0])
    return False


def _dotted_ok(name: str, root: Path) -> bool | None:
    """True/False for a dotted name of ours; None for one that is not ours (a method, another library)."""
    head, *rest = name.split(".")
    if rest and rest[-1] in FILE_EXT:
        return None  # a file name: checked as one
    if head in PACKAGES:
        return _resolves(name)
    modules = _module_basenames(root).get(head)
    if not modules or not rest:
        return None
    return any(_resolves(f"{m}.{rest[0]}") for m in modules)


def _path_ok(path: str, mentioned_in: Path, root: Path) -> bool | None:
    first = path.lstrip("./").split("/")[0]
    if first not in OUR_FOLDERS or path in BUILT:
        return None
    anchors = (mentioned_in.parent, *(root / a for a in ANCHORS))
    return any((a / path).exists() for a in anchors)


@lru_cache(maxsize=None)
def _basenames(root: Path) -> frozenset[str]:
    skip = {".venv", "node_modules", "site", ".git", ".cache", ".tools", "screenshots", "__pycache__"}
    names: set[str] = set()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if d not in skip and not d.startswith(".site")]
        names.update(files)
    return frozenset(names)


def _bare_ok(name: str, root: Path) -> bool | None:
    ours = name.startswith("test_") or (name.endswith(".js") and (root / "docs/assets/calculator").is_dir()
                                        and name[:-3].isidentifier())
    if not ours:
        return None
    return name in _basenames(root)


def stale_in(text: str, mentioned_in: Path, root: Path, first_line: int = 1) -> list[Stale]:
    """Every stale name in one comment or docstring (`first_line`: its line in the file)."""
    out = []
    where = str(mentioned_in.relative_to(root)) if mentioned_in.is_relative_to(root) else str(mentioned_in)
    for n, line in enumerate(text.splitlines(), first_line):
        line = _URL.sub(" ", line)
        seen = set()
        for m in _PATH.finditer(line):
            seen.update(m.group(1).rsplit("/", 1)[-1:])
            if _path_ok(m.group(1), mentioned_in, root) is False:
                out.append(Stale(where, n, m.group(1)))
        for m in _BARE.finditer(line):
            if m.group(1) not in seen and _bare_ok(m.group(1), root) is False:
                out.append(Stale(where, n, m.group(1)))
        for m in _DOTTED.finditer(line):
            name = m.group(1).rstrip(".")
            if _dotted_ok(name, root) is False:
                out.append(Stale(where, n, name))
    return out


def stale_in_file(path: Path, root: Path) -> list[Stale]:
    text = path.read_text(encoding="utf-8")
    prose = python_prose(text) if path.suffix == ".py" else js_prose(text)
    return [s for line, chunk in prose for s in stale_in(chunk, path, root, line)]
