"""Page bindings: a page names its workloads once, in front matter, and its tokens use the names.

    ---
    bindings:
      mid: decode("llama-3.1-8b", "h100-sxm5", example("batch_mid"), example("medium_context"))
      paging: paged("llama-3.1-8b", "h100-sxm5", example("long_context"), example("medium_context"))
      fits_more: claim(paging.paged_batch > paging.contiguous_batch, "paging fits more sequences")
    ---
    Decode reads {{ mid.kv_bytes }} of cache per step ... {{ fits_more }}

Each binding is an expression in the tokens' namespace, evaluated once per page in the order
written; a binding may use the ones above it. A token sees the bindings as names. What a
token renders is what the expression spelled out would render: the value is the same object
the long token computed, so its popover (formula, inputs, sources) is unchanged. The record of
each number (numbers.json, numbers-diff) keeps the expression spelled out (`resolve`), so a
number keeps its identity whether a page binds it or not.
"""

from __future__ import annotations

import ast
import difflib
import keyword
from dataclasses import dataclass
from typing import Callable

# tokens.py imports this module, so this one imports nothing from it: `expand` hands in its
# evaluator and turns a BindingError into its TokenError.


class BindingError(Exception):
    """A binding is malformed, fails, or is never used: the message names the page and the binding."""

# Expressions that need no parentheses where a name stood (`x.attr`, `x * 2`, `f(x)`).
_ATOMS = (ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Subscript, ast.List, ast.Dict, ast.Set,
          ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.JoinedStr)


@dataclass(frozen=True)
class Bindings:
    """A page's bindings: each name's value and its expression spelled out (no binding names left in it)."""

    page: str
    values: dict  # name -> the value, evaluated once
    spelled: dict  # name -> its expression with earlier bindings spelled out, parenthesized unless one atom
    written: dict  # name -> its expression as the page writes it

    def names_in(self, expr: str) -> set[str]:
        """The binding names `expr` uses (as values, not as attribute or keyword names)."""
        return {n.id for n in ast.walk(ast.parse(expr.strip(), mode="eval")) if isinstance(n, ast.Name)
                and n.id in self.spelled}

    def resolve(self, expr: str) -> str:
        """`expr` with every binding name replaced by its expression, as the page would have spelled it."""
        return _substitute(expr, self.spelled) if self.spelled else expr

    def hint(self, err: Exception) -> str:
        """For an undefined name in a token: the binding it was probably meant to be, else the page's bindings."""
        if not isinstance(err, NameError) or not getattr(err, "name", None):
            return ""
        close = difflib.get_close_matches(err.name, list(self.spelled), n=1)
        if close:
            return f" (did you mean the binding '{close[0]}'?)"
        return f" (this page binds: {', '.join(self.spelled)})" if self.spelled else ""


def _substitute(expr: str, spelled: dict) -> str:
    """Replace each name in `spelled` that `expr` reads as a value (ast.Name) by its text.

    Attribute names (`x.mid`) and keyword names (`tp=...`) are not ast.Name nodes and stay as
    written. Offsets from ast are UTF-8 byte offsets, so the splice works on bytes.
    """
    text = expr.strip()
    tree = ast.parse(text, mode="eval")
    raw = text.encode("utf-8")
    line_starts = [0]
    for line in raw.split(b"\n")[:-1]:
        line_starts.append(line_starts[-1] + len(line) + 1)
    spans = sorted((line_starts[n.lineno - 1] + n.col_offset, line_starts[n.end_lineno - 1] + n.end_col_offset, n.id)
                   for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in spelled)
    out, last = [], 0
    for a, b, name in spans:
        out += [raw[last:a], spelled[name].encode("utf-8")]
        last = b
    out.append(raw[last:])
    return b"".join(out).decode("utf-8")


def _spell(expr: str) -> str:
    """`expr` as it may stand in place of a name: parenthesized unless it is one atom."""
    body = ast.parse(expr, mode="eval").body
    return expr if isinstance(body, _ATOMS) else f"({expr})"


def bind(declared, page: str, namespace: dict, evaluate: Callable) -> Bindings:
    """Check and evaluate a page's `bindings:` mapping (name -> expression) with `evaluate` (tokens.evaluate).

    Raises BindingError naming the page and the binding.
    """
    if not declared:
        return Bindings(page, {}, {}, {})
    if not isinstance(declared, dict):
        raise BindingError(f"{page}: front matter 'bindings' must be a mapping of name: expression")
    values, spelled, written = {}, {}, {}
    for name, expr in declared.items():
        where = f"{page}: binding '{name}'"
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise BindingError(f"{where}: a binding's name must be a Python identifier")
        if name in namespace:
            raise BindingError(f"{where}: the name is already a token function or name; choose another")
        if not isinstance(expr, str) or not expr.strip():
            raise BindingError(f"{where}: the value must be an expression written as text "
                             "(a bare number has no provenance: use example(...))")
        expr = expr.strip()
        try:
            values[name] = evaluate(expr, {**namespace, **values}, f"<binding {name} in {page}>")
            spelled[name] = _spell(_substitute(expr, spelled))
            written[name] = expr
        except Exception as err:  # noqa: BLE001 — any failure is reported against the page and binding
            hint = Bindings(page, values, spelled, written).hint(err)
            if isinstance(err, NameError) and "-" in expr and '"' not in expr and "'" not in expr:
                # YAML took the quotes of `hw: "h100-sxm5"` as its own.
                hint = f" (a name in quotes is written '\"{expr}\"' in the front matter)"
            raise BindingError(f"{where} = {expr}: {err}{hint}") from None
    return Bindings(page, values, spelled, written)


def check_all_used(bound: Bindings, used_by_tokens: set[str]) -> None:
    """A binding no token uses, directly or through another binding, is stale: refuse it, naming page and binding."""
    used, todo = set(), list(used_by_tokens)
    while todo:
        name = todo.pop()
        if name not in used:
            used.add(name)
            todo += bound.names_in(bound.written[name])
    unused = [n for n in bound.spelled if n not in used]
    if unused:
        raise BindingError(f"{bound.page}: binding '{unused[0]}' is never used by a token; use it or remove it")


def spelled_out(markdown: str, matches: list, bound: Bindings) -> tuple[str, list[tuple[int, int]], set[str]]:
    """`markdown` with each token's bindings spelled out, each token's (start, end) in it, and the names used.

    Without bindings it is `markdown` itself. A token that does not parse is left as written:
    its evaluation reports the error.
    """
    if not bound.spelled:
        return markdown, [(m.start(), m.end()) for m in matches], set()
    out, spans, used, last, pos = [], [], set(), 0, 0
    for m in matches:
        inner = m.group(1)
        expr = inner.strip()
        try:
            used |= bound.names_in(expr)
            resolved = bound.resolve(expr)
        except SyntaxError:
            resolved = expr
        lead = inner[:len(inner) - len(inner.lstrip())]
        trail = inner[len(inner.rstrip()):]
        token = "{{" + lead + resolved + trail + "}}"
        out.append(markdown[last:m.start()])
        pos += m.start() - last
        spans.append((pos, pos + len(token)))
        out.append(token)
        pos += len(token)
        last = m.end()
    out.append(markdown[last:])
    return "".join(out), spans, used

