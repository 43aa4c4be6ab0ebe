"""Docstring examples of the site glue run under pytest; the gen-files scripts are not collected:
importing one generates pages (they run inside a build, never as modules here)."""

collect_ignore_glob = ["gen/*.py"]
