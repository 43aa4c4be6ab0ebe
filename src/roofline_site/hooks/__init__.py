"""MkDocs hooks: the only files mkdocs.yml names; thin adapters over the modules beside them."""
