"""Render every number token of one source tree with that tree's own code; write JSON.

Run by numbers_diff as `python -c <this file's source> TREE OUT.json`, in a fresh process
whose imports resolve to TREE only (its src/ and root first; any other checkout's
roofline, roofline_site and figures_gen removed from sys.path), so the numbers at a git
ref are computed by the code and registry of that ref. Standard library only, plus
whatever TREE's own modules import.

Each page goes through the `on_page_markdown` of TREE's numbers hook (roofline_site.hooks.numbers_hook,
or an older tree's roofline_site.hooks) when that works (so site-only token names such as `figure` and `table` behave as in the build); otherwise through
TREE's tokens.expand, with any site-only name it lacks stubbed to render nothing.
"""

from __future__ import annotations

import json
import os
import re
import sys
import traceback
from pathlib import Path

OWN_PACKAGES = ("roofline", "roofline_site", "figures_gen")
PAGE_GLOBS = (("docs", "**/*.md"), ("glossary", "**/*.md"))
UNDEFINED = re.compile(r"name '(\w+)' is not defined")


def isolate(tree: Path) -> None:
    """Make `tree` the only place this process imports the site's own packages from."""
    def foreign(entry: str) -> bool:
        p = Path(entry or ".").resolve()
        if p in (tree, tree / "src"):
            return False
        return any((p / name).is_dir() for name in OWN_PACKAGES)

    sys.path[:] = [str(tree / "src"), str(tree)] + [e for e in sys.path if e and not foreign(e)]
    for name in [n for n in sys.modules if n.split(".")[0] in OWN_PACKAGES]:
        del sys.modules[name]


class Stub(str):
    """A site-only token name this tree's plain expander lacks: renders as nothing, whatever is asked of it."""

    def __call__(self, *args, **kwargs):
        return Stub("")

    def __getattr__(self, name):
        return Stub("")


class FakeFile:
    def __init__(self, src_uri: str):
        self.src_uri = src_uri


class FakePage:
    def __init__(self, src_uri: str, meta: dict | None = None):
        self.file = FakeFile(src_uri)
        self.meta, self.title, self.url = meta or {}, "", src_uri


def front_matter(text: str) -> tuple[dict, str]:
    """(front matter, body) as MkDocs splits a page: a page's `bindings` live in its front matter."""
    try:
        from mkdocs.utils.meta import get_data
    except ImportError:
        return {}, text
    body, meta = get_data(text)
    return meta, body


def pages(tree: Path) -> list[tuple[str, str]]:
    """(repo-relative path, src_uri as MkDocs would name it) of every Markdown page."""
    out = []
    for folder, pattern in PAGE_GLOBS:
        base = tree / folder
        for p in sorted(base.glob(pattern)):
            rel = p.relative_to(base).as_posix()
            out.append((f"{folder}/{rel}", rel if folder == "docs" else f"{folder}/{rel}"))
    return out


def _import_first(*names: str):
    """The first of `names` that imports: the tree's module under this layout, else an older one."""
    from importlib import import_module

    for name in names[:-1]:
        try:
            return import_module(name)
        except ImportError:
            continue
    return import_module(names[-1])


def _evaluate(tokens, expr: str, namespace: dict):
    # The tree's own evaluator; a ref from before tokens.evaluate existed evaluated tokens this way.
    if hasattr(tokens, "evaluate"):
        return tokens.evaluate(expr, namespace, "<sentence>")
    return eval(compile(expr, "<sentence>", "eval"), {"__builtins__": {}}, dict(namespace))  # noqa: S307


def plain_sentence(sentence: str, namespace: dict, tokens) -> str:
    """The sentence with every token replaced by its text, as a reader sees it (raw where one fails)."""
    def sub(m):
        try:
            v = _evaluate(tokens, m.group(1).strip(), namespace)
        except Exception:  # noqa: BLE001 — a site-only name: keep the token as written
            return m.group(0)
        if hasattr(v, "text") and callable(v.text):
            return v.text()
        return v if isinstance(v, str) else m.group(0)
    return " ".join(tokens.TOKEN.sub(sub, sentence).split())


