"""Statements a review found wrong or imprecise stay corrected: the old wording fails, the new holds."""

from __future__ import annotations

import re

import pytest

from roofline_site.glossary.entries import load_glossary


@pytest.fixture(scope="module")
def glossary():
    return load_glossary()


# (entry, what it must no longer say, why)
RETIRED = [
    ("interconnect", r"PCIe and network cards join servers", "PCIe joins devices inside a server"),
    ("energy-per-token", r"lean the same way", "a slower step and a lower draw err in opposite directions"),
    ("memory-hierarchy", r"would not predict", "tiling reaches the compulsory-traffic intensity, it does not beat it"),
    ("sram", r"beat the intensity", "tiling reaches the compulsory-traffic intensity, it does not beat it"),
    ("roofline-model", r"ignores latency, caches and overlap", "it assumes perfect overlap inside a kernel"),
    ("perfect-overlap-bound", r"no engine achieves", "partial overlap is routine"),
    ("tensor-parallelism", r"needs NVLink-class bandwidth", "at batch one latency, not bandwidth, decides"),
    ("sliding-window-attention", r"Models mix windowed layers", "Mistral 7B v0.1 windows every layer"),
    ("collective-latency", r"the latency to expect from a ring", "stock NCCL uses NVLink SHARP on NVSwitch systems"),
    ("largest-batch-that-fits", r"Earlier versions of this site", "a changelog sentence"),
    ("batching", r"memory wall comes before", "the memory wall is another thing"),
    ("fp4", r'weights_size\(oss, "mxfp4"\)', "MXFP4 over attention too is not what ships"),
    ("fp4", r"only very large batches", "the FP4 crossing is near bf16's"),
    ("critical-batch-size", r"the matmuls run on the fp8 peak and it is", "pooled FLOPs against one ridge"),
]


@pytest.mark.parametrize("slug, old, why", RETIRED, ids=[f"{s}:{w}" for s, _, w in RETIRED])
def test_a_corrected_statement_does_not_come_back(glossary, slug, old, why):
    assert not re.search(old, _text(glossary.get(slug))), f"{slug}: {why}"


def _text(entry) -> str:
    """The entry's body and its bindings, where a token's arguments live."""
    return entry.body + "\n" + "\n".join(f"{k}: {v}" for k, v in entry.bindings)


@pytest.mark.parametrize("slug, new", [
    ("interconnect", r"PCIe joins each GPU to its host inside the server"),
    ("sliding-window-attention", r"Mistral 7B v0\.1 keeps the last \{\{ mistral_window \}\} positions in all"),
    ("collective-latency", r"NVLink SHARP"),
    ("fp4", r'weights_size\(oss, "checkpoint"\)'),
    ("roofline-model", r"overlap perfectly"),
])
def test_the_corrected_statement_is_there(glossary, slug, new):
    assert re.search(new, _text(glossary.get(slug))), slug
