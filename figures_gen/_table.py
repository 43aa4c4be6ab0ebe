"""The plotted data of a figure, written beside its SVG as CSV."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    """Columns (with units in their names) and rows of the plotted data."""

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]

    def column(self, name: str) -> list:
        i = self.columns.index(name)
        return [r[i] for r in self.rows]

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for row in self.rows:
            w.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in row])
        return buf.getvalue()
