"""What the readers do with text that is not one line of text, and numbers of thousands of digits.

A lone surrogate cannot be written to any page or terminal (a raw UnicodeEncodeError or TypeError);
a line break in a name forges a line of the CLI's output; U+202E shows a name reversed; Python
refuses to convert an integer of more than 4,300 digits with a ValueError. Each reaches the user
as one line, or is flattened where it is read.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import ROOT

CONFIG = ROOT / "tests" / "fixtures" / "configs" / "qwen3-8b.json"
MEASUREMENT = ROOT / "measurements" / "example-shared-2vcpu-xeon.json"


def _one_line_error(code, out, err, *words):
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def test_a_config_number_of_thousands_of_digits_is_one_line(tmp_path, run_cli):
    path = tmp_path / "c.json"
    path.write_text(re.sub(r'"num_hidden_layers": \d+', '"num_hidden_layers": ' + "9" * 5000, CONFIG.read_text()))
    _one_line_error(*run_cli("decode", "--model", str(path), "--hardware", "h100-sxm5"), "num_hidden_layers")


def test_a_spec_number_of_thousands_of_digits_is_one_line(spec_copy, run_cli):
    spec_copy("hardware.toml", lambda t: t.replace("power_W = 700", "power_W = " + "7" * 5000, 1))
    _one_line_error(*run_cli("hardware"), "hardware.toml", "field 'power_W'")  # tomllib names no place: the reader finds it


def test_a_measurement_number_of_thousands_of_digits_is_one_line(tmp_path, run_cli):
    path = tmp_path / "m.json"
    path.write_text(re.sub(r'"reps": \d+', '"reps": ' + "9" * 5000, MEASUREMENT.read_text(), count=1))
    _one_line_error(*run_cli("measure", "--from", str(path)), "m.json")


def test_a_lone_surrogate_in_a_label_or_name_is_refused_in_one_line(tmp_path, run_cli):
    doc = json.loads(MEASUREMENT.read_text())
    doc["label"] = "x\ud800y"
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    _one_line_error(*run_cli("measure", "--from", str(path)), "field 'label'", "lone surrogate")
    cfg = {**json.loads(CONFIG.read_text()), "_name_or_path": "evil\udfff"}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cfg))
    _one_line_error(*run_cli("decode", "--model", str(path), "--hardware", "h100-sxm5"), "_name_or_path")


def test_a_line_break_in_a_name_cannot_forge_an_output_line(tmp_path, run_cli):
    cfg = {**json.loads(CONFIG.read_text()), "_name_or_path": "evil\nroofline: error: forged line\u202e"}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cfg))
    code, out, err = run_cli("decode", "--model", str(path), "--hardware", "h100-sxm5")
    assert code == 0
    assert not any(line.startswith("roofline: error") for line in out.splitlines())
    assert "\u202e" not in out and "evil roofline: error: forged line" in out.splitlines()[0]


def test_a_line_break_in_a_spec_name_is_flattened(spec_copy):
    from roofline.registry.hardware import get_device

    spec_copy("hardware.toml", lambda t: t.replace('name = "NVIDIA H100 SXM5 80GB"',
                                                   'name = "NVIDIA H100\\nroofline: error: forged\\u202e"', 1))
    assert get_device("h100-sxm5").name == "NVIDIA H100 roofline: error: forged"
