"""gen-files scripts: figures, glossary pages and the calculator data, written into the build."""
