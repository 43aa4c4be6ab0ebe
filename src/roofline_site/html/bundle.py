"""One file for what a page's module imports at load, to cut what a reader downloads: the calculator's step mode is 13 modules,
each gzipped on its own, and gzip finds the words they share (imports, `registry`, `const`, the names of
their functions) only inside one file. Joined, they transfer about 4.5 KB less and take one request.

Not a general bundler: it knows the few module forms our scripts use, and refuses any other with one
sentence (the build then fails) instead of guessing. Each module's code runs in a function of its own, in
the order the browser would evaluate it (its imports first), and hands back a frozen record of its exports,
so two modules may keep a helper of the same name. The entry point exports every such record, and the
modules it loads on demand (`import("./serve_ui.js")`) are rewritten to take what they import from it, so
a class such as CalcError is one class whichever module throws it, and no module is downloaded twice.

Our site-wide scripts and stylesheets, which every page loads, are joined the same way but simply, one
after another (`join_files`, written by gen/site_assets.py as assets/site.js and assets/site.css): they are
plain scripts, each a complete statement, and stylesheets, whose order is kept.

The sources in docs/assets stay as written: the parity grid under node tests them; the browser tests test
the joined file a reader downloads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# `import * as ns from "./x.js";` and `import { a, b as c } from "./x.js";`, at the start of a line.
_IMPORT = re.compile(r"""^import\s*(?:\*\s*as\s+(?P<ns>\w+)|\{(?P<names>[^}]*)\})\s*from\s*["'](?P<spec>\./[\w.-]+\.js)["'];?[ \t]*$""",
                     re.M)
_IMPORT_ANY = re.compile(r"^import\b(?!\s*\()", re.M)
_EXPORT_DECL = re.compile(r"^export\s+(?=(?:async\s+)?function\b|class\b|const\b)", re.M)
_DECL_NAME = re.compile(r"(?:async\s+)?(?:function\s*\*?|class|const)\s+(\w+)")
# `export { a, b as c };` and `export { a } from "./x.js";`
_EXPORT_LIST = re.compile(r"""^export\s*\{(?P<names>[^}]*)\}\s*(?:from\s*["'](?P<spec>\./[\w.-]+\.js)["'])?;?[ \t]*$""", re.M)
_EXPORT_ANY = re.compile(r"^export\b", re.M)
_DYNAMIC = re.compile(r"""\bimport\s*\(\s*["'](\./[\w.-]+\.js)["']\s*\)""")


class BundleError(ValueError):
    """A module form the bundler does not know: the build stops with its sentence."""


@dataclass(frozen=True)
class Module:
    """One module's code without its import and export syntax, what it imports and what it exports."""

    name: str
    body: str
    imports: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]  # (spec, namespace or "", (name, local))
    exports: tuple[tuple[str, str], ...]  # (exported name, local expression)


def _pairs(names: str, where: str) -> tuple[tuple[str, str], ...]:
    """`a, b as c` -> (("a", "a"), ("b", "c"))."""
    out = []
    for part in names.split(","):
        if not part.strip():
            continue
        m = re.fullmatch(r"\s*(\w+)(?:\s+as\s+(\w+))?\s*", part)
        if not m:
            raise BundleError(f"{where}: cannot read the import or export name list {{{names.strip()}}}.")
        out.append((m.group(1), m.group(2) or m.group(1)))
    return tuple(out)


def parse(name: str, text: str) -> Module:
    """`text` (module `name`) as a Module, or a BundleError naming the line it cannot read.

    >>> m = parse("first", 'import * as f from "./f.js";\\nimport { x, y as z } from "./x.js";\\n'
    ...               'export const K = 1;\\nexport function g() { return z; }\\nconst h = 2;\\nexport { h as H };\\n')
    >>> m.imports
    (('./f.js', 'f', ()), ('./x.js', '', (('x', 'x'), ('y', 'z'))))
    >>> m.exports
    (('H', 'h'), ('K', 'K'), ('g', 'g'))
    >>> parse("second", "export default 1;")
    Traceback (most recent call last):
    ...
    roofline_site.html.bundle.BundleError: second: line 1 is an export the bundler does not know: export default 1;
    """
    imports, exports = [], []

    def take_import(m: re.Match) -> str:
        imports.append((m["spec"], m["ns"] or "", () if m["ns"] else _pairs(m["names"], name)))
        return ""

    body = _IMPORT.sub(take_import, text)

    def take_list(m: re.Match) -> str:
        pairs = _pairs(m["names"], name)
        if m["spec"]:  # a re-export: imported under a local name of its own, then exported
            local = [(n, f"re${n}") for n, _ in pairs]
            imports.append((m["spec"], "", tuple(local)))
            exports.extend((out, f"re${n}") for n, out in pairs)
        else:
            exports.extend((out, n) for n, out in pairs)
        return ""

    body = _EXPORT_LIST.sub(take_list, body)
    for m in _EXPORT_DECL.finditer(body):
        decl = _DECL_NAME.match(body, m.end())
        if not decl:
            raise BundleError(f"{name}: cannot read the declaration after `export` at line {_line(body, m.start())}.")
        exports.append((decl.group(1), decl.group(1)))
    body = _EXPORT_DECL.sub("", body)
    for pattern, what in ((_IMPORT_ANY, "an import"), (_EXPORT_ANY, "an export")):
        if m := pattern.search(body):
            line = body[m.start():].split("\n", 1)[0]
            raise BundleError(f"{name}: line {_line(body, m.start())} is {what} the bundler does not know: {line}")
    return Module(name, body, tuple(imports), tuple(exports))


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _record(spec: str) -> str:
    """The variable holding module `spec`'s exports: "./model_link.js" -> "M$model_link"."""
    return "M$" + re.sub(r"\W", "_", spec[2:-3])


