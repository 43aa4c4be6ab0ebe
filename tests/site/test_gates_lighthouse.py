"""Gate 4: Lighthouse (npm, mobile preset, Debian Chromium, offline) scores accessibility 100 and
best practices 100 on the home page, the most figure-heavy page, the calculator and a glossary entry.

Performance and SEO are measured by `make bench` (reports/), where the site is served with gzip as
GitHub Pages serves it; the served_site fixture here is a plain file server.
Without node_modules/.bin/lighthouse (run `npm ci`) the test skips, unless ROOFLINE_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools import bench

pytestmark = pytest.mark.browser
ENFORCED = {"accessibility": 100, "best-practices": 100}
AUDITED = ["home", "playbook", "calculator", "glossary entry"]  # playbook: the most figures


@pytest.fixture(scope="module")
def lighthouse_ready():
    missing = [str(p) for p in (bench.LIGHTHOUSE, Path(bench.CHROMIUM)) if not p.exists()]
    if missing:
        reason = f"Lighthouse needs {' and '.join(missing)} (run `npm ci`; apt-get install chromium)"
        if os.environ.get("ROOFLINE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"required here (ROOFLINE_REQUIRE_BROWSER=1): {reason}", pytrace=False)
        pytest.skip(reason)


def test_audited_pages_include_home_and_calculator(site_dir):
    pages = bench.lighthouse_pages(site_dir)
    assert pages["home"] == "index.html"
    if (site_dir / "calculator" / "index.html").exists():
        assert pages["calculator"] == "calculator/index.html"


@pytest.fixture(scope="module")
def audits(lighthouse_ready, site_dir, served_site, tmp_path_factory) -> dict[str, dict]:
    """{role: bench.lighthouse's result} for the audited roles the site has, all in one Chrome (one launch, not four)."""
    pages = {role: path for role, path in bench.lighthouse_pages(site_dir).items() if role in AUDITED}
    urls = [f"{served_site}/{path.removesuffix('index.html')}" for path in pages.values()]
    results = bench.lighthouse_many(urls, categories=tuple(ENFORCED), workdir=tmp_path_factory.mktemp("lighthouse"))
    return dict(zip(pages, results))


@pytest.mark.parametrize("role", AUDITED)
def test_lighthouse_accessibility_and_best_practices(role, site_dir, audits):
    pages = bench.lighthouse_pages(site_dir)
    if role not in pages:
        pytest.skip(f"the site has no {role} page yet")
    result = audits[role]
    low = {c: s for c, s in result["scores"].items() if s < ENFORCED[c]}
    assert low == {}, f"{pages[role]}: {low}; failing audits: {result['failing']}"
