"""mkdocs-gen-files script: render every figure module to figures/<name>.svg and .csv."""

import mkdocs_gen_files

from figures_gen import FIGURES, module, render

for name in FIGURES:
    svg, csv_text = render(name)
    stem = module(name).NAME
    with mkdocs_gen_files.open(f"figures/{stem}.svg", "wb") as f:
        f.write(svg)
    with mkdocs_gen_files.open(f"figures/{stem}.csv", "w") as f:
        f.write(csv_text)
