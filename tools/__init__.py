"""Developer tools, not shipped: bench, the calculator bench, built-site checks, one static server."""
