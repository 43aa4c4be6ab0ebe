"""mkdocs-gen-files script: publish each glossary entry at glossary/<slug>.md, plus the index.

The entries were loaded and checked by the glossary hook's on_config; a malformed entry
has already stopped the build with one line naming the file and field.
"""

import mkdocs_gen_files

from roofline_site.glossary import entry_markdown, index_markdown, load_glossary

glossary = load_glossary()
for entry in glossary.entries:
    name = f"glossary/{entry.slug}.md"
    with mkdocs_gen_files.open(name, "w") as f:
        f.write(entry_markdown(entry, glossary))
    # The edit link opens the real file (edit_uri points into docs/, the entry lives beside it).
    mkdocs_gen_files.set_edit_path(name, f"../{entry.path}")

with mkdocs_gen_files.open("glossary/index.md", "w") as f:
    f.write(index_markdown(glossary))
mkdocs_gen_files.set_edit_path("glossary/index.md", None)
