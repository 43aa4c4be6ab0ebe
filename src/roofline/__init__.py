"""The roofline model for LLM inference: sourced specs in, FLOPs, bytes and times out.

Everything the explainer site shows is computed here; the site glue
(`roofline_site`) imports this package, never the other way round.
"""

from roofline.errors import RooflineError, SpecError, InputError

__all__ = ["RooflineError", "SpecError", "InputError"]
__version__ = "0.1.0"
