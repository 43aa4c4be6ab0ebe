"""What the glossary is: its entries, its categories and the one error a malformed file raises.

The records the loader (entries.py) fills and the matcher, the hover cards (annotate.py) and the
generated pages (pages.py) read. No MkDocs import in this package: the hook module
(`hooks/glossary_hook.py`) and the gen-files script (`gen/glossary_pages.py`) are the MkDocs glue.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from roofline.quantities import Source  # a source is a title and a URL, as in the number provenance

#: Folder name -> the label a card and the index show, in the index's order.
CATEGORIES = {
    "performance-model": "Performance model",
    "hardware": "Hardware",
    "model": "Model anatomy",
    "operation": "Operation",
    "number-format": "Number format",
    "inference-phase": "Inference phase",
    "execution": "Execution",
    "optimization": "Optimization",
    "parallelism": "Parallelism",
    "metric": "Metric",
    "serving": "Serving",
    "software": "Engines and tools",
}
#: Folder name -> the one sentence that opens its group on the glossary index.
CATEGORY_INTROS = {
    "performance-model": "The roofline itself: the two roofs, where they meet, and the bounds the site computes from them.",
    "hardware": "What a chip brings: its math units, its memories from registers to HBM, and the links between chips.",
    "model": "The parts of a transformer whose sizes set the bytes and FLOPs of every step.",
    "operation": "The kernels a step is made of, named by the shape of their math.",
    "number-format": "How many bits each weight, activation or cached value takes, and which peak a format runs at.",
    "inference-phase": "The two phases of generating text and the state that carries between them.",
    "execution": "How a GPU runs kernels, and the overheads that keep it below its roofs.",
    "optimization": "Moves that cut bytes, add useful FLOPs per byte, or keep the batch full.",
    "parallelism": "Ways to split one model over many chips, and the collectives each split needs.",
    "metric": "What you measure a running model by, and which roof each measure is compared with.",
    "serving": "The words of running a model for many users at once: requests, deadlines and trade-offs.",
    "software": "The engines and benchmarks whose numbers the site cites.",
}


class GlossaryError(Exception):
    """A glossary file is malformed: the message names the file and the field."""


@dataclass(frozen=True)
class Entry:
    """One glossary term, as its front matter and body declare it."""

    slug: str
    term: str
    aliases: tuple[str, ...]
    category: str
    summary: str
    sources: tuple[Source, ...]
    see_also: tuple[str, ...]
    body: str
    path: str  # relative to the repository root, e.g. "glossary/hardware/hbm.md"
    bindings: tuple[tuple[str, str], ...] = ()  # (name, expression): the body's tokens use the names
    # False for a word so common that marking it in every section would bury the other terms
    # ("token"): pages link it by hand, and the matcher leaves it alone.
    marked: bool = True

    @property
    def names(self) -> tuple[str, ...]:
        return (self.term, *self.aliases)

    @property
    def category_label(self) -> str:
        return CATEGORIES[self.category]

    @property
    def url(self) -> str:
        """Site-relative URL of the published page."""
        return f"glossary/{self.slug}/"


@dataclass(frozen=True)
class Glossary:
    """All entries, the old-slug redirects, and the compiled term matcher."""

    entries: tuple[Entry, ...]
    redirects: dict = field(default_factory=dict)  # old slug -> current slug
    matcher: "Matcher" = field(default=None, repr=False, compare=False)  # matching.py compiles it
    group_slug: dict = field(default_factory=dict, repr=False, compare=False)  # matcher group -> slug

    @property
    def by_slug(self) -> dict[str, Entry]:
        return {e.slug: e for e in self.entries}

    def get(self, slug: str) -> Entry:
        return self.by_slug[slug]
