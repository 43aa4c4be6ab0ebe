"""The roofline model for LLM inference: sourced specs in, FLOPs, bytes and times out.

Everything the explainer site shows is computed here; the site glue
(`roofline_site`) imports this package, never the other way round.
"""

from roofline.errors import RooflineError, SpecError, InputError

from roofline.model.serving import (  # noqa: E402  (the service model: `roofline serve`, the Serving page)
    ServicePoint,
    Workload,
    best_under_targets,
    frontier,
    offline_max,
    pareto,
    serve_point,
)

__all__ = ["RooflineError", "SpecError", "InputError", "ServicePoint", "Workload", "best_under_targets", "frontier",
           "offline_max", "pareto", "serve_point"]
__version__ = "0.1.0"