def _bindings(imports, where: str) -> str:
    """`const` lines giving a module's imports their local names, from the records."""
    lines = []
    for spec, ns, names in imports:
        if ns:
            lines.append(f"const {ns} = {_record(spec)};")
        else:
            lines.append("const { " + ", ".join(n if n == local else f"{n}: {local}" for n, local in names)
                         + f" }} = {_record(spec)};")
    return "\n".join(lines)


def static_order(folder: Path, entry: str) -> list[str]:
    """The modules `entry` imports at load (itself last), each after what it imports: the order in which a
    browser evaluates them. A cycle is refused (a module's record would be read before it exists)."""
    order: list[str] = []
    visiting: list[str] = []

    def visit(spec: str) -> None:
        if spec in order:
            return
        if spec in visiting:
            raise BundleError(f"{entry}: the modules import each other in a cycle ({' -> '.join(visiting + [spec])}).")
        visiting.append(spec)
        for dep, _, _ in parse(spec, (folder / spec[2:]).read_text(encoding="utf-8")).imports:
            visit(dep)
        visiting.pop()
        order.append(spec)

    visit(f"./{entry}")
    return order


def bundle(folder: Path, entry: str) -> dict[str, str]:
    """{file name: new text} for `entry` joined with every module it imports at load, and for each module
    in `folder` that imports one of those (the ones loaded on demand): its imports taken from `entry`.

    Each joined module's record is exported from `entry` under the record's own name (M$calc, ...).
    """
    order = static_order(folder, entry)
    modules = {spec: parse(spec, (folder / spec[2:]).read_text(encoding="utf-8")) for spec in order}
    parts = []
    for spec in order[:-1]:
        m = modules[spec]
        record = ", ".join(out if out == local else f"{out}: {local}" for out, local in m.exports)
        parts.append(f"const {_record(spec)} = (() => {{\n{_bindings(m.imports, spec)}\n{m.body}\n"
                     f"return Object.freeze({{ __proto__: null, {record} }});\n}})();")
    top = modules[order[-1]]
    if top.exports:
        raise BundleError(f"{entry}: the entry point exports {', '.join(o for o, _ in top.exports)}; nothing may import it.")
    joined = [_record(s) for s in order[:-1]]
    out = {entry: "\n".join(parts) + f"\n{_bindings(top.imports, entry)}\n{top.body}\nexport {{ {', '.join(joined)} }};\n"}
    for path in sorted(folder.glob("*.js")):
        spec = f"./{path.name}"
        if spec in order:
            continue
        text = path.read_text(encoding="utf-8")
        if not (_IMPORT_ANY.search(text) or _EXPORT_LIST.search(text)):
            continue
        m = parse(spec, text)
        inside = [(s, ns, names) for s, ns, names in m.imports if s in modules]
        if not inside:
            continue
        outside = [(s, ns, names) for s, ns, names in m.imports if s not in modules]
        needed = sorted({_record(s) for s, _, _ in inside})
        lines = [f'import {{ {", ".join(needed)} }} from "./{entry}";']
        lines += [f'import * as {ns} from "{s}";' if ns else
                  "import { " + ", ".join(n if n == l else f"{n} as {l}" for n, l in names) + f' }} from "{s}";'
                  for s, ns, names in outside]
        lines.append(_bindings(inside, spec))
        exports = ", ".join(out if out == local else f"{local} as {out}" for out, local in m.exports)
        out[path.name] = "\n".join(lines) + f"\n{m.body}\n" + (f"export {{ {exports} }};\n" if exports else "")
    return out


def write_bundle(source: Path, target: Path, entry: str) -> None:
    """Write bundle(`source`, `entry`) into `target`, the built copy of `source`: from the sources each
    time, so a dirty rebuild (whose `target` holds the last build's joined files) joins afresh."""
    if not (source / entry).is_file() or not target.is_dir():
        return
    for name, text in bundle(source, entry).items():
        (target / name).write_text(text, encoding="utf-8")


# Every page's scripts, in order: popover.js first, the placement glossary.js and provenance.js share.
SITE_SCRIPTS = ("popover.js", "glossary.js", "provenance.js")
SITE_STYLESHEETS = ("roofline.css", "glossary.css")  # tables.css: only pages with a table (overrides/main.html)


def join_files(folder: Path, names: tuple[str, ...]) -> str:
    r"""The files `names` in `folder`, in that order, as one: scripts (.js) with a `;` between them, so
    one never runs into the next.

    >>> import tempfile; folder = tempfile.TemporaryDirectory(); d = Path(folder.name)
    >>> _ = (d / "a.css").write_text("a { color: red }\n\n"), (d / "b.css").write_text("b { margin: 0 }")
    >>> join_files(d, ("a.css", "b.css"))
    'a { color: red }\nb { margin: 0 }\n'
    >>> folder.cleanup()
    """
    separator = ";\n" if names and names[0].endswith(".js") else "\n"
    return separator.join((folder / name).read_text(encoding="utf-8").rstrip() for name in names) + "\n"

