"""Numeric formats: bytes per element, and which peak a format computes at."""

from roofline.errors import InputError

#: Bytes per element. int4 packs two values per byte.
BYTES_PER_ELEMENT: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "fp4": 0.5,
}

#: Formats a device may publish a dense peak for (int8 peaks are operations, not FLOPs: see peak_unit).
PEAK_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "fp4")

#: Formats weights and KV cache may be stored in.
STORAGE_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")


def peak_unit(dtype: str) -> str:
    """'OP/s' for integer formats (vendors quote TOPS), 'FLOP/s' for floating-point ones."""
    return "OP/s" if dtype.startswith("int") else "FLOP/s"


def bytes_per_element(dtype: str) -> float:
    """Bytes one element of `dtype` occupies; e.g. bytes_per_element("bf16") == 2.0."""
    try:
        return BYTES_PER_ELEMENT[dtype]
    except KeyError:
        raise InputError(
            f"unknown dtype {dtype!r}: expected one of {', '.join(STORAGE_DTYPES)}"
        ) from None


def check_storage_dtype(dtype: str, what: str) -> str:
    """Return `dtype` if weights or KV cache can be stored in it, else raise naming `what`."""
    if dtype not in STORAGE_DTYPES:
        raise InputError(
            f"unknown {what} {dtype!r}: expected one of {', '.join(STORAGE_DTYPES)}"
        )
    return dtype
