"""Release tooling: the numbers diff between two revisions and the public changelog."""
