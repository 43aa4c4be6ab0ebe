"""mkdocs-gen-files script: write the registry the calculator reads to calculator/registry.json."""

import json

import mkdocs_gen_files

from roofline.calculator_view import registry_json

with mkdocs_gen_files.open("calculator/registry.json", "w") as f:
    json.dump(registry_json(), f, ensure_ascii=False, separators=(",", ":"))
