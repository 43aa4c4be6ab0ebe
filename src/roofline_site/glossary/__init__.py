"""The glossary: entries, the term matcher, hover cards and "Mentioned in"."""
