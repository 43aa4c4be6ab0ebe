"""Reading and writing built HTML: Markdown copies of pages, and escaping at the boundary (escape.py)."""
