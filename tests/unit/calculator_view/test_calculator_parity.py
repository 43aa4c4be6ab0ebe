"""The calculator's JavaScript agrees with the roofline package.

docs/assets/calculator/kernels.js mirrors the per-kernel model (roofline.model.kernels and
formats, through roofline.calculator_view.calculate); calc.js the model arithmetic it needs;
format.js mirrors roofline.format; state.js validates what the reader types. Here node runs them
over a grid of devices (the whole registry plus a custom one), models (every registry model,
every readable config.json fixture, a bare parameter count), phases, batches, lengths, weight
formats (group-wise int4 and int8 included), activation and KV formats and both attention
variants, and every output, each kernel's included, must match the package within 1e-9
relative; both sides refuse the same inputs. Mutation tests show that a formula changed on
one side only fails the comparison.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.node import CALC_DIR, REL, case_harness, mutated_calculator, requires_node, run_harness

from roofline import format as fmt
from roofline.calculator_view import _model_record, calculate, custom_device, custom_model, registry_json
from roofline.configs import read_config_doc
from roofline.errors import InputError, RooflineError
from roofline.model import kernels
from roofline.registry.hardware import devices, get_device
from roofline.registry.models import get_model, models
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "configs"
pytestmark = requires_node

HARNESS = case_harness("""
import * as view from "./view.js";
import * as many from "./many.js"; // several devices: loaded on demand in the page, here at once
import * as fmt from "./format.js";
import * as state from "./state.js";
""", """view.calculate(C, ...calcArgs(c))""", after=r"""
function calcArgs(c) {
  const device = c.device.custom ? calc.customDevice(...c.device.custom)
    : registry.devices.find((d) => d.id === c.device.id);
  const model = c.model.custom ? calc.customModel(...c.model.custom)
    : c.model.record || registry.models.find((m) => m.id === c.model.id);
  const [tp, pp, ep, latency = "floor"] = c.layout;
  return [device, model, c.phase, c.batch, c.length, c.wf, c.kvd, c.act, c.attn, tp, pp, ep, latency, c.scope, c.nodes];
}
const formats = input.formats.map(([unit, v]) => fmt.UNITS[unit](v));
const parses = input.parses.map(([key, raw]) => {
  const f = state.FIELDS[key];
  return state.parseNumber(raw, f.label, registry.limits[f.limit], f.optional);
});
""", output="{ results, formats, parses }")


# --------------------------------------------------------------------------- the grid
def _fixture_models() -> dict[str, object]:
    """Every config.json fixture the package reads, as a Model (the broken ones are refused)."""
    out = {}
    for path in sorted(FIXTURES.glob("*.json")):
        try:
            out[path.name] = read_config_doc(json.loads(path.read_text(encoding="utf-8")), name=path.name)
        except (InputError, json.JSONDecodeError):
            continue
    return out


FIXTURE_MODELS = _fixture_models()
CUSTOM_DEVICE = (500e12, 1.2e12, 24e9)
MODELS = [*({"id": i} for i in models()), *({"fixture": name} for name in FIXTURE_MODELS), {"custom": [8e9]}]
DEVICES = [*({"id": i} for i in devices()), {"custom": list(CUSTOM_DEVICE)}]
PHASES = ["decode", "prefill"]
BATCHES = [1, 3, 64, 1024]
LENGTHS = {"decode": [1, 4095, 131072], "prefill": [1, 17, 512, 32768]}
FORMATS = [("bf16", "bf16", "bf16"), ("fp8", "fp8", "fp8"), ("int4-g128", "bf16", "bf16"), ("int4-g32", "fp8", "bf16"),
           ("int8", "bf16", "bf16"), ("fp16", "int4", "fp16"), ("fp32", "bf16", "fp32"), ("int8-g64", "int8", "int8"),
           ("mxfp4", "bf16", "bf16"), ("mxfp4", "fp8", "fp4"), ("nvfp4", "bf16", "fp4"), ("nvfp4", "fp8", "bf16"),
           ("fp8-b128", "bf16", "bf16"), ("int4-ch", "bf16", "bf16")]
SCOPES = ["linear", "linear", "mlp", "experts"]  # which tensors the weight format covers (formats.WEIGHT_SCOPES)
ATTENTION = ["fused", "unfused"]
# (tp, pp, ep[, collective latency]): the floor by default, an NCCL ring's, or seconds per collective.
LAYOUTS = [(1, 1, 1), (2, 1, 1), (8, 1, 1), (4, 2, 1), (1, 4, 1), (1, 1, 8), (1, 2, 4), (16, 1, 1), (3, 1, 1),
           (8, 1, 1, "ring"), (4, 2, 1, "ring"), (1, 1, 8, "ring"), (2, 1, 1, 1e-5), (8, 1, 1, 0.0), (1, 4, 1, 3.3e-6)]
N_SAMPLED = 260
N_LAYOUT_SAMPLED = 160
EXTRA = [
    ({"id": "h100-sxm5"}, {"id": "mixtral-8x7b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-2-7b"}, "decode", 64, 1023, "fp16", "fp16", "fp16", "unfused"),
    ({"id": "h200-sxm"}, {"id": "llama-3.1-70b"}, "decode", 1, 4095, "bf16", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1000, 256, "bf16", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1e9, 1e9, "bf16", "bf16", "bf16", "fused"),
    ({"custom": [1e21, 1e18, 1e18]}, {"custom": [999999e9]}, "prefill", 1e9, 1e9, "fp32", "fp32", "fp32", "fused"),
    # Layouts the pages quote: Llama 70B over 8 H100s and over 2 × 4, Mixtral with expert parallelism,
    # more devices than KV heads (each keeps a copy), a pipeline bubble at batch 1.
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1, 1024, "bf16", "bf16", "bf16", "fused", (8, 1, 1)),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "prefill", 4, 2048, "fp8", "fp8", "fp8", "fused", (4, 2, 1)),
    ({"id": "h100-sxm5"}, {"id": "mixtral-8x7b"}, "decode", 64, 1024, "bf16", "bf16", "bf16", "fused", (1, 1, 8)),
    ({"id": "h100-sxm5"}, {"id": "deepseek-v3"}, "decode", 256, 4096, "fp8", "fp8", "fp8", "fused", (1, 1, 8)),
    ({"id": "gb200-per-gpu"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "unfused", (16, 1, 1)),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 8, 1)),
    # expert parallelism across pipeline stages: each stage reads only its own layers' experts
    ({"id": "h100-sxm5"}, {"id": "mixtral-8x7b"}, "decode", 8, 1024, "bf16", "bf16", "bf16", "fused", (1, 2, 4)),
    # the view at the ring's latency (collective latency-bound), at the floor, and at a reader's 10 µs
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1, 4096, "bf16", "bf16", "bf16", "fused", (8, 1, 1, "ring")),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1, 4096, "bf16", "bf16", "bf16", "fused", (8, 1, 1)),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1, 4096, "bf16", "bf16", "bf16", "fused", (8, 1, 1, 1e-5)),
    # a long prefill over PCIe: the bytes, not the latency, bind on the link
    ({"id": "l4"}, {"id": "llama-3.1-8b"}, "prefill", 8, 4096, "bf16", "bf16", "bf16", "fused", (8, 1, 1)),
    ({"id": "mi300x"}, {"id": "llama-3.1-70b"}, "decode", 1, 1024, "bf16", "bf16", "bf16", "fused", (8, 1, 1, "ring")),
    ({"id": "tpu-v6e"}, {"id": "llama-3.1-70b"}, "decode", 1, 1024, "bf16", "bf16", "bf16", "fused", (8, 1, 1)),
    # Checkpoint formats over their own tensors: gpt-oss's MXFP4 experts (bf16 attention), DeepSeek-V3's
    # fp8 128×128 blocks, NVFP4 with FP4 activations at the B200's FP4 peak, the AWQ fixture, MLA prefill.
    ({"id": "h100-sxm5"}, {"id": "gpt-oss-20b"}, "decode", 1, 1, "mxfp4", "bf16", "bf16", "fused", (1, 1, 1), "experts"),
    ({"id": "b200"}, {"id": "gpt-oss-120b"}, "prefill", 4, 2048, "mxfp4", "bf16", "fp4", "fused", (1, 1, 4), "experts"),
    ({"id": "h200-sxm"}, {"id": "deepseek-v3"}, "decode", 64, 4096, "fp8-b128", "fp8", "bf16", "fused", (1, 1, 8), "linear"),
    ({"id": "h100-sxm5"}, {"id": "deepseek-v3"}, "prefill", 4, 4096, "fp8-b128", "bf16", "bf16", "unfused", (8, 1, 1)),
    ({"id": "b200"}, {"id": "llama-3.1-70b"}, "prefill", 8, 1024, "nvfp4", "bf16", "fp4", "fused"),
    ({"id": "h100-sxm5"}, {"fixture": "llama-3.1-8b-awq.json"}, "decode", 1, 1, "int4-g128", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"custom": [8e9]}, "decode", 1, 1, "int8", "bf16", "bf16", "fused"),
]
# Layouts across nodes (roofline decode --nodes N, the last item): with no layout, the one the field runs (EP over
# every device for a mixture of experts, TP in a domain and PP across for a dense model); with one, a check that
# it fills the nodes. An EP all-to-all across domains splits its bytes between NVLink and the network; pipeline
# sends at a domain boundary cross the network; a GB200 NVL72 domain holds many 4-GPU trays, so two of them send
# nothing over the network.
EXTRA += [
    ({"id": "h100-sxm5"}, {"id": "deepseek-v3"}, "decode", 256, 2000, "fp8-b128", "bf16", "bf16", "fused", (1, 1, 1), "linear", 4),
    ({"id": "h100-sxm5"}, {"id": "deepseek-v3"}, "decode", 256, 2000, "fp8-b128", "bf16", "bf16", "fused", (1, 1, 1, "ring"), "linear", 2),
    ({"id": "h800-sxm"}, {"id": "deepseek-v3"}, "prefill", 4, 4096, "fp8-b128", "fp8", "bf16", "fused", (1, 1, 1), "linear", 2),
    ({"id": "h100-sxm5"}, {"id": "deepseek-v3"}, "decode", 64, 4096, "fp8", "fp8", "fp8", "fused", (1, 1, 16), "linear", 2),
    ({"id": "h100-sxm5"}, {"id": "deepseek-v3"}, "decode", 64, 4096, "fp8", "fp8", "fp8", "fused", (1, 1, 32, 1e-5)),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 16, 2000, "bf16", "bf16", "bf16", "fused", (1, 1, 1), "linear", 2),
    ({"id": "h200-sxm"}, {"id": "llama-3.1-405b"}, "decode", 8, 4096, "fp8", "fp8", "fp8", "fused", (8, 2, 1, "ring")),
    ({"id": "b200"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 1, 1), "linear", 1),
    ({"id": "gb200-per-gpu"}, {"id": "deepseek-v3"}, "decode", 128, 2048, "fp8-b128", "bf16", "bf16", "fused", (1, 1, 1), "linear", 2),
]
# Inputs both sides must refuse (the package raises; the JavaScript throws a CalcError).
INVALID = [
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 0, "bf16", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 0, 1, "bf16", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1.5, 1, "bf16", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 2e9, 1, "bf16", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "int4-g100", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "nf4", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "fp64", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "flash"),
    ({"id": "a100-sxm4-80gb"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "fp8", "bf16", "fp8", "fused"),
    # NVFP4 at the FP4 peak needs one: the H100 has none
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "nvfp4", "bf16", "fp4", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "fp8-b0", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 1, 1), "attn"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "prefill", 1, 0, "bf16", "bf16", "bf16", "fused"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "sample", 1, 1, "bf16", "bf16", "bf16", "fused"),
    # The CLI's layout refusals: a degree below 1 or fractional, heads TP does not divide, more devices than
    # one scale-up domain, a device with no link, EP on a dense model, TP with EP, more stages than layers.
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (0, 1, 1)),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1.5, 1, 1)),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (3, 1, 1)),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (16, 1, 1)),
    ({"custom": [500e12, 1.2e12, 24e9]}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (2, 1, 1)),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 1, 2)),
    ({"id": "h100-sxm5"}, {"id": "mixtral-8x7b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (2, 1, 2)),
    ({"id": "h100-sxm5"}, {"custom": [8e9]}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (2, 1, 1)),
    ({"id": "gb200-per-gpu"}, {"id": "llama-3.2-1b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 32, 1)),
    # a collective latency that is not the floor, the ring or 0 to 10 ms
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (8, 1, 1, "nccl")),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (8, 1, 1, -1e-6)),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (8, 1, 1, 1.0)),
    # node counts: none, a fraction, a device with no network recorded, ranks the experts do not divide, a layout
    # that does not fill the nodes, EP across nodes that does not fill whole domains, experts it does not divide
    ({"id": "h100-sxm5"}, {"id": "deepseek-v3"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 1, 1), "linear", 0),
    ({"id": "h100-sxm5"}, {"id": "deepseek-v3"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 1, 1), "linear", 2.5),
    ({"id": "a100-sxm4-80gb"}, {"id": "llama-3.1-70b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 1, 1), "linear", 2),
    ({"id": "h100-sxm5"}, {"id": "deepseek-v3"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 1, 1), "linear", 3),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (8, 1, 1), "linear", 2),
    ({"id": "h100-sxm5"}, {"id": "deepseek-v3"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 1, 12)),
    ({"id": "h100-sxm5"}, {"id": "mixtral-8x7b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (1, 1, 16)),
    ({"id": "a100-sxm4-80gb"}, {"id": "llama-3.1-70b"}, "decode", 1, 1, "bf16", "bf16", "bf16", "fused", (8, 2, 1)),
]


def _case(dev, model, phase, batch, length, wf, kvd, act, attn, layout=(1, 1, 1), scope="linear", nodes=None):
    return {"device": dev, "model": model, "phase": phase, "batch": batch, "length": length, "wf": wf,
            "kvd": kvd, "act": act, "attn": attn, "layout": list(layout), "scope": scope, "nodes": nodes}


class FullProduct(Sequence):
    """Every (device, model, phase, batch, length, *formats, attention), in the order of
    `[... for d, m, p, b, f, a in itertools.product(DEVICES, MODELS, PHASES, BATCHES, FORMATS, ATTENTION)
    for l in LENGTHS[p]]`, each made when indexed: random.sample draws the same positions from it as
    from that list, which took 0.7 s to build for 260 + 160 picks of its 752,640 cases."""

    def _block(self, phase: str) -> int:
        return len(BATCHES) * len(FORMATS) * len(ATTENTION) * len(LENGTHS[phase])

    def __len__(self) -> int:
        return len(DEVICES) * len(MODELS) * sum(self._block(p) for p in PHASES)

    def __getitem__(self, j: int):
        if not 0 <= j < len(self):
            raise IndexError(j)
        dm, rest = divmod(j, sum(self._block(p) for p in PHASES))
        d, m = divmod(dm, len(MODELS))
        for phase in PHASES:
            if rest < self._block(phase):
                break
            rest -= self._block(phase)
        rest, length = divmod(rest, len(LENGTHS[phase]))
        rest, attn = divmod(rest, len(ATTENTION))
        batch, fmt_i = divmod(rest, len(FORMATS))
        return (DEVICES[d], MODELS[m], phase, BATCHES[batch], LENGTHS[phase][length], *FORMATS[fmt_i], ATTENTION[attn])


def grid() -> list[dict]:
    """A deterministic sample of the full product, two cases for every model, corners and refusals."""
    rng = random.Random(14)
    full = FullProduct()
    every = [({"id": "h200-sxm"}, m, p, rng.choice(BATCHES), rng.choice(LENGTHS[p]), *rng.choice(FORMATS[:3]),
              rng.choice(ATTENTION)) for m in MODELS for p in PHASES]
    laid = [(*c, rng.choice(LAYOUTS), rng.choice(SCOPES)) for c in rng.sample(full, N_LAYOUT_SAMPLED)]
    cases = [_case(*c) for c in rng.sample(full, N_SAMPLED) + laid + every + EXTRA + INVALID]
    for c in cases:  # the JavaScript gets the fixture's record, as config.js reads it (test_config_parity)
        if "fixture" in c["model"]:
            c["model"] = {"fixture": c["model"]["fixture"], "record": _model_record(FIXTURE_MODELS[c["model"]["fixture"]])}
    return cases


def _device(spec):
    return custom_device(*spec["custom"]) if "custom" in spec else get_device(spec["id"])


def _model(spec):
    if "custom" in spec:
        return custom_model(*spec["custom"])
    if "fixture" in spec:
        return FIXTURE_MODELS[spec["fixture"]]
    return get_model(spec["id"])


def package_result(case: dict) -> dict:
    try:
        return {"ok": calculate(_device(case["device"]), _model(case["model"]), case["phase"], case["batch"],
                                case["length"], case["wf"], case["kvd"], case["act"], case["attn"], *case["layout"],
                                weight_scope=case["scope"], nodes=case["nodes"])}
    except RooflineError as err:
        return {"error": str(err)}


# --------------------------------------------------------------------------- formatting grid
PY_FORMAT = {"FLOP/s": fmt.flop_per_s, "B/s": fmt.bytes_per_s, "B": fmt.nbytes, "s": fmt.seconds,
             "FLOP/byte": fmt.intensity, "tokens/s": fmt.tokens_per_s, "FLOP": lambda v: fmt.si(v, "FLOP"),
             "": fmt.count, "int": lambda v: f"{int(v):,}"}
OUTPUT_UNITS = {"peak_flop_per_s": "FLOP/s", "attained_flop_per_s": "FLOP/s", "time_perfect_overlap_s": "s",
                "usable_memory_bytes": "B", "speed_of_light_tokens_per_s": "tokens/s", "attention_intensity": "FLOP/byte",
                "max_batch_that_fits": "int",
                "bandwidth_bytes_per_s": "B/s", "ridge_point": "FLOP/byte", "arithmetic_intensity": "FLOP/byte",
                "flops": "FLOP", "bytes": "B", "weight_bytes": "B", "kv_bytes": "B", "activation_bytes": "B",
                "kv_resident_bytes": "B", "weights_resident_bytes": "B", "memory_required_bytes": "B",
                "memory_capacity_bytes": "B", "time_s": "s", "compute_time_s": "s", "memory_time_s": "s",
                "tokens_per_s": "tokens/s", "tokens_per_s_per_sequence": "tokens/s", "total_params": "",
                "critical_batch": "int"}
# Rounding corners: exact binary ties (0.125, 2.5), carries into the next prefix, tiny and huge values.
FORMAT_EDGES = [("", v) for v in (0, 0.125, 1.125, 12.25, 2.675, 100.5, 0.0625, 0.5625, 2.5, 4776.1, 209.375, 295.3432, 999.5, 999.96, 1e-7, 123456789,
                                  1.5e6, 8.03e9, 46.7e9, 2.5e12)] + \
    [("s", v) for v in (0.004776119, 0.0009995, 0.00099949, 1e-10, 3.5e-9, 1.0, 59.99, 1e18)] + \
    [("B", v) for v in (999.96e9, 999.5e12, 1.3e23, 5e21, 131072.0)] + \
    [("FLOP/s", v) for v in (989.4e12, 1978.9e12, 999949e9)] + \
    [("int", v) for v in (1, 296, 1048576, 1000000000)]


def format_cases(py_results) -> list[tuple[str, float]]:
    out = list(FORMAT_EDGES)
    for r in py_results:
        for key, unit in OUTPUT_UNITS.items():
            v = r.get("ok", {}).get(key)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0:
                out.append((unit, v))
    return out


PARSE_TEXT = ["1", "64", " 8 ", "0", "-3", "abc", "1.5", "1e9", "1e10", "", "1e400", "0x10", "<b>1</b>", "2.0",
              "1e3", ".5", "+7", "NaN", "Infinity", "5e-1"]


def _py_size_ok(key: str, text: str) -> float | None:
    """The package's verdict on a batch or length typed as text: the value, or None if refused."""
    try:
        value = float(text)
        name = {"batch": "batch", "ctx": "context length", "prompt": "prompt length"}[key]
        return float(kernels.check_size(name, value))
    except (ValueError, InputError):
        return None


