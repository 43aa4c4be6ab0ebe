"""The batching page's device table says when its largest batch counts a memory the model would share."""

from __future__ import annotations

import re

from roofline_site.numbers.reference_tables import WHOLE_MEMORY, critical_batches_table


def _rows(html: str) -> dict[str, str]:
    return {re.sub(r"<[^>]+>", "", m.group(1)): m.group(0)
            for m in re.finditer(r"<tr><td>(.*?)</td>.*?</tr>", str(html))}


def test_unified_memory_and_a_cpu_socket_are_marked_and_explained():
    html = str(critical_batches_table())
    rows = _rows(html)
    # The M4 Max's 128 GB is unified memory its CPU and OS share; the EPYC 9654's 6 TB is the most a
    # socket takes. A largest batch that counts all of either is an assumption the reader must see.
    m4 = next(v for k, v in rows.items() if k.startswith("Apple M4 Max"))
    epyc = next(v for k, v in rows.items() if k.startswith("AMD EPYC 9654"))
    assert WHOLE_MEMORY in m4 and WHOLE_MEMORY in epyc
    h100 = next(v for k, v in rows.items() if k.startswith("NVIDIA H100"))
    assert WHOLE_MEMORY not in h100, "a GPU's own memory needs no such mark"
    note = html.split("</table>", 1)[1]
    assert f"{WHOLE_MEMORY} Counts the whole memory capacity" in note
    assert "unified memory" in note and "socket" in note
