"""Every memo the package keeps, emptied at once.

The package answers a repeated call from a memo (a kernel step, an efficiency fit, a run's ceiling, a
quantity's search or frontier), and it reads the registry only when it computes. A caller that records
what a computation read (`registry.loader.traced_reads`) in a process that has already computed much
empties them first (`forget_all`): each value is then computed afresh, and the trace holds every entry
the result depends on.
"""

from __future__ import annotations

import sys


def forget_all() -> None:
    """Empty the package's memos: its module-level stores and every lru_cache of its modules loaded now.
    The parsed spec files stay: reading an entry records it however often the file was parsed."""
    from roofline.model import efficiency, kernels, serving_runs
    from roofline.quantities import inference
    from roofline.registry import measurements

    for forget in (kernels.forget_steps, efficiency.forget_fits, serving_runs.forget_ceilings,
                   inference.forget_searches, measurements.forget_kernel_rows):
        forget()
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "roofline" or name.startswith("roofline.")):
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)) and hasattr(value, "cache_info"):
                value.cache_clear()