# --------------------------------------------------------------------------- running node
def run_node(calc_dir: Path, cases, formats, parses, tmp_path: Path, registry=None) -> dict:
    payload = {"registry": registry or registry_json(), "cases": cases, "formats": formats, "parses": parses}
    return run_harness(calc_dir, HARNESS, payload, tmp_path / "calc")


def _same(pv, jv) -> bool:
    if isinstance(pv, dict):
        return isinstance(jv, dict) and set(pv) == set(jv) and all(_same(pv[k], jv[k]) for k in pv)
    if isinstance(pv, list):
        return isinstance(jv, list) and len(pv) == len(jv) and all(_same(a, b) for a, b in zip(pv, jv))
    if pv is None or isinstance(pv, (bool, str)):
        return jv == pv
    return isinstance(jv, (int, float)) and not isinstance(jv, bool) and (
        abs(jv - pv) <= REL * abs(pv) if pv != 0 else jv == 0)


def mismatches(cases, py_results, js_results) -> list[str]:
    """One line per output where the JavaScript and the package disagree."""
    bad = []
    for case, py, js in zip(cases, py_results, js_results):
        where = json.dumps({k: v for k, v in case.items() if k != "model"} | {"model": case["model"].get("id")
                           or case["model"].get("fixture") or case["model"].get("custom")})
        if "error" in py or "error" in js:
            if ("error" in py) != ("error" in js):
                bad.append(f"{where}: package {py} vs calculator {js}"[:800])
            continue
        p, j = py["ok"], js["ok"]
        for key, pv in p.items():
            if not _same(pv, j.get(key, "<missing>")):
                bad.append(f"{where}: {key}: package {pv!r} vs calculator {j.get(key)!r}"[:800])
        extra = set(j) - set(p)
        if extra:
            bad.append(f"{where}: calculator outputs the package does not: {sorted(extra)}")
    return bad


