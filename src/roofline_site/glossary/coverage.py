"""Does every glossary entry earn its place, and does every term of art a page uses have an entry?

Both checks read plain prose (what a card may go into: the caller strips code, tokens, math,
links, headings and HTML) and use the card matcher (`find_mentions`), so "mentioned" means
what the hover cards mean by it.

- `unmentioned(glossary, texts)`: entries whose term and aliases appear in none of the texts.
- `undefined_terms(glossary, text)`: terms of art in the text that no entry names. After every
  glossary mention is masked, a candidate is
  (a) a word of letters only with at least two capitals: an acronym or a CamelCase name
      (GQA, SRAM, InfiniBand). Words with digits are product or format names (H100, FP8);
      formats are in TERMS_OF_ART instead. NOT_TERMS lists the capitalised words that are
      proper names or units rather than terms of art (vendors, products, papers, file
      formats), each with its reason;
  (b) a phrase from TERMS_OF_ART, a curated list of lower-case terms of art (matched in any
      case, as whole words, with a plural s) that the glossary must cover wherever a page
      uses them.
  A capitalised word the pages start using (a new acronym) fails the check until it gets an
  entry, an alias, or a line in NOT_TERMS saying why it is not a term of art.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from roofline_site.glossary.entries import Glossary, find_mentions

#: Capitalised words that are not terms of art: proper names and units. Each group says why.
NOT_TERMS = frozenset({
    # vendors, products and product lines (the hardware reference names them)
    "NVIDIA", "AMD", "EPYC", "HGX", "DGX", "RTX", "SXM", "NVL", "GeForce", "Xeon", "Apple", "DeepSeek",
    "PyTorch", "JavaScript", "FlashMLA", "TunableOp", "DistServe", "Llama", "Qwen", "Mixtral",
    "AIConfigurator", "DeepGEMM",  # NVIDIA's serving-configuration tool and DeepSeek's matmul library, by name
    "AITER",  # AMD's kernel library for ROCm, by name
    "SHARP",  # NVIDIA's in-switch reduction product name (NVLink SHARP)
    "CUDA", "ROCm", "BLAS",  # software platforms and the linear-algebra library interface
    # everyday computing words the site assumes (start-here says what it assumes)
    "GPU", "CPU", "TPU", "ALU", "LLM", "API", "SKU",
    # file formats, tools and documents
    "CSV", "JSON", "CLI", "URL", "HTML", "README", "SVG", "PDF",
    # conferences and standards bodies cited by name
    "ICML", "SOSP", "OSDI", "OCP", "JEDEC", "IEEE",
    # a benchmark suite, named by its owner (Serving cites it)
    "MLPerf",
    # units
    "GB", "GiB", "TB", "MB", "KB", "MiB", "TOP", "TOPS", "FLOPS",
})

#: Lower-case terms of art that must have an entry wherever a page uses them.
TERMS_OF_ART = (
    "arithmetic intensity", "ridge point", "roofline", "memory-bound", "compute-bound", "critical batch",
    "speed of light", "perfect overlap", "whole-step crossing", "largest batch that fits", "memory hierarchy",
    "shared memory", "L2 cache", "last-level cache", "sustained bandwidth", "usable memory", "runtime reserve",
    "scale-up domain", "scale-out network", "systolic array", "tensor core", "grouped-query attention",
    "multi-query attention", "multi-head attention", "latent attention", "sliding window", "context length",
    "context window", "activations", "embedding table", "output head", "logits", "active parameters",
    "feed-forward", "weight-only", "dequantize", "dequantization", "group-wise", "structured sparsity",
    "kv cache", "prefill", "decode", "batching", "continuous batching", "chunked prefill", "prefix caching",
    "paged attention", "operator fusion", "kernel fusion", "speculative decoding", "mixture of experts",
    "tensor parallelism", "pipeline parallelism", "expert parallelism", "data parallelism", "all-reduce",
    "all-gather", "reduce-scatter", "all-to-all", "pipeline bubble", "launch overhead", "occupancy",
    "latency hiding", "little's law", "throughput", "latency", "goodput", "service-level objective",
    "time to first token", "time per output token", "tokens per second", "cost per token", "energy per token",
    "offline serving", "online serving", "pareto frontier", "disaggregated", "quantization", "quantized",
    "bfloat16", "int8", "int4", "fp4", "fp8", "mxfp4", "nvfp4", "thermal design power", "model flops utilization",
    "model bandwidth utilization", "matrix multiplication", "matrix-vector",
)

_CAPITALISED = re.compile(r"(?<![\w/\-.])([A-Z][A-Za-z]*[A-Z][A-Za-z]*)(?![\w/]|-\w|\.\w)")


def _phrase(term: str) -> re.Pattern:
    words = r"[\s\u00a0-]+".join(re.escape(w) for w in re.split(r"[\s-]+", term))
    return re.compile(rf"(?<![\w/\-])(?i:{words})s?(?![\w/]|-\w)")


_TERM_PATTERNS = tuple((t, _phrase(t)) for t in TERMS_OF_ART)


def _singular(word: str) -> str:
    """'GPUs' -> 'GPU'; 'SRAM' and 'Pass' stay as they are."""
    return word[:-1] if word.endswith("s") and sum(c.isupper() for c in word[:-1]) >= 2 else word


def mask_mentions(text: str, glossary: Glossary) -> str:
    """`text` with every glossary mention blanked out (same length), so what is left is unnamed."""
    out, last = [], 0
    for m in find_mentions(text, glossary):
        out += [text[last:m.start], " " * (m.end - m.start)]
        last = m.end
    return "".join(out) + text[last:]


def undefined_terms(glossary: Glossary, text: str) -> set[str]:
    """Terms of art in `text` that no entry names (see the module docstring for what counts)."""
    rest = mask_mentions(text, glossary)
    found = {w for m in _CAPITALISED.finditer(rest) if (w := _singular(m.group(1))) not in NOT_TERMS}
    found |= {term for term, pattern in _TERM_PATTERNS if pattern.search(rest)}
    return found


def mentioned(glossary: Glossary, texts: Iterable[str]) -> set[str]:
    """Slugs of the entries that at least one of `texts` mentions."""
    return {m.slug for text in texts for m in find_mentions(text, glossary)}


def unmentioned(glossary: Glossary, texts: Iterable[str]) -> list[str]:
    """Slugs of entries that none of `texts` mentions, sorted."""
    return sorted(set(glossary.by_slug) - mentioned(glossary, texts))
