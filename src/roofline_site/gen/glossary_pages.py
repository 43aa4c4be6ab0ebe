"""mkdocs-gen-files script: publish each glossary entry at glossary/<slug>.md, plus the index.

The entries were loaded and checked by the glossary hook's on_config; a malformed entry
has already stopped the build with one line naming the file and field.
"""

import mkdocs_gen_files

from roofline_site.glossary.entries import entry_markdown, index_markdown, load_glossary

glossary = load_glossary()
for entry in glossary.entries:
    name = f"glossary/{entry.slug}.md"
    with mkdocs_gen_files.open(name, "w") as f:
        f.write(entry_markdown(entry, glossary))
    # Each page's edit link (the entry's own file) is set by glossary_hooks.on_page_content.

with mkdocs_gen_files.open("glossary/index.md", "w") as f:
    f.write(index_markdown(glossary))