@pytest.fixture(scope="module")
def parity(tmp_path_factory):
    """The grid, the package's results and the calculator's, computed once for this module."""
    cases = grid()
    py = [package_result(c) for c in cases]
    formats = format_cases(py)
    parses = [(key, t) for key in ("batch", "ctx", "prompt") for t in PARSE_TEXT]
    js = run_node(CALC_DIR, cases, formats, parses, tmp_path_factory.mktemp("parity"))
    return cases, py, formats, parses, js


# --------------------------------------------------------------------------- tests
def test_the_full_product_is_the_list_it_stands_for():
    # The first two devices' cases in full (every model, phase, batch, format, attention and length),
    # then the last case: the sample drawn from FullProduct is the one drawn from the list.
    listed = ((d, m, p, b, l, *f, a) for d, m, p, b, f, a in
              itertools.product(DEVICES, MODELS, PHASES, BATCHES, FORMATS, ATTENTION) for l in LENGTHS[p])
    full = FullProduct()
    n = 2 * len(full) // len(DEVICES)
    assert [full[j] for j in range(n)] == list(itertools.islice(listed, n))
    assert full[len(full) - 1] == (DEVICES[-1], MODELS[-1], PHASES[-1], BATCHES[-1], LENGTHS[PHASES[-1]][-1],
                                   *FORMATS[-1], ATTENTION[-1])
    with pytest.raises(IndexError):
        full[len(full)]


