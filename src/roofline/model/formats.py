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
from roofline.model.dtypes import BYTES_PER_ELEMENT

# The group-wise layout above: AutoGPTQ's QuantLinear stores qweight, qzeros and scales per group
# (https://github.com/AutoGPTQ/AutoGPTQ); AWQ uses group size 128, fp16 scales, int4 zeros
# (https://github.com/mit-han-lab/llm-awq).

# MXFP4: 32 E2M1 elements per block, one E8M0 scale per block (OCP Microscaling Formats (MX)
# Specification v1.0, https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
MX_BLOCK_SIZE = 32
MX_SCALE_BYTES = 1.0  # E8M0: an 8-bit exponent, no mantissa

# NVFP4: 16 E2M1 elements share one FP8 E4M3 scale, plus one FP32 scale per tensor (negligible), so
# 4 + 8/16 = 4.5 bits per weight (NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision
# Inference", https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-accurate-low-precision-inference/).
NVFP4_BLOCK_SIZE = 16
NVFP4_SCALE_BYTES = 1.0  # E4M3

# fp8 blocks: e4m3 weights, one float32 `weight_scale_inv` per 128 × 128 block (DeepSeek-V3's
# quantization_config weight_block_size; DeepSeek-V3 Weight File Documentation,
# https://github.com/deepseek-ai/DeepSeek-V3/blob/main/README_WEIGHTS.md).
FP8_BLOCK_SCALE_BYTES = 4.0  # float32

#: A bare parameter count has no layer shapes, so a per-channel format's scales (one fp16 scale and
#: zero point per output channel: 3 bytes per k weights, 0.07 % of int8's bytes at k = 4096) are left out.
BARE_PER_CHANNEL_NOTE = ("a bare parameter count has no layer shapes: per-channel scales (one fp16 scale and "
                         "zero point per output channel, under 0.1 % of the bytes for layers 4096 wide) are left out")

#: Which tensors a weight format covers. A checkpoint's quantization_config decides it (gpt-oss
#: stores only its routed experts in MXFP4); --weight-format covers every linear layer of the
#: blocks unless --weight-scope narrows it. Router, embedding and output head stay 16-bit in all.
WEIGHT_SCOPES = {
    "linear": ("attention", "mlp", "experts", "shared"),
    "mlp": ("mlp", "experts", "shared"),
    "experts": ("experts",),
}
SCOPE_WORDS = {
    "linear": "every linear layer of the blocks (attention, MLP, experts)",
    "mlp": "the MLP and expert weights (attention stays 16-bit)",
    "experts": "the routed experts only (attention, router and shared experts stay 16-bit)",
}

SCALE_BYTES = 2.0  # fp16 scale per group
DEFAULT_GROUP_SIZE = 128

#: KV-cache dtypes (no engine stores a 4-bit float cache in this model).
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")

