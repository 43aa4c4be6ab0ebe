"""Where the project lives: the folder holding mkdocs.yml, found from the working directory.

The site glue reads docs/, glossary/, measurements/ and figures_gen/ from the project it builds,
so it asks the working directory (MkDocs, `make` and the tests all run from the project folder,
or a subfolder of it), never the location of its own source files.
"""

from __future__ import annotations

import os
from pathlib import Path


def project_root(start: Path | None = None) -> Path:
    """The nearest folder at or above `start` (default: the working directory) holding mkdocs.yml.

    `ROOFLINE_SITE_ROOT` overrides the search; with no mkdocs.yml anywhere above, `start` itself.
    """
    if env := os.environ.get("ROOFLINE_SITE_ROOT"):
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "mkdocs.yml").is_file():
            return folder
    return here


ROOT = project_root()


def theme_file(theme_dirs, rel: str) -> Path | None:
    """The file at `rel` in the first of `theme_dirs` (MkDocs' `config["theme"].dirs`: the custom_dir, then
    Material's templates) that has it, as the theme's build copies it; None if none has it."""
    return next((Path(d) / rel for d in theme_dirs if (Path(d) / rel).is_file()), None)