def test_grid_is_large_and_covers_every_axis(parity):
    cases, py, *_ = parity
    valid = [c for c, r in zip(cases, py) if "ok" in r]
    assert len(valid) >= 250
    for axis, values in (("phase", PHASES), ("wf", [f for f, _, _ in FORMATS]), ("attn", ATTENTION)):
        assert {c[axis] for c in valid} >= set(values), axis
    assert any("custom" in c["device"] for c in valid)
    ran = {json.dumps(c["model"].get("id") or c["model"].get("fixture") or c["model"]["custom"]) for c in valid}
    assert ran >= {json.dumps(i) for i in models()} | {json.dumps(f) for f in FIXTURE_MODELS}, "every model runs"
    assert len(FIXTURE_MODELS) >= 10
    assert sum(r["ok"]["fits"] is False for r in py if "ok" in r) >= 5, "the grid should include configurations that do not fit"
    assert sum(r["ok"]["bound"] == "compute-bound" for r in py if "ok" in r) >= 20
    laid = [r["ok"] for c, r in zip(cases, py) if "ok" in r and c["layout"] != [1, 1, 1]]
    assert len(laid) >= 40 and {r["layout"] for r in laid} >= {"TP8", "TP4 × PP2", "EP8", "PP4"}
    assert any(r["bound"] == "collective latency-bound" for r in laid) and any(r["kv_note"] for r in laid)
    assert any(r["bound"] == "link-bandwidth-bound" for r in laid)
    assert {r["collective_latency"].split(":")[0] for r in laid} >= {"floor", "NCCL ring (expected)", "set"}
    names = {op["name"] for r in py if "ok" in r for op in r["ok"]["ops"]}
    assert names >= {"attention", "attn_qk", "attn_softmax", "attn_pv", "experts_gate_up", "shared_gate_up", "router",
                     "dense_act", "lm_head", "weights", "attn_all_reduce", "logits_all_gather", "moe_dispatch_all_to_all",
                     "pp_send"}, "MLA, shared experts, dense-first layers and every collective are in the grid"


