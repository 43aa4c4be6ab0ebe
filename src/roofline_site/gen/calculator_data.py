"""mkdocs-gen-files script: write the registry the calculator reads to calculator/registry.json, and what
only its on-demand scripts read (the config.json reader's tables, the Serving mode's constants) to
calculator/registry_more.json, which config.js fetches with them, so the step mode every reader loads goes without."""

import json

import mkdocs_gen_files

from roofline.calculator_view import registry_json, split_registry
from roofline_site import derived
from roofline_site.html.escape import json_data

# A pure function of the package and its spec files: kept between builds under their hash.
texts = derived.memo(("calculator registry", "split"), lambda: [
    json_data(part) for part in split_registry(registry_json())])  # spec text as data, never markup
for name, text in zip(("registry.json", "registry_more.json"), texts):
    with mkdocs_gen_files.open(f"calculator/{name}", "w") as f:
        f.write(text)
