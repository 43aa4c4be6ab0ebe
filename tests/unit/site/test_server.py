"""tools/server.py, the static server of the tests and `make bench`: its sitemap names the address it
serves on only when asked, as Pages's names the published one."""

from __future__ import annotations

import gzip
import urllib.error
import urllib.request

import pytest

from tools.server import serve

# A two-page sitemap as mkdocs writes it, for a site published at https://example.org/rl/.
SITEMAP = """<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
    <url>
         <loc>https://example.org/rl/</loc>
    </url>
    <url>
         <loc>https://example.org/rl/glossary/ridge-point/</loc>
    </url>
</urlset>
"""


def _get(url: str, gz: bool) -> str:
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gz else {})
    with urllib.request.urlopen(request) as response:
        body = response.read()
        return (gzip.decompress(body) if response.headers.get("Content-Encoding") == "gzip" else body).decode()


def test_the_local_sitemap_names_the_served_address_and_the_plain_one_the_published(tmp_path):
    (tmp_path / "sitemap.xml").write_text(SITEMAP, encoding="utf-8")
    with serve(tmp_path, local_sitemap=True) as base:
        for gz in (False, True):
            local = _get(base + "sitemap.xml", gz)
            # every <loc> moves from https://example.org/rl/ to the server's own base, path kept
            assert local == SITEMAP.replace("https://example.org/rl/", base)
            assert f"<loc>{base}glossary/ridge-point/</loc>" in local
    with serve(tmp_path) as base:
        assert _get(base + "sitemap.xml", gz=True) == SITEMAP


def test_a_site_without_a_sitemap_answers_404_with_its_own_page(tmp_path):
    # The branch that rewrites sitemap.xml read the 404 page in its place and failed on it (no <loc>).
    (tmp_path / "404.html").write_text("<p>not here</p>", encoding="utf-8")
    with serve(tmp_path, local_sitemap=True) as base:
        with pytest.raises(urllib.error.HTTPError) as err:
            _get(base + "sitemap.xml", gz=True)
        assert err.value.code == 404 and gzip.decompress(err.value.read()) == b"<p>not here</p>"