def test_every_output_matches_the_package(parity):
    cases, py, _, _, js = parity
    bad = mismatches(cases, py, js["results"])
    assert not bad, f"{len(bad)} mismatches, first ones:\n" + "\n".join(bad[:15])


def test_refusals_match(parity):
    cases, py, _, _, js = parity
    refused = [i for i, r in enumerate(py) if "error" in r]
    assert len(refused) >= len(INVALID)
    assert all("error" in py[-k] for k in range(1, len(INVALID) + 1)), "every refusal case is refused by the package"
    assert all("error" in js["results"][i] for i in refused)


def test_formatter_matches_format_py(parity):
    _, _, formats, _, js = parity
    bad = [(u, v, PY_FORMAT[u](v), got) for (u, v), got in zip(formats, js["formats"]) if PY_FORMAT[u](v) != got]
    assert len(formats) > 1000
    assert not bad, "format.js differs from format.py:\n" + "\n".join(map(repr, bad[:15]))


def test_typed_sizes_are_refused_exactly_where_the_package_refuses_them(parity):
    *_, parses, js = parity
    for (key, text), got in zip(parses, js["parses"]):
        want = _py_size_ok(key, text)
        if want is None:
            assert "message" in got and got["message"], (key, text, got)
        else:
            assert got.get("value") == want, (key, text, got)


