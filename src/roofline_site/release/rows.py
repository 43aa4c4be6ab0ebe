"""The one row type and the one error of the release tooling (numbers diff and changelog)."""

from __future__ import annotations

from dataclasses import dataclass


class ReleaseError(Exception):
    """A problem the user can fix (a bad ref, a malformed changelog, a release recorded twice): one sentence."""


@dataclass(frozen=True)
class Row:
    """One changed quote between two revisions, as the report prints it and the changelog records it.

    kind: number, figure, page-added, page-removed, quote-added, quote-removed or error.
    `expr` (the token's expression) is shown in the report only; the changelog does not keep it.
    """

    kind: str
    page: str
    old: str = ""
    new: str = ""
    sentence: str = ""
    expr: str = ""
    label: str = ""
