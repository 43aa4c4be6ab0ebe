"""Reading and writing built HTML: Markdown copies of pages."""