def test_a_formula_changed_in_javascript_only_fails(tmp_path):
    mutant = mutated_calculator(tmp_path / "mutant", "kernels.js",
                                "2.0 * (qkDim + pvDim) * scores + K.softmax_flops_per_score * scores",
                                "2.0 * (qkDim + pvDim) * scores + 4 * scores")
    cases = [_case(*EXTRA[3])]  # fused attention: the mutated line
    js = run_node(mutant, cases, [], [], tmp_path)
    assert any(": ops:" in b for b in mismatches(cases, [package_result(c) for c in cases], js["results"]))


def test_a_formula_changed_in_the_package_only_fails(parity, monkeypatch):
    cases, _, _, _, js = parity
    # Count the MLP activation at 1 FLOP per element instead of 2: the JavaScript must disagree.
    monkeypatch.setattr(kernels, "GATED_ACT_FLOPS_PER_ELEMENT", 1.0)
    py = [package_result(c) for c in cases[:40]]
    assert any(": flops:" in b for b in mismatches(cases[:40], py, js["results"][:40]))


# --------------------------------------------------------------------------- reference by hand
def test_bare_param_count_matches_the_back_of_envelope():
    # 8e9 fp16 weights on an H100 SXM5 (3.35 TB/s): one weight matmul, 16e9 bytes, 16e9 FLOPs at batch 1:
    # 3.35e12 / 16e9 = 209.375 tokens/s, and the kernel sum equals the perfect-overlap bound (one kernel).
    r = calculate(get_device("h100-sxm5"), custom_model(8e9), "decode", 1, 1, "fp16")
    assert r["tokens_per_s"] == pytest.approx(209.375, rel=1e-12)
    assert r["time_s"] == r["time_perfect_overlap_s"] == pytest.approx(16e9 / 3.35e12, rel=1e-12)
    assert [op["name"] for op in r["ops"]] == ["weights"] and r["kv_resident_bytes"] == 0


