"""Named quantities with provenance: the vocabulary of the site's number tokens.

Every token function returns a `Quantity` (a value, its unit, a label, the formula in
words, and the sourced inputs it came from) or a view whose attributes are
Quantities. The site's token hook evaluates `{{ ridge("h100-sxm5") }}` in `NAMESPACE`
and renders the result through `format.py`; the provenance popover shows `formula`
and `inputs`. One module per topic; each lists its token functions in `TOKENS`, and
`NAMESPACE` is built from those lists, so a token exists only where it is registered.
"""

from __future__ import annotations

from importlib import import_module

from roofline.model.roofs import COMPUTE_BOUND, MEMORY_BOUND
from roofline.quantities.core import (  # noqa: F401
    ClaimFailed,
    Input,
    Quantity,
    Source,
    claim,
    example,
    ratio,
    rounded,
    share,
)
from roofline.quantities.architecture import *  # noqa: F401,F403
from roofline.quantities.hardware import *  # noqa: F401,F403  (the token functions, for Python callers)
from roofline.quantities.inference import *  # noqa: F401,F403
from roofline.quantities.machine import *  # noqa: F401,F403
from roofline.quantities.measured import *  # noqa: F401,F403
from roofline.quantities.ops import *  # noqa: F401,F403
from roofline.quantities.playbook import *  # noqa: F401,F403
from roofline.quantities.parallel import *  # noqa: F401,F403
from roofline.quantities.serving import *  # noqa: F401,F403
from roofline.quantities.serving_runs import *  # noqa: F401,F403
from roofline.quantities.nodes import *  # noqa: F401,F403
from roofline.quantities.expected import *  # noqa: F401,F403
from roofline.quantities.buying import *  # noqa: F401,F403

# By module path: `machine` and `measured` are also the names of token functions above.
TOPICS = tuple(import_module(f"roofline.quantities.{name}")
               for name in ("core", "hardware", "ops", "inference", "playbook", "measured", "machine",
                            "architecture", "parallel", "serving", "serving_runs", "nodes", "expected", "buying"))


def _namespace() -> dict:
    names: dict = {"MEMORY_BOUND": MEMORY_BOUND, "COMPUTE_BOUND": COMPUTE_BOUND}
    for topic in TOPICS:
        for fn in topic.TOKENS:
            if fn.__name__ in names:
                raise RuntimeError(f"token {fn.__name__!r} registered twice ({topic.__name__})")
            names[fn.__name__] = fn
    return names


#: What a `{{ ... }}` token on a page can call: every topic's TOKENS and the two bound names.
NAMESPACE = _namespace()

__all__ = ["ClaimFailed", "Input", "NAMESPACE", "Quantity", "Source"]
