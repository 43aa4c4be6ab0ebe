"""The built prefill, batching, hardware-reference and conventions pages."""

from __future__ import annotations

import html
import re

import pytest

from roofline.registry.hardware import devices

PAGES = {"prefill": "prefill/index.html", "batching": "batching/index.html",
         "hardware": "hardware/index.html", "conventions": "conventions/index.html"}


def _text(page_html: str) -> str:
    main = page_html.split('<article', 1)[-1].split("</article>", 1)[0]
    main = re.sub(r'<span class="rl-prov".*?</span>', " ", main, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", main))


def test_hardware_page_lists_every_device_once_with_its_source_and_no_ids(site_pages):
    page = site_pages[PAGES["hardware"]]
    table = page.split("<table data-rl-sort", 1)[1].split("</table>", 1)[0]
    text = _text(re.sub(r"<pre.*?</pre>", "", page, flags=re.S))  # the worked example's code names ids
    for d in devices().values():
        assert table.count(f">{html.escape(d.name)}</a></td>") == 1, f"{d.name} is not one row of the table"
        assert f'href="{html.escape(d.source_url)}"' in table, f"hardware page does not link {d.source_url}"
        if "-" in d.id:  # a readable id ("h100-sxm5"); a plain word such as "b200" is part of the name
            assert d.id not in text, f"the hardware page shows the internal id {d.id}"
    assert page.count("<table") == 1, "the hardware page lists its devices more than once"


@pytest.mark.parametrize("page, figure", [("prefill", "prefill-intensity"), ("batching", "batch-sweep"),
                                          ("hardware", "hardware-map")])
def test_figure_is_embedded_with_alt_text_and_csv(site_pages, site_dir, page, figure):
    body = site_pages[PAGES[page]]
    img = re.search(rf'<img[^>]*src="[^"]*figures/{figure}\.svg"[^>]*>', body)
    assert img, f"{page} does not show {figure}.svg"
    alt = re.search(r'alt="([^"]*)"', img.group(0))
    assert alt and len(alt.group(1)) > 80, f"{figure} has no meaningful alt text"
    assert f"figures/{figure}.csv" in body
    assert (site_dir / "figures" / f"{figure}.svg").stat().st_size <= 40_000


@pytest.mark.parametrize("page", sorted(PAGES))
def test_pages_render_numbers_tables_and_no_placeholders(site_pages, page):
    body = site_pages[PAGES[page]]
    text = _text(body)
    assert body.count('class="rl-num"') >= 10, f"{page} renders few numbers"
    assert "Exercises" in text and "Takeaway" in text
    prose = _text(re.sub(r"<pre.*?</pre>", "", body, flags=re.S))
    assert not re.search(r"\b(nan|NaN|inf|None)\b", prose), f"{page} prints a non-number"


def test_generated_tables_are_tables(site_pages):
    assert site_pages[PAGES["hardware"]].count("<table data-rl-sort") == 1
    assert site_pages[PAGES["prefill"]].count("<table") >= 1
    assert site_pages[PAGES["batching"]].count("<table") >= 1
