"""Hugging Face config.json -> Model, reading each field the way `transformers` does.

One small reader per family (configs/families.py), each a table of the config keys it
takes, the `transformers` default where a config may omit one, and the Model field it
feeds. Whatever the reader does not understand is refused with one sentence that names
the file and the field, never guessed.

>>> read_config({"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,
...              "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
...              "vocab_size": 128256}).kv_elements_per_token()  # 2·32·8·128
65536
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from roofline.configs.families import FAMILIES, MODEL_TYPES, Reader, field_table, reader_json
from roofline.errors import InputError
from roofline.readfile import RepeatedKey, UnreadableFile, json_int, read_capped, unique_keys
from roofline.registry.models import Model, get_model

MAX_CONFIG_BYTES = 10 * 1024 * 1024  # real config.json files are a few KB; 10 MB is certainly not one


def looks_like_config_path(ident: str) -> bool:
    """True for something the CLI should read as a file rather than a registry id (ends in .json, or exists)."""
    if ident.lower().endswith(".json") or "/" in ident or os.sep in ident:
        return True
    try:
        return Path(ident).is_file()
    except (OSError, ValueError):  # a name too long for the filesystem, or with a NUL: not a file
        return False


def load_config_file(path: str | os.PathLike) -> dict[str, Any]:
    """The parsed JSON object in `path`, or an InputError naming the file and what is wrong."""
    p = Path(path)
    try:
        text = read_capped(p, MAX_CONFIG_BYTES, "config.json").decode("utf-8")
        doc = parse_config_text(text)
    except RepeatedKey as err:
        raise InputError(f"{p}: {repeated_key_words(err.key)}") from None
    except UnreadableFile as err:
        raise InputError(f"{p}: {err}") from None
    except UnicodeDecodeError:
        raise InputError(f"{p}: not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as err:
        raise InputError(f"{p}: not JSON ({err.msg} at line {err.lineno}, column {err.colno})") from None
    except RecursionError:
        raise InputError(f"{p}: nests too deeply to be a config.json") from None
    return doc


def parse_config_text(text: str) -> Any:
    """config.json text parsed as JSON: no NaN or Infinity, no key given twice (RepeatedKey)."""
    return json.loads(text, parse_constant=_no_constant, object_pairs_hook=unique_keys, parse_int=json_int)


def repeated_key_words(key: str) -> str:
    """The refusal of a key given twice (config.js says the same)."""
    shown = key if len(key) <= 40 else key[:37] + "..."
    return f"field '{shown}' is given twice; which value is meant is unknown"


def read_config(source: str | os.PathLike | dict[str, Any], *, name: str | None = None) -> Model:
    """A Model from a config.json path or its parsed dict; `name` labels errors (default: the path or 'config').

    Refuses, with one line naming the file and field: not JSON, not a JSON object, a model_type
    the reader does not know (listing those it does), a missing field the numbers need, a field
    of the wrong type or sign, an unknown quantization format.
    """
    if isinstance(source, (str, os.PathLike)):
        return read_config_doc(load_config_file(source), name=name or str(source))
    return read_config_doc(source, name=name or "config")


def read_config_doc(doc: Any, *, name: str = "config") -> Model:
    """A Model from an already parsed config.json value (refused unless it is a known family's object)."""
    label = name
    if not isinstance(doc, dict):
        raise InputError(f"{label}: not a model config (the JSON is a {_json_kind(doc)}, not an object)")
    model_type = doc.get("model_type")
    if model_type is None:
        raise InputError(f"{label}: field 'model_type' is missing: not a Hugging Face model config "
                         f"(families known: {', '.join(MODEL_TYPES)})")
    if not isinstance(model_type, str) or model_type not in MODEL_TYPES:
        raise InputError(f"{label}: field 'model_type' is {model_type!r}, not a family the reader knows "
                         f"({', '.join(MODEL_TYPES)})")
    family = MODEL_TYPES[model_type]
    reader = Reader(label, doc, family)
    return family.build(reader, ident=label)


def model_from_arg(ident: str) -> Model:
    """A registry id, a bare parameter count ('8e9') or a path to a config.json, as `--model` takes them.

    >>> model_from_arg("llama-3.1-8b").n_layers
    32
    """
    if looks_like_config_path(ident):
        return read_config(ident)
    return get_model(ident)


def _no_constant(name: str):
    # Python's json takes NaN and Infinity; JSON (and the browser's reader) does not.
    raise json.JSONDecodeError(f"{name} is not a JSON value", name, 0)


def reader_config_json() -> dict[str, Any]:
    """reader_json() plus the file-size limit: what the calculator's config.js needs."""
    return {**reader_json(), "max_bytes": MAX_CONFIG_BYTES}


def _json_kind(value: Any) -> str:
    return {list: "list", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


__all__ = ["FAMILIES", "MAX_CONFIG_BYTES", "MODEL_TYPES", "field_table", "load_config_file",
           "looks_like_config_path", "model_from_arg", "read_config", "read_config_doc", "reader_config_json"]
