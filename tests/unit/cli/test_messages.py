"""One-line errors stay short: a long input is elided in the middle, so the reason still shows."""

from __future__ import annotations

import pytest

from roofline.format import MAX_ERROR_CHARS


@pytest.mark.parametrize("args", [
    ("decode", "--model", "/" + "a" * 5000 + ".json", "--hardware", "h100-sxm5"),
    ("decode", "--model", "b" * 60_000, "--hardware", "h100-sxm5"),
    ("ridge", "x" * 10_000),
])
def test_an_error_quoting_a_long_input_is_one_short_line(run_cli, args):
    code, out, err = run_cli(*args)
    assert code == 2 and out == "" and err.count("\n") == 1
    line = err.removeprefix("roofline: error: ").rstrip("\n")
    assert len(line) <= MAX_ERROR_CHARS and " … " in line, line