def test_headline_is_the_kernel_sum_and_overlap_is_its_lower_bound():
    # The headline time is Σ kernel times (kernels run one after another); max(Σ compute, Σ memory) is below it
    # wherever some kernels are compute-bound and others memory-bound, as at batch 1000 with 256 tokens cached.
    r = calculate(get_device("h100-sxm5"), get_model("llama-3.1-8b"), "decode", 1000, 256)
    assert r["time_s"] == pytest.approx(sum(op["time_s"] for op in r["ops"]), rel=1e-12)
    assert r["time_perfect_overlap_s"] < 0.7 * r["time_s"]
    assert r["tokens_per_s"] == pytest.approx(1000 / r["time_s"], rel=1e-12)


def test_int4_g128_weight_bytes_by_hand():
    # A bare 8e9-parameter int4-g128 model: 0.5 + (2 + 0.5)/128 = 0.51953125 bytes per weight (GPTQ's qweight,
    # fp16 scales and packed zeros), so 8e9 × 0.51953125 = 4.15625e9 bytes per batch-1 step.
    r = calculate(get_device("h100-sxm5"), custom_model(8e9), "decode", 1, 1, "int4-g128")
    assert r["weight_bytes"] == pytest.approx(4.15625e9, rel=1e-12)
    # MXFP4 (OCP MX v1.0): 32 E2M1 elements of half a byte share one 1-byte E8M0 scale: 0.5 + 1/32 = 0.53125.
    r = calculate(get_device("h100-sxm5"), custom_model(8e9), "decode", 1, 1, "mxfp4")
    assert r["weight_bytes"] == pytest.approx(8e9 * 0.53125, rel=1e-12)


def test_custom_device_ridge_by_hand():
    # 500 TFLOP/s ÷ 1.2 TB/s = 416.67 FLOP/byte; fp8 weights with bf16 activations dequantize to the 16-bit peak.
    r = calculate(custom_device(*CUSTOM_DEVICE), get_model("llama-3.1-8b"), "decode", 1, 1, "fp8")
    assert r["ridge_point"] == pytest.approx(500 / 1.2, rel=1e-12)
    assert r["compute_dtype"] == "bf16"


def test_memory_wall_by_hand():
    # A bare model has no KV cache, so no per-sequence memory: no memory wall is stated for it.
    assert calculate(get_device("h100-sxm5"), custom_model(8e9))["max_batch_that_fits"] is None
    # Llama 3.1 70B in bf16 (141.1 GB of weights) does not fit one H100 (85.5e9 usable bytes): not even batch 1.
    r = calculate(get_device("h100-sxm5"), get_model("llama-3.1-70b"), "decode", 1, 1024)
    assert r["fits"] is False and r["max_batch_that_fits"] == 0


