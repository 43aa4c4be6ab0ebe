"""Rated power and energy per token: expected values derived by hand from the datasheets."""

from __future__ import annotations

import pytest

from roofline.errors import InputError
from roofline.quantities import NAMESPACE

power, energy_per_token = NAMESPACE["power"], NAMESPACE["energy_per_token"]


def test_power_is_the_datasheet_tdp():
    # NVIDIA H100 SXM5 product page: "Max thermal design power (TDP) up to 700 W".
    q = power("h100-sxm5")
    assert (q.value, q.unit, q.text()) == (700.0, "W", "700 W")


def test_energy_per_token_at_batch_one_is_tdp_times_the_weight_read():
    # Batch-one decode reads every weight once except the embedding table (one row is looked up):
    # Llama 3.1 8B has 8,030,261,248 parameters, of which 128,256 × 4,096 = 525,336,576 embed,
    # so (8,030,261,248 − 525,336,576) × 2 B = 15.01 GB; at 3.35 TB/s that is 4.4805 ms, and
    # 700 W × 4.4805 ms = 3.136 J. Norms, activations and one cached token add well under 1 %.
    q = energy_per_token("llama-3.1-8b", "h100-sxm5")
    assert q.unit == "J"
    assert q.value == pytest.approx(3.136, rel=0.01)
    assert "TDP" in q.formula


def test_energy_per_token_falls_with_batch_while_the_weights_dominate():
    # Below the critical batch the step time barely grows, so 8 sequences share one weight read:
    # energy per token drops by nearly 8×, never by more.
    one, eight = energy_per_token("llama-3.1-8b", "h100-sxm5", 1), energy_per_token("llama-3.1-8b", "h100-sxm5", 8)
    assert 6 < one.value / eight.value <= 8


def test_energy_renders_in_millijoules_below_a_joule():
    # 0.163 J is printed with a milli prefix, like the site's millisecond times.
    assert energy_per_token("llama-3.1-8b", "h100-sxm5", 64, 4096).text().endswith(" mJ")


def test_unknown_device_is_one_sentence():
    with pytest.raises(InputError) as err:
        power("no-such-gpu")
    assert "\n" not in str(err.value)
