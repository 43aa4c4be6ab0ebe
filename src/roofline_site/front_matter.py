"""What a page's or a glossary entry's front matter may hold: known keys, each of its type, text that is text.

YAML keeps the last of a key given twice and takes any key at all, so a misspelt `alias:` or
`see-also:` built in silence, `title: [7, 8]` was published as a Python list, and NUL or ESC bytes
reached the pages. Each is refused here with one sentence naming the file and the field. Anchors
and aliases are refused too: no entry needs them, and nested aliases ("a billion laughs") would
make a description of exponential size.
"""

from __future__ import annotations

import re

import yaml

#: Keys a page (docs/*.md, generated pages) may set, and the type of each.
PAGE_KEYS: dict[str, type | tuple[type, ...]] = {"title": str, "description": str, "hide": list, "search": dict,
                                                 "bindings": dict, "template": str, "icon": str, "status": str,
                                                 "subtitle": str}
#: Keys a glossary entry may set (glossary/<category>/<slug>.md), each checked further by its reader.
ENTRY_KEYS: dict[str, type | tuple[type, ...]] = {"term": str, "aliases": list, "category": str, "summary": str,
                                                  "sources": list, "see_also": list, "bindings": dict,
                                                  "marked": bool}
#: Line breaks in a field's text: a title or a summary is one line of llms.txt and of the Markdown copies.
_BREAK = re.compile("[\n\r\x85\u2028\u2029]")
#: Python converts no integer of more digits than this (sys.get_int_max_str_digits()).
MAX_INT_DIGITS = 4300
#: Control characters no front matter holds (a tab and a line break are layout).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def _shown(key: object) -> str:
    text = str(key)
    return text if len(text) <= 40 else text[:37] + "..."


def meta_problem(meta: dict, allowed: dict[str, type | tuple[type, ...]]) -> str | None:
    """Why `meta` (parsed front matter) is not one `allowed` describes (the end of a sentence), or None.

    >>> meta_problem({"title": [7, 8]}, PAGE_KEYS)
    "field 'title' must be text, got a list"
    >>> meta_problem({"alias": ["x"]}, ENTRY_KEYS)
    "field 'alias' is not a front-matter field (did you mean 'aliases'?)"
    """
    import difflib

    for key, value in meta.items():
        if key not in allowed:
            close = difflib.get_close_matches(str(key), list(allowed), n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(allowed)})"
            return f"field '{_shown(key)}' is not a front-matter field{hint}"
        want = allowed[key]
        if value is not None and not isinstance(value, want):
            words = {str: "text", list: "a list", dict: "a mapping", bool: "true or false"}
            return f"field '{key}' must be {words.get(want, 'of another type')}, got {_kind(value)}"
    return None


def _kind(value: object) -> str:
    return {list: "a list", dict: "a mapping", str: "text", bool: "true or false", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)


def text_problem(text: str) -> str | None:
    """Why front matter text cannot be published (a NUL, an ESC, a bidi override), or None."""
    found = _CONTROL.search(text)
    return None if found is None else f"holds the control character U+{ord(found.group()):04X}, which no page shows"


def _break_problem(text: str) -> str | None:
    """Why a field's text cannot be shown on one line (a title, a summary: a line of llms.txt), or None."""
    found = _BREAK.search(text)
    return None if found is None else (f"holds a line break (U+{ord(found.group()):04X}); a field is shown on one "
                                       "line (YAML folds a long plain value into one)")


class _UniqueKeys(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """The safe loader (libyaml's where PyYAML has it: about ten times faster), refusing a key given twice
    and a number of thousands of digits (Python will not convert one: a raw ValueError otherwise)."""

    def construct_yaml_int(self, node):
        if sum(ch.isdigit() for ch in str(node.value)) > MAX_INT_DIGITS:
            raise yaml.constructor.ConstructorError(None, None, "holds a number of thousands of digits; no field is one",
                                                    node.start_mark)
        return super().construct_yaml_int(node)

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"field '{_shown(key)}' is given twice",
                                                        key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_UniqueKeys.add_constructor("tag:yaml.org,2002:int", _UniqueKeys.construct_yaml_int)


class Refused(yaml.YAMLError):
    """Front matter YAML reads but the site will not publish: the message names the field and says why."""


def _field_at(text: str, line: int) -> str:
    """The top-level field whose value holds line `line` (0-based) of front matter `text`.

    Messages count lines in the page file, whose front matter starts on its second line (after `---`)."""
    for row in reversed(text.splitlines()[:line + 1]):
        if (m := re.match(r"([^\s#:][^:]*):", row)) is not None:
            return _shown(m.group(1))
    return "(none)"


def load(text: str) -> object:
    """YAML front matter text parsed, refusing anchors and aliases and keys given twice (yaml.YAMLError),
    and control characters and numbers of thousands of digits with the field that holds them (Refused)."""
    if (found := _CONTROL.search(text)) is not None:  # before the parser, whose words for a control are its own
        line = text.count("\n", 0, found.start())
        raise Refused(f"field '{_field_at(text, line)}' (line {line + 2}) {text_problem(found.group())}")
    loader = _UniqueKeys(text)
    try:
        node = loader.get_single_node()
        if node is not None and _has_alias(node):
            raise yaml.YAMLError("uses an anchor or alias (& or *); write each value out")
        value = loader.construct_document(node) if node is not None else None
    except yaml.constructor.ConstructorError as err:
        if err.problem_mark is None or "thousands of digits" not in str(err.problem):
            raise
        line = err.problem_mark.line
        raise Refused(f"field '{_field_at(text, line)}' (line {line + 2}) {err.problem}") from None
    finally:
        loader.dispose()
    if isinstance(value, dict):
        for key, item in value.items():  # "\x1b" or "\0" escapes in a quoted YAML string make controls too
            for text in strings_in(item):
                problem = text_problem(text) or (None if key == "bindings" else _break_problem(text))
                if problem is not None:
                    raise Refused(f"field '{_shown(key)}' {problem}")
    for text in strings_in(value):
        if (problem := text_problem(text)) is not None:
            raise Refused(problem)
    return value


def strings_in(value: object):
    """Every string in `value` and in the containers it holds (dict keys and values, lists, tuples, sets)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings_in(k)
            yield from strings_in(v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from strings_in(v)


def page_problem(source: str) -> str | None:
    """Why a page's front matter (the start of its Markdown `source`) cannot be built, or None."""
    if not source.startswith("---\n"):
        return None
    end = source.find("\n---", 4)
    if end == -1:
        return None  # MkDocs reads such a page as having no front matter
    try:
        meta = load(source[4:end])
    except Refused as err:
        return f"front matter {err}"
    except yaml.YAMLError as err:
        return f"front matter {getattr(err, 'problem', None) or err}"
    if meta is not None and not isinstance(meta, dict):
        return "front matter must be a mapping of fields"
    problem = meta_problem(meta or {}, PAGE_KEYS)
    return None if problem is None else f"front matter {problem}"


def _has_alias(node, seen=None) -> bool:
    # A node reached twice is an alias: composed YAML shares the aliased node.
    seen = set() if seen is None else seen
    if id(node) in seen or getattr(node, "anchor", None):
        return True
    seen.add(id(node))
    if isinstance(node, yaml.SequenceNode):
        return any(_has_alias(n, seen) for n in node.value)
    if isinstance(node, yaml.MappingNode):
        return any(_has_alias(k, seen) or _has_alias(v, seen) for k, v in node.value)
    return False
