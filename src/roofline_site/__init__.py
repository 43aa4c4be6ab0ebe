"""Build glue for the explainer site. Imports mkdocs and `roofline`; `roofline` never imports this."""