#: What --weight-format accepts, for error messages.
WEIGHT_FORMAT_HELP = ("fp32, bf16, fp16, fp8, fp8-bN (N×N blocks, fp32 scales), fp8-gN, int8, int8-gN, int4, int4-gN "
                      "(N a power of two; int4 = int4-g128), int4-ch (per channel), mxfp4, nvfp4")

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
    scale_bytes: float = 2.0  # per group: fp16 for GPTQ/AWQ, E8M0 (1 byte) for MX, E4M3 for NVFP4, fp32 for fp8 blocks

    @property
    def element_bytes(self) -> float:
        return BYTES_PER_ELEMENT[self.element]

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

    @property
    def per_channel(self) -> bool:
        """Integer weights with one scale per output channel (no fixed group)."""
        return self.is_integer and not self.group_size

    def bare_bytes_per_weight(self) -> float:
        """Bytes per weight of a bare parameter count: group metadata counted, per-channel scales
        left out (`BARE_PER_CHANNEL_NOTE`: no layer shapes to size them by)."""
        return self.element_bytes if self.per_channel else self.bytes_per_weight()


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
    if t == "nvfp4":  # NVIDIA: 16 E2M1 elements share one E4M3 scale (+ one fp32 scale per tensor)
        return WeightFormat("nvfp4", "fp4", NVFP4_BLOCK_SIZE, zero_points=False, scale_bytes=NVFP4_SCALE_BYTES)
    if t in ("int4-ch", "int8-ch"):  # GPTQ group_size -1: one scale and zero point per output channel
        return WeightFormat("int8" if t == "int8-ch" else t, t[:4], 0, zero_points=True)
    b = re.fullmatch(r"fp8-([bg])(\d+)", t)
    if b:  # e4m3 with one fp32 scale per N×N block (fp8-bN) or per N weights (fp8-gN)
        n = int(b.group(2))
        if not 1 <= n <= (4096 if b.group(1) == "b" else 1 << 24):
            raise InputError(f"weight format {text!r}: the block size must be a whole number from 1 to "
                             f"{4096 if b.group(1) == 'b' else 1 << 24}, got {b.group(2)}")
        return WeightFormat(f"fp8-{b.group(1)}{n}", "fp8", n * n if b.group(1) == "b" else n, zero_points=False,
                            scale_bytes=FP8_BLOCK_SCALE_BYTES)
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

    `weights` covers the tensor groups `scope` names (WEIGHT_SCOPES: every linear layer of the
    blocks, the MLP and experts, or the routed experts only); `head` is the format of the
    embedding table, output head, router and every linear layer outside the scope: 16-bit unless
    the checkpoint quantizes the head too (GPTQ's and AWQ's default leaves it out).

    >>> Formats.of("mxfp4", scope="experts").weights_for("attention").name
    'bf16'
    """

    weights: WeightFormat
    activation: str = "bf16"
    kv: str = "bf16"
    head: WeightFormat | None = None
    scope: str = "linear"

    @classmethod
    def of(cls, weights: str = "bf16", activation: str = "bf16", kv: str = "bf16",
           quantize_head: bool = False, scope: str = "linear") -> "Formats":
        w = parse_weight_format(weights)
        if activation not in ACTIVATION_DTYPES:
            raise InputError(f"unknown activation dtype {activation!r}: expected one of {', '.join(ACTIVATION_DTYPES)}")
        if kv not in KV_DTYPES:
            raise InputError(f"unknown KV dtype {kv!r}: expected one of {', '.join(KV_DTYPES)}")
        if scope not in WEIGHT_SCOPES:
            raise InputError(f"unknown weight scope {scope!r}: expected one of {', '.join(WEIGHT_SCOPES)}")
        sixteen = activation if activation in ("bf16", "fp16") else "bf16"
        if w.element == "fp32":
            sixteen = "fp32"
        head = w if quantize_head or w.element in ("bf16", "fp16", "fp32") else WeightFormat(sixteen, sixteen)
        return cls(w, activation, kv, head, scope)

    def weights_for(self, group: str) -> WeightFormat:
        """The format of one tensor group ('attention', 'mlp', 'experts', 'shared'; anything else: the head's)."""
        if group in WEIGHT_SCOPES[self.scope]:
            return self.weights
        h = self.head_format
        return h if h.element in ("bf16", "fp16", "fp32") else WeightFormat("bf16", "bf16")

    @property
    def scope_words(self) -> str:
        """Which tensors `weights` covers, in words (what every output says beside the format)."""
        if self.weights.element in ("bf16", "fp16", "fp32"):
            return "every weight"
        return SCOPE_WORDS[self.scope]

    @property
    def activation_bytes(self) -> float:
        return BYTES_PER_ELEMENT[self.activation]

    @property
    def kv_bytes(self) -> float:
        return BYTES_PER_ELEMENT[self.kv]

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


# ------------------------------------------------------------------ the checkpoint's own format --
#: The weight-format value that asks for the checkpoint's own (page tokens, the calculator's select).
CHECKPOINT = "checkpoint"

#: Why a step uses the weight format it does: every output names one of these.
SOURCE_EXPLICIT = "--weight-format"
SOURCE_CONFIG = "read from config.json quantization_config"
SOURCE_REGISTRY = "checkpoint format from the registry"
SOURCE_SIXTEEN = "no quantization_config: the checkpoint stores 16-bit weights"
SOURCE_BARE = "a bare parameter count has no checkpoint: bf16 unless --weight-format says otherwise"


@dataclass(frozen=True)
class WeightChoice:
    """The weight format a step uses, the tensors it covers, and why (the rule below).

    >>> WeightChoice("mxfp4", "experts", SOURCE_REGISTRY).format
    'mxfp4'
    """

    format: str
    scope: str
    source: str


def checkpoint_format_name(kind: str, group_size: int) -> str:
    """A stored quantization (Model.weight_format, Model.weight_group_size) as a weight-format name.

    >>> checkpoint_format_name("fp8-block", 128 * 128), checkpoint_format_name("int4", 0)
    ('fp8-b128', 'int4-ch')
    """
    if kind in ("mxfp4", "nvfp4") or (kind == "fp8" and not group_size):
        return kind
    if kind == "fp8-block":
        side = int(round(group_size ** 0.5))
        return f"fp8-b{side}" if side * side == group_size else f"fp8-g{group_size}"
    if kind in ("int4", "int8"):
        if group_size:
            return f"{kind}-g{group_size}"
        return "int4-ch" if kind == "int4" else "int8"
    raise InputError(f"unknown checkpoint weight format {kind!r}")


def choose_weight_format(model, explicit: str | None = None, scope: str | None = None) -> WeightChoice:
    """The one rule (mirrored by the calculator's kernels.js `chooseWeightFormat`): an explicit
    format wins and covers every linear layer of the blocks unless `scope` narrows it; otherwise
    the checkpoint's own format (from its config.json or the registry) over the tensors the
    checkpoint stores in it; otherwise 16-bit.

    >>> choose_weight_format(get_model("gpt-oss-20b"))
    WeightChoice(format='mxfp4', scope='experts', source='checkpoint format from the registry')
    """
    choice = _chosen(model, explicit, scope)
    if choice.scope == "experts" and not getattr(model, "is_moe", False) and not getattr(model, "is_bare", False):
        # Labelled int4 over the experts, computed in 16-bit over everything: refused instead.
        raise InputError(f"weight scope 'experts' selects no tensors: {getattr(model, 'name', 'the model')} has no "
                         "routed experts (it is dense)")
    return choice


def _chosen(model, explicit: str | None, scope: str | None) -> WeightChoice:
    if scope is not None and scope not in WEIGHT_SCOPES:
        raise InputError(f"unknown weight scope {scope!r}: expected one of {', '.join(WEIGHT_SCOPES)}")
    if explicit is not None:
        return WeightChoice(parse_weight_format(explicit).name, scope or "linear", SOURCE_EXPLICIT)
    kind = getattr(model, "weight_format", "")
    if kind:
        name = checkpoint_format_name(kind, getattr(model, "weight_group_size", 0))
        own = getattr(model, "weight_scope", "") or ("experts" if kind == "mxfp4" else "linear")
        source = SOURCE_CONFIG if getattr(model, "weight_format_origin", "") == "config" else SOURCE_REGISTRY
        return WeightChoice(name, scope or own, source)
    if scope is not None:  # a scope narrows a format; over 16-bit weights it would change nothing
        raise InputError(f"a weight scope narrows a weight format, and none is given: "
                         f"{getattr(model, 'name', 'the model')} is stored in 16-bit; give a weight format with it")
    if getattr(model, "is_bare", False):
        return WeightChoice("bf16", "linear", SOURCE_BARE)
    return WeightChoice("bf16", "linear", SOURCE_SIXTEEN)