@pytest.mark.parametrize("args, fragment", [
    ((0, 1e12, 1e9), "peak FLOP/s"), ((1e15, 0, 1e9), "memory bandwidth"), ((1e15, 1e12, -1), "memory capacity"),
    ((1e15, float("inf"), 1e9), "memory bandwidth"),
])
def test_custom_device_refuses_non_positive(args, fragment):
    with pytest.raises(InputError, match=fragment):
        custom_device(*args)


def test_custom_model_refuses_a_bad_count():
    with pytest.raises(InputError):
        custom_model(0)


def test_registry_export_is_complete_and_json():
    data = json.loads(json.dumps(registry_json()))
    assert [d["id"] for d in data["devices"]] == list(devices())
    assert [m["id"] for m in data["models"]] == list(models())
    assert data["constants"]["kernels"]["critical_batch_max"] == 1 << 20
    assert data["constants"]["weight_formats"][:4] == ["bf16", "fp16", "fp32", "fp8"]
    h100 = next(d for d in data["devices"] if d["id"] == "h100-sxm5")
    assert h100["memory_bandwidth_bytes_per_s"] == get_device("h100-sxm5").memory_bandwidth_bytes_per_s
    # Only what the scripts read: no sources or memory type (each byte is page weight); the H100 has NVLink, so no
    # note on why a layout needs a link, which a device without one (the MI250X here) keeps.
    assert not {"source_url", "source_title", "memory_type", "capacity_unit", "interconnect_note"} & set(h100)
    assert not {"latency_source_url", "latency_floor_source_url"} & set(h100["interconnect"])
    assert not {"source_url", "source_title"} & set(data["models"][0])
    mi250x = next(d for d in data["devices"] if d["id"] == "mi250x")
    assert mi250x["interconnect"] is None and mi250x["interconnect_note"] == get_device("mi250x").interconnect_note


def test_layouts_across_nodes_send_the_networks_share(parity):
    # DeepSeek-V3 (61 layers, hidden 7,168, 8 experts a token; its config.json) at EP16 over two 8-GPU H100 nodes,
    # batch 64 in FP8 activations (1 byte): each rank's attention takes 64 ÷ 16 = 4 sequences, so one all-to-all
    # run carries 4 × 8 × 7,168 × 1 = 229,376 bytes of routed copies; a rank sends 15/16 of them away, and of
    # those (16 − 8) ÷ 15 go to the other node, so the network carries 229,376 ÷ 2 = 114,688 bytes a run. Dispatch
    # and combine run once a layer: 2 × 61 × 114,688 = 13,991,936 bytes a step, at 50 GB/s (one 400 Gb/s NIC a
    # GPU, each way) 279.8 µs.
    cases, py, _, _, js = parity
    at = {json.dumps([c["device"], c["model"], c["layout"], c["nodes"], c["phase"]]): (p, j)
          for c, p, j in zip(cases, py, js["results"]) if c["nodes"] is not None or c["layout"][2] >= 16}
    p, j = at[json.dumps([{"id": "h100-sxm5"}, {"id": "deepseek-v3"}, [1, 1, 16], 2, "decode"])]
    assert p["ok"]["layout"] == j["ok"]["layout"] == "EP16"
    assert j["ok"]["network_bytes"] == pytest.approx(2 * 61 * 114_688, rel=1e-12)
    assert j["ok"]["network_time_s"] == pytest.approx(2 * 61 * 114_688 / 50e9, rel=1e-12)
    assert 0 < j["ok"]["network_share"] < 1
    # four nodes with no layout given: EP over all 32 GPUs, as DeepSeek's and SGLang's deployments run it
    p, j = at[json.dumps([{"id": "h100-sxm5"}, {"id": "deepseek-v3"}, [1, 1, 1], 4, "decode"])]
    assert j["ok"]["layout"] == "EP32" and j["ok"]["network_share"] > 0 and "network's floor" in j["ok"]["collective_latency"]
    # two GB200 trays of four sit in one 72-GPU NVLink domain: nothing crosses the network
    p, j = at[json.dumps([{"id": "gb200-per-gpu"}, {"id": "deepseek-v3"}, [1, 1, 1], 2, "decode"])]
    assert j["ok"]["layout"] == "EP8" and j["ok"]["network_bytes"] == 0 and j["ok"]["network_share"] == 0
    # a dense model over two nodes: TP8 in each, two pipeline stages, the one send between them on the network
    p, j = at[json.dumps([{"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, [1, 1, 1], 2, "decode"])]
    assert j["ok"]["layout"] == "TP8 × PP2" and j["ok"]["network_bytes"] > 0
