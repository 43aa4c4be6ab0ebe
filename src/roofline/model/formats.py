"""Number formats as checkpoints store them: weights (with group scales), activations, KV cache.

Effective bytes per weight include the per-group metadata a quantized checkpoint stores.
GPTQ (AutoGPTQ / GPTQModel) and AWQ checkpoints hold, per linear layer of k inputs and n outputs,
`qweight` [k/8, n] int32 (eight 4-bit weights per word), `scales` [k/g, n] fp16 and `qzeros`
[k/g, n/8] int32 (4-bit zero points, stored even for symmetric checkpoints), so int4 with group g
costs 0.5 + 2/g + 0.5/g bytes per weight: 0.51953125 at g = 128. Their `quantize_config.json`
has `lm_head: false` by default: the embedding and output head stay 16-bit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from roofline.errors import InputError

#: Where the group-wise layout above is documented.
GROUPWISE_SOURCES = (
    ("AutoGPTQ: QuantLinear stores qweight, qzeros and scales per group",
     "https://github.com/AutoGPTQ/AutoGPTQ"),
    ("AWQ: activation-aware weight quantization (group size 128, fp16 scales, int4 zeros)",
     "https://github.com/mit-han-lab/llm-awq"),
)

#: Where MXFP4 is specified: 32 E2M1 elements per block, one E8M0 scale per block.
MX_SOURCE = ("OCP Microscaling Formats (MX) Specification v1.0",
             "https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf")
MX_BLOCK_SIZE = 32
MX_SCALE_BYTES = 1.0  # E8M0: an 8-bit exponent, no mantissa

SCALE_BYTES = 2.0  # fp16 scale per group
DEFAULT_GROUP_SIZE = 128

#: Element bytes of the plain formats (int4 packs two per byte).
_ELEMENT_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5, "fp4": 0.5}

#: KV-cache dtypes (no engine stores a 4-bit float cache in this model).
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")

#: What --weight-format accepts, for error messages.
WEIGHT_FORMAT_HELP = ("fp32, bf16, fp16, fp8, int8, int8-gN, int4, int4-gN (N a power of two; int4 = int4-g128), "
                      "mxfp4")

#: Activation dtypes a matmul can take as its left operand.
ACTIVATION_DTYPES = ("bf16", "fp16", "fp8", "int8", "fp32", "fp4")


@dataclass(frozen=True)
class WeightFormat:
    """How a checkpoint stores its linear-layer weights: element format plus group metadata.

    >>> parse_weight_format("int4-g128").bytes_per_weight()  # 0.5 + (2 + 0.5)/128
    0.51953125
    """

    name: str
    element: str              # "bf16", "fp16", "fp8", "int8", "int4", "fp32", "fp4"
    group_size: int = 0       # 0: no group metadata (float formats; fp8 per-tensor scale is negligible)
    zero_points: bool = False
    scale_bytes: float = 2.0  # per group: fp16 for GPTQ/AWQ, E8M0 (1 byte) for MX formats

    @property
    def element_bytes(self) -> float:
        return _ELEMENT_BYTES[self.element]

    @property
    def is_integer(self) -> bool:
        return self.element.startswith("int")

    def bytes_per_weight(self, in_features: float | None = None) -> float:
        """Bytes per weight with the group metadata (a per-channel group spans `in_features`)."""
        if not self.is_integer and not self.group_size:
            return self.element_bytes
        group = self.group_size or in_features
        if not group:
            raise InputError(f"{self.name}: per-channel scales need the layer's input size")
        zero = self.element_bytes if self.zero_points else 0.0
        return self.element_bytes + (self.scale_bytes + zero) / group


def group_size_problem(size: int) -> str:
    """Why `size` is no group size a GPTQ/AWQ checkpoint has, or '': the rule `--weight-format int4-gN` and a
    config.json's quantization_config.group_size share.

    >>> group_size_problem(3), group_size_problem(128)
    ('must be a positive power of two up to 1048576, got 3', '')
    """
    if size < 1 or size & (size - 1) or size > 1 << 20:
        return f"must be a positive power of two up to 1048576, got {size}"
    return ""


def parse_weight_format(text: str) -> WeightFormat:
    """A weight format from its name: "bf16", "fp8", "int8" (per-channel), "int4-g128", "int4-g64".

    int formats carry fp16 scales and zero points at the element's width (the GPTQ/AWQ layout);
    "int4" alone means int4-g128, "int8" alone per-output-channel scales.

    >>> parse_weight_format("int4").group_size
    128
    """
    t = str(text).strip().lower()
    if t in ("fp32", "bf16", "fp16", "fp8"):
        return WeightFormat(t, t)
    if t == "mxfp4":  # OCP MX v1.0: 32 E2M1 elements share one E8M0 scale, no zero point
        return WeightFormat("mxfp4", "fp4", MX_BLOCK_SIZE, zero_points=False, scale_bytes=MX_SCALE_BYTES)
    m = re.fullmatch(r"(int8|int4)(?:-g(\d+))?", t)
    if not m:
        raise InputError(f"unknown weight format {text!r}: expected one of {WEIGHT_FORMAT_HELP}")
    element, group = m.group(1), m.group(2)
    if group is None:
        size = DEFAULT_GROUP_SIZE if element == "int4" else 0
    else:
        size = int(group)
        problem = group_size_problem(size)
        if problem:
            raise InputError(f"weight format {text!r}: the group size {problem}")
    name = f"{element}-g{size}" if size else element
    return WeightFormat(name, element, size, zero_points=True)


@dataclass(frozen=True)
class Formats:
    """The three precisions of a serving configuration, set separately.

    `head` is the format of the embedding table and output head: 16-bit unless the checkpoint
    quantizes them too (GPTQ's and AWQ's default leaves them out).

    >>> Formats.of("int4-g128").weights.name
    'int4-g128'
    """

    weights: WeightFormat
    activation: str = "bf16"
    kv: str = "bf16"
    head: WeightFormat | None = None

    @classmethod
    def of(cls, weights: str = "bf16", activation: str = "bf16", kv: str = "bf16",
           quantize_head: bool = False) -> "Formats":
        w = parse_weight_format(weights)
        if activation not in ACTIVATION_DTYPES:
            raise InputError(f"unknown activation dtype {activation!r}: expected one of {', '.join(ACTIVATION_DTYPES)}")
        if kv not in KV_DTYPES:
            raise InputError(f"unknown KV dtype {kv!r}: expected one of {', '.join(KV_DTYPES)}")
        sixteen = activation if activation in ("bf16", "fp16") else "bf16"
        if w.element == "fp32":
            sixteen = "fp32"
        head = w if quantize_head or w.element in ("bf16", "fp16", "fp32") else WeightFormat(sixteen, sixteen)
        return cls(w, activation, kv, head)

    @property
    def activation_bytes(self) -> float:
        return _ELEMENT_BYTES[self.activation]

    @property
    def kv_bytes(self) -> float:
        return _ELEMENT_BYTES[self.kv]

    @property
    def head_format(self) -> WeightFormat:
        return self.head or self.weights

    def matmul_dtype(self, weights: WeightFormat | None = None) -> str:
        """The format a weight matmul computes in, i.e. which peak it runs at.

        fp8 weights × fp8 activations run on the fp8 peak, int8 × int8 on the int8 peak, mxfp4 ×
        fp4 on the fp4 peak; weight-only formats (int4, mxfp4, int8 or fp8 weights with 16-bit
        activations) are dequantized and multiplied at the activation format's peak.
        """
        w = weights or self.weights
        if w.element == self.activation:
            return self.activation
        if "fp32" in (w.element, self.activation):
            return "fp32"
        if w.element in ("bf16", "fp16"):  # 8-bit activations never pull 16-bit weights onto an 8-bit peak
            return w.element
        return self.activation if self.activation in ("bf16", "fp16") else "bf16"