def via_hooks(hooks, markdown: str, uri: str) -> list:
    records = getattr(hooks, "_records")  # a list of records, or (since dirty serving) page -> list
    records.clear()
    meta, body = front_matter(markdown)
    hooks.on_page_markdown(body, page=FakePage(uri, meta), config={}, files=None)
    return list(records.get(uri, ()) if isinstance(records, dict) else records)


def via_expand(tokens, markdown: str, uri: str) -> list:
    stubs: dict = {}
    for _ in range(50):
        records: list = []
        try:
            meta, body = front_matter(markdown)
            bound = {"bindings": meta["bindings"]} if meta.get("bindings") else {}
            tokens.expand(body, uri, records, dict(stubs), **bound)
            return records
        except tokens.TokenError as err:
            m = UNDEFINED.search(str(err))
            if not m or m.group(1) in stubs:
                raise
            stubs[m.group(1)] = Stub("")
    raise RuntimeError("too many unknown names")


def one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


def render_tree(tree: Path) -> dict:
    isolate(tree)
    out = {"records": [], "errors": [], "figures": {}, "renderer": None}
    try:
        tokens = _import_first("roofline_site.numbers.tokens", "roofline_site.tokens")
    except Exception as err:  # noqa: BLE001 — a ref from before number tokens existed
        out["errors"].append({"page": "", "error": f"no token renderer at this ref ({one_line(err)})"})
        return out
    try:  # a broken spec file would fail every page: report it once, as the loader words it
        hardware = _import_first("roofline.registry.hardware", "roofline.hardware")
        models = _import_first("roofline.registry.models", "roofline.models")
        hardware.devices(), models.models()
        measurements = _import_first("roofline.registry.measurements", "roofline.measurements")
        getattr(measurements, "published", lambda: None)()
    except ImportError:
        pass  # a ref from before that registry existed
    except Exception as err:  # noqa: BLE001
        if type(err).__name__ == "SpecError":
            out["spec_error"] = one_line(err)
            return out
        raise
    try:
        hooks = _import_first("roofline_site.hooks.numbers_hook", "roofline_site.hooks")
        getattr(hooks, "_records")
    except Exception:  # noqa: BLE001
        hooks = None
    namespace = {}
    try:
        namespace = tokens._namespace()
    except Exception:  # noqa: BLE001
        pass
    for path, uri in pages(tree):
        markdown = (tree / path).read_text(encoding="utf-8")
        if "{{" not in markdown:
            continue
        records, first_error = None, None
        for fn, mod in ((via_hooks, hooks), (via_expand, tokens)):
            if mod is None:
                continue
            try:
                records = fn(mod, markdown, uri)
                break
            except Exception as err:  # noqa: BLE001 — try the next way, then report the page
                first_error = first_error or err
        if records is None:
            out["errors"].append({"page": path, "error": one_line(first_error)})
            continue
        for position, r in enumerate(records):
            out["records"].append({"page": path, "expr": r.expr, "text": r.text, "label": r.label,
                                   "sentence": plain_sentence(r.sentence, namespace, tokens), "position": position})
    try:
        import figures_gen
    except Exception:  # noqa: BLE001 — a ref from before figures existed
        return out
    for name in getattr(figures_gen, "FIGURES", ()):
        try:
            mod = figures_gen.module(name)
            entry = {"csv": mod.data().to_csv()}
            for part in ("alt", "caption"):
                entry[part] = str(getattr(mod, part)()) if hasattr(mod, part) else ""
        except Exception as err:  # noqa: BLE001
            entry = {"error": one_line(err)}
        out["figures"][name] = entry
    return out


def main(argv: list[str]) -> int:
    tree, dest = Path(argv[0]).resolve(), Path(argv[1])
    for var in [v for v in os.environ if v.startswith("ROOFLINE_")]:
        del os.environ[var]  # the registry of the tree itself, not a what-if copy
    os.chdir(tree)
    try:
        result = render_tree(tree)
    except Exception:  # noqa: BLE001 — report, do not lose the traceback for a maintainer
        result = {"fatal": traceback.format_exc(limit=3).strip().splitlines()[-1]}
    dest.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
