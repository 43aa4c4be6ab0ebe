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


@pytest.mark.parametrize("role", ["home", "playbook", "calculator", "glossary entry"])  # playbook: the most figures
def test_lighthouse_accessibility_and_best_practices(role, lighthouse_ready, site_dir, served_site, tmp_path):
    pages = bench.lighthouse_pages(site_dir)
    if role not in pages:
        pytest.skip(f"the site has no {role} page yet")
    url = f"{served_site}/{pages[role].removesuffix('index.html')}"
    result = bench.lighthouse(url, categories=tuple(ENFORCED), workdir=tmp_path)
    low = {c: s for c, s in result["scores"].items() if s < ENFORCED[c]}
    assert low == {}, f"{pages[role]}: {low}; failing audits: {result['failing']}"
