"""mkdocs-gen-files script: write the registry the calculator reads to calculator/registry.json."""

import json

import mkdocs_gen_files

from roofline.calculator_view import registry_json
from roofline_site import derived

# A pure function of the package and its spec files: kept between builds under their hash.
text = derived.memo(("calculator registry",), lambda: json.dumps(registry_json(), ensure_ascii=False,
                                                                 separators=(",", ":")))
with mkdocs_gen_files.open("calculator/registry.json", "w") as f:
    f.write(text)
