"""Plant hostile strings (tests/fixtures/hostile/strings.json) into temporary copies of every file kind.

Spec files (hardware, models, measurements, prices, EP measurements), a measurement JSON file and a
glossary entry get a hostile string in every free-text field, and one-line names and notes a line
break with bidirectional overrides (FLAT); the copies live under a temporary folder and are put in
use through the ROOFLINE_* environment variables, so the repository's own data is never touched.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from tests.conftest import ROOT

DATA = ROOT / "src" / "roofline" / "data"
STRINGS = json.loads((ROOT / "tests" / "fixtures" / "hostile" / "strings.json").read_text(encoding="utf-8"))
PAYLOADS = {k: v for k, v in STRINGS.items() if not k.startswith("_")}
#: Text a one-line field flattens (a line break, a bidirectional override, emphasis) and how every format shows it.
FLAT = STRINGS["_flattened"]
#: Payloads a page shows (the terminal one is for the CLI: its controls are dropped on pages).
PAGE_PAYLOADS = {k: v for k, v in PAYLOADS.items() if k != "terminal"}


def toml_string(text: str) -> str:
    """`text` as a TOML basic string."""
    return json.dumps(text)  # JSON string escapes are valid TOML basic-string escapes


def yaml_string(text: str) -> str:
    """`text` as a single-quoted YAML scalar (no escapes to go wrong)."""
    return "'" + text.replace("'", "''") + "'"


def _cycle():
    while True:
        yield from PAGE_PAYLOADS.values()


def _replace_fields(block: str, fields: tuple[str, ...], payloads) -> str:
    for field in fields:
        block, n = re.subn(rf'^{field} = ".*"$', lambda m, f=field: f"{f} = {toml_string(next(payloads))}",
                           block, count=1, flags=re.M)
        assert n == 1, f"field {field} not found"
    return block


def _edit_entry(text: str, table: str, ident: str, fields: tuple[str, ...], payloads) -> str:
    start = text.index(f'id = "{ident}"')
    end = text.find(f"[[{table}]]", start)
    end = len(text) if end == -1 else end
    return text[:start] + _replace_fields(text[start:end], fields, payloads) + text[end:]


def plant(folder: Path) -> dict[str, str]:
    """Hostile copies of every file kind under `folder`; returns the environment that uses them."""
    folder.mkdir(parents=True, exist_ok=True)
    payloads = _cycle()
    hw = (DATA / "hardware.toml").read_text(encoding="utf-8")
    for ident in ("h100-sxm5", "a100-sxm4-80gb", "h200-sxm"):
        hw = _edit_entry(hw, "device", ident, ("name", "vendor", "memory_type", "note", "source_title"), payloads)
    hw = _edit_entry(hw, "device", "b200", ("name",), iter([FLAT["text"]]))
    (folder / "hardware.toml").write_text(hw, encoding="utf-8")

    models = (DATA / "models.toml").read_text(encoding="utf-8")
    models = _edit_entry(models, "model", "llama-3.1-8b", ("name", "source_title"), payloads)
    models = _edit_entry(models, "model", "qwen3-8b", ("name",), iter([FLAT["text"]]))
    (folder / "models.toml").write_text(models, encoding="utf-8")

    meas = (DATA / "measurements.toml").read_text(encoding="utf-8")
    blocks = re.split(r"(?m)^(?=\[\[)", meas)
    seen: set[str] = set()
    for i, block in enumerate(blocks):
        kind = block.split("]]", 1)[0]
        if not block.startswith("[[") or kind in seen:
            continue
        seen.add(kind)  # the first entry of every kind: decode, kernel rows, serving runs, cross-node results, ...
        for field in ("what", "tool", "software", "source_title", "measured_on", "mapping", "system", "quote"):
            block = re.sub(rf'^{field} = ".*"$', lambda m, f=field: f"{f} = {toml_string(next(payloads))}",
                           block, count=1, flags=re.M)
        blocks[i] = re.sub(r'^note = ".*"$', lambda m: f"note = {toml_string(FLAT['text'])}", block, count=1, flags=re.M)
    (folder / "measurements.toml").write_text("".join(blocks), encoding="utf-8")

    prices = (DATA / "prices.toml").read_text(encoding="utf-8")
    prices = _edit_entry(prices, "price", "packet-h200-on-demand", ("provider", "source_title"), payloads)
    prices = re.sub(r'^note = ".*"$', lambda m: f"note = {toml_string(FLAT['text'])}", prices, count=1, flags=re.M)
    (folder / "prices.toml").write_text(prices, encoding="utf-8")

    ep = (DATA / "ep_communication.toml").read_text(encoding="utf-8")
    ep = re.sub(r'^note = ".*"$', lambda m: f"note = {toml_string(FLAT['text'])}", ep, count=1, flags=re.M)
    (folder / "ep_communication.toml").write_text(ep, encoding="utf-8")

    mdir = folder / "measurements"
    mdir.mkdir(exist_ok=True)
    for f in (ROOT / "measurements").glob("*.json"):
        shutil.copy2(f, mdir / f.name)
    doc = json.loads((ROOT / "measurements" / "example-shared-2vcpu-xeon.json").read_text(encoding="utf-8"))
    doc["label"], doc["note"] = PAYLOADS["script"], PAYLOADS["markdown_link"]
    doc["machine"]["cpu_model"], doc["machine"]["blas"]["name"] = PAYLOADS["attribute"], PAYLOADS["markdown_syntax"]
    doc["machine"]["numpy"] = PAYLOADS["autolink"]
    doc["machine"]["os"] = FLAT["text"]
    (mdir / "hostile.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")

    gdir = folder / "glossary"
    shutil.copytree(ROOT / "glossary", gdir)
    entry = gdir / "performance-model" / "ridge-point.md"
    text = entry.read_text(encoding="utf-8")
    summary = PAYLOADS["script"].replace(". ", " ") + " " + PAYLOADS["markdown_link"] + "."
    text = re.sub(r"^summary: .*$", "summary: " + yaml_string(summary), text, count=1, flags=re.M)
    text = re.sub(r'title: "NVIDIA H100 Tensor Core GPU"', "title: " + yaml_string(PAYLOADS["markdown_syntax"]), text)
    text = re.sub(r"^aliases: \[ridge, machine balance\]$",
                  "aliases: [ridge, machine balance, " + yaml_string("XSS-alias *emph* [x](javascript:y)") + "]",
                  text, count=1, flags=re.M)
    entry.write_text(text, encoding="utf-8")
    return {"ROOFLINE_HARDWARE": str(folder / "hardware.toml"), "ROOFLINE_MODELS": str(folder / "models.toml"),
            "ROOFLINE_PRICES": str(folder / "prices.toml"), "ROOFLINE_EP_COMMUNICATION": str(folder / "ep_communication.toml"),
            "ROOFLINE_MEASUREMENTS": str(folder / "measurements.toml"),
            "ROOFLINE_MEASUREMENTS_DIR": str(mdir), "ROOFLINE_GLOSSARY": str(gdir)}
