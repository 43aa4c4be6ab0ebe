"""What a default build publishes for machines and readers: no local address, header rows in the
Markdown copies, and a way to get the package."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.site

LOCAL = re.compile(r"127\.0\.0\.1|localhost", re.I)


def test_no_built_file_names_a_local_address(site_dir):
    # A default build (no SITE_URL) once wrote http://127.0.0.1:8000/ into every canonical link,
    # sitemap.xml and robots.txt. Source maps are left out: the theme's map quotes its own
    # TypeScript, whose comment about `dev_addr` names localhost; no page or crawler reads it.
    named = [p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*")
             if p.is_file() and p.suffix not in (".map", ".gz", ".svg", ".png", ".ico", ".woff2")
             and LOCAL.search(p.read_text(encoding="utf-8", errors="replace"))]
    assert named == []
    assert "Sitemap: http" in (site_dir / "robots.txt").read_text()


def _header_rows(markdown: str) -> list[str]:
    lines = markdown.splitlines()
    return [lines[i - 1] for i, line in enumerate(lines) if i and re.fullmatch(r"\|( --- \|)+", line)]


def test_markdown_copies_keep_every_tables_header_row(site_dir):
    # A header row may leave its corner cell empty (the conventions table), never every cell.
    empty = [f"{p.relative_to(site_dir)}: {row}" for p in site_dir.rglob("index.md")
             for row in _header_rows(p.read_text(encoding="utf-8"))
             if not re.sub(r"[|\s]", "", row)]
    assert empty == []
    copy = (site_dir / "hardware" / "index.md").read_text(encoding="utf-8")
    assert "| Device | Memory | Capacity (GB) |" in copy


@pytest.mark.parametrize("page", ["start-here/index.html", "measure/index.html"])
def test_start_here_and_measure_give_the_install_lines_and_the_repository(site_pages, page):
    html = site_pages[page]
    assert re.search(r'<a href="https://github\.com/[^"]+"[^>]*>https://github\.com/', html), "no repository link"
    assert re.search(r"git clone https://\S+\ncd \S+\nmake env\n\.venv/bin/roofline ", html), "no install lines"
