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
    assert len(line) <= MAX_ERROR_CHARS and "…" in line, line


def test_an_absurd_price_is_refused_not_printed_as_a_denormal(run_cli):
    # $1e-300 a device-hour printed "$1.76e-301 per million output tokens": refused below a cent an hour.
    code, out, err = run_cli("serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--input-tokens", "1000",
                             "--output-tokens", "100", "--price-per-device-hour", "1e-300")
    assert code == 2 and "--price-per-device-hour must be between 0.01 and 1000 USD" in err


def test_a_long_time_reads_in_hours_days_or_years():
    from roofline import format as fmt

    # By hand: 5,400 s is 1.5 h; 3 days is 259,200 s; 9.08e11 s / (365.25 × 86,400 s) = 28,773 years.
    assert (fmt.seconds(5400), fmt.seconds(259_200), fmt.seconds(9.08e11)) == ("1.5 h", "3 days", "28,800 years")


def test_a_printed_point_that_misses_a_target_says_so(run_cli):
    # Llama 3.1 8B (8.0e9 parameters, bf16) on the H100 SXM5, prompts of 1,000 tokens, answers of 100.
    # A prompt's prefill is at least 2 × 8.0e9 × 1,000 FLOPs at 989 TFLOP/s ≈ 16 ms, so no TTFT can be 1 ms:
    # refused, naming the target. With one request in flight every gap between its tokens is a decode-only
    # step, about 16 GB of weights at 3.35 TB/s ≈ 4.8 ms, so a 10 ms TPOT is met at p99 somewhere; at 8 in
    # flight the other 7 prompts' steps (≥ 16 ms each) are 7 of a request's 99 gaps, over 1 %, so the p99
    # TPOT of the point printed at concurrency 8 misses it, and the output says so.
    args = ("serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--input-tokens", "1000",
            "--output-tokens", "100", "--concurrency", "8")
    code, out, err = run_cli(*args, "--ttft-ms", "1")
    assert code == 2 and out == "" and "nothing meets a TTFT of 1 ms" in err
    code, out, _ = run_cli(*args, "--tpot-ms", "10")
    assert code == 0 and "misses the targets at this concurrency: TPOT p99" in out and "over the 10 ms target" in out
    code, out, _ = run_cli(*args, "--ttft-ms", "10000")
    assert code == 0 and "misses the targets" not in out
