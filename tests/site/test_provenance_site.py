"""Every number on the built site opens its provenance, and the inputs it shows are the registry's.

The static checks parse every built page; the browser checks (Debian Chromium) open a
number by click, tap and keyboard focus and close it with Escape.
"""

from __future__ import annotations

import re
import tomllib

import pytest
from tests.support.site_helpers import EMPTY_POPOVER, page_popovers, tab_until, wait_for_popover
from bs4 import BeautifulSoup
from tests.conftest import ROOT

#: Elements allowed inside a popover: phrasing content only, since it sits inside a paragraph.
PHRASING = {"span", "strong", "b", "em", "i", "a", "abbr", "code", "sub", "sup", "br", "small"}
SI = {"P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "": 1.0, "m": 1e-3, "µ": 1e-6, "n": 1e-9}
WORDS = {"trillion": 1e12, "billion": 1e9, "million": 1e6, "": 1.0}


NUMBER_START = re.compile(r'<span\b[^>]*\bclass="(?:[^"]*\s)?rl-num(?:\s[^"]*)?"')
SPAN_TAG = re.compile(r"<(/?)span\b")


def number_elements(html: str) -> list[str]:
    """Each number's element as the page has it (its popover inside), in page order, nested ones too:
    from its start tag to the `</span>` that closes it. (Parsing these, not the whole page, gives the
    same elements as selecting `span.rl-num` in it, at a tenth of the parse: the navigation, the
    prose and the glossary cards are most of a page.)"""
    out = []
    for start in NUMBER_START.finditer(html):
        depth = 0
        for tag in SPAN_TAG.finditer(html, start.start()):
            depth += -1 if tag[1] else 1
            if depth == 0:
                out.append(html[start.start():html.index(">", tag.end()) + 1])
                break
        else:
            raise AssertionError(f"a number never closes: {html[start.start():start.start() + 80]!r}")
    return out


def numbers(opened_pages) -> list[tuple[str, object]]:
    """(page, element) for every number of `opened_pages` (each popover's body in place, read from its
    provenance.json)."""
    return [(path, BeautifulSoup(element, "html.parser").span)
            for path, html in sorted(opened_pages.items()) for element in number_elements(html)]


def test_number_elements_are_the_numbers_a_whole_page_parse_finds(opened_pages):
    for path in ("index.html", "ridge-point/index.html", "glossary/kv-cache/index.html"):
        html = opened_pages[path]
        whole = [str(n) for n in BeautifulSoup(html, "html.parser").select("span.rl-num")]
        assert whole, f"{path}: no number to compare"
        assert [str(BeautifulSoup(e, "html.parser").span) for e in number_elements(html)] == whole, path


@pytest.fixture(scope="module")
def site_numbers(opened_pages):
    found = numbers(opened_pages)
    assert found, "no number rendered from a token anywhere on the site"
    return found


def parse_shown(text: str, unit: str) -> float:
    """The value a popover prints ("3.35 TB/s", "8.03 billion", "50%") back as a float in base units."""
    text = text.replace(",", "").strip()
    if unit == "":
        m = re.fullmatch(r"(-?[\d.]+)(?: (trillion|billion|million))?", text)
        return float(m.group(1)) * WORDS[m.group(2) or ""]
    if unit == "%":
        return float(re.fullmatch(r"(-?[\d.]+)%", text).group(1)) / 100
    if unit == "x":
        return float(re.fullmatch(r"(-?[\d.]+)×", text).group(1))
    if unit == "GiB":
        return float(re.fullmatch(r"(-?[\d.]+) GiB", text).group(1)) * 2**30
    m = re.fullmatch(rf"(-?[\d.]+) ([PTGMkmµn]?){re.escape(unit)}", text)
    assert m, f"cannot read {text!r} as a value in {unit}"
    return float(m.group(1)) * SI[m.group(2)]


def registry_value(label: str):
    """The registry's value for an input label such as 'NVIDIA H100 SXM5 80GB memory bandwidth', else None."""
    from roofline.registry.hardware import devices
    from roofline.registry.models import models

    for d in devices().values():
        if label == f"{d.name} memory bandwidth":
            return d.memory_bandwidth_bytes_per_s
        if label == f"{d.name} memory capacity":
            return d.memory_capacity_bytes
        m = re.fullmatch(rf"{re.escape(d.name)} dense (\w+) peak", label)
        if m:
            return d.peak_flop_per_s(m.group(1))
    for mod in models().values():
        if label.startswith(f"{mod.name} parameters"):
            return mod.total_params
    return None


def registry_names() -> list[str]:
    from roofline.registry.hardware import devices
    from roofline.registry.models import models

    return [d.name for d in devices().values()] + [m.name for m in models().values()]


def own_words(label: str) -> str:
    """A label without the descriptions of worked-example inputs it quotes (they may name a model)."""
    from roofline.examples import EXAMPLES

    for _, _, why in EXAMPLES.values():
        if why:
            label = label.replace(why, "")
    return label


def test_every_number_carries_its_provenance(site_numbers):
    names = registry_names()
    for path, num in site_numbers:
        where = f"{path}: number {num.contents[0]!s:.40}"
        provs = num.find_all("span", class_="rl-prov", recursive=False)
        assert len(provs) == 1, f"{where} has no provenance popover"
        prov = provs[0]
        assert num.get("tabindex") == "0", f"{where} cannot take keyboard focus"
        assert prov.get("id") and num.get("aria-describedby") == prov["id"], f"{where}: popover not linked by aria-describedby"
        label = prov.find(class_="rl-prov-label")
        formula = prov.find(class_="rl-prov-formula")
        assert label and label.get_text(strip=True), f"{where}: popover has no label"
        assert formula and formula.get_text(strip=True), f"{where}: popover has no formula"
        blocks = {t.name for t in prov.find_all(True)} - PHRASING
        assert not blocks, f"{where}: block elements {blocks} inside a paragraph's popover break the paragraph"
        if any(n in own_words(label.get_text()) for n in names):  # derived from a registry entry
            inputs = prov.select(".rl-prov-in")
            assert inputs, f"{where}: a registry-derived number shows no inputs"
            assert prov.select("a.rl-prov-src[href^='https://']"), f"{where}: no datasheet link"


def test_number_ids_are_unique_on_each_page(site_pages):
    for path, html in site_pages.items():
        ids = re.findall(r'\bid="([^"]+)"', html)
        dupes = {i for i in ids if ids.count(i) > 1 and i.startswith("rl-p-")}
        assert not dupes, f"{path}: popover ids used twice: {sorted(dupes)[:5]}"


def test_inputs_shown_equal_the_registry(site_numbers):
    checked = 0
    for path, num in site_numbers:
        for row in num.select(".rl-prov-in"):
            label = row.find(class_="rl-prov-in-label").get_text()
            expected = registry_value(label)
            if expected is None:
                continue
            shown = parse_shown(row.find("b").get_text(), row["data-rl-unit"])
            # Inputs print to 4 significant figures: within half a unit of the 4th digit.
            assert shown == pytest.approx(expected, rel=5e-4), f"{path}: {label} shows {shown}, registry has {expected}"
            assert float(row["data-rl-input"]) == pytest.approx(expected, rel=1e-12), f"{path}: {label}"
            checked += 1
    assert checked > 0, "no popover input could be matched to a registry entry"


def test_h100_bandwidth_shown_is_the_one_in_hardware_toml(opened_pages):
    spec = tomllib.loads((ROOT / "src" / "roofline" / "data" / "hardware.toml").read_text())
    h100 = next(d for d in spec["device"] if d["id"] == "h100-sxm5")
    expected = f"{h100['memory_bandwidth_TB_per_s']:g} TB/s"  # 3.35 -> "3.35 TB/s"
    soup = BeautifulSoup(opened_pages["index.html"], "html.parser")
    shown = [row.find("b").get_text() for row in soup.select(".rl-prov-in")
             if row.find(class_="rl-prov-in-label").get_text() == f"{h100['name']} memory bandwidth"]
    assert shown and set(shown) == {expected}
    ridge = next(p for p in soup.select(".rl-prov") if p.find(class_="rl-prov-label").get_text().startswith("ridge point"))
    assert h100["source_url"] in [a["href"] for a in ridge.select("a.rl-prov-src")]


def test_popovers_ship_empty_with_their_bodies_in_one_json_per_page(site_dir, site_pages):
    # The HTML carries the number and an empty popover; the body (label, formula, inputs, sources)
    # is in provenance.json beside the page, once per popover, and nothing else is there.
    checked = 0
    for path, html in site_pages.items():
        ids = [m.group(2) for m in EMPTY_POPOVER.finditer(html)]
        assert "<template>" not in html, f"{path}: a popover body still ships in the page"
        assert len(ids) == html.count('class="rl-prov"'), f"{path}: a popover is not empty"
        if not path.endswith("index.html"):  # 404.html shares the home page's folder: it has no numbers
            assert not ids, f"{path}: numbers on a page with no provenance.json of its own"
            continue
        bodies = page_popovers(site_dir, path)
        assert sorted(bodies) == sorted(set(ids)), f"{path}: provenance.json does not hold exactly its popovers"
        assert all('class="rl-prov-label"' in body for body in bodies.values()), path
        checked += len(ids)
    assert checked > 500, "too few popovers found: the empty-popover pattern no longer matches"


def test_provenance_script_is_shipped_and_needs_nothing_online(site_dir, site_pages):
    js = (site_dir / "assets" / "provenance.js").read_text()
    body = js.split("*/", 1)[1] if "*/" in js else js  # the built copy is minified: no header comment
    assert "Escape" in js and not re.search(r"https?://", body)
    # Every page with a number loads it, joined with our other scripts (gen/site_assets.py).
    assert js.strip().rstrip(";") in (site_dir / "assets" / "site.js").read_text()
    assert all("assets/site.js" in html for p, html in site_pages.items() if "rl-num" in html)


# ---------------------------------------------------------------- browser -----------------
def _first_number(page):
    page.goto(page.base_url + "/")
    num = page.locator(".rl-num").first
    return num, num.locator(".rl-prov")


@pytest.mark.browser
def test_click_opens_a_number_and_escape_closes_it(page):
    num, prov = _first_number(page)
    page.mouse.move(0, 0)
    assert not prov.is_visible()
    num.click()
    page.mouse.move(0, 0)  # off the number: the click pinned it open
    assert prov.is_visible()
    wait_for_popover(page)
    assert "inputs" in prov.inner_text().lower() and "sources" in prov.inner_text().lower()
    page.keyboard.press("Escape")
    assert not prov.is_visible()
    num.click()
    assert prov.is_visible()
    num.click()  # a second click closes it, even with the pointer still over it
    assert not prov.is_visible()
    num.click()
    page.locator("h1").first.click()  # a click elsewhere closes it
    page.mouse.move(0, 0)
    assert not prov.is_visible()


@pytest.mark.browser
def test_a_focused_number_has_its_description_in_place(page):
    # Popover bodies wait in the page's provenance.json until a reader reaches for a number: no page
    # loads it before. Focus then fills the description (a loading sentence first, announced politely,
    # then the body), or a screen reader would announce an empty description.
    page.goto(page.base_url + "/hardware/")
    page.wait_for_load_state("networkidle")
    assert not [u for u in page.requests_seen if u.endswith("provenance.json")], "bodies are not deferred"
    page.locator(".rl-num").nth(3).focus()
    prov = page.evaluate("document.getElementById(document.activeElement.getAttribute('aria-describedby')).id")
    assert page.evaluate(f"document.getElementById('{prov}').textContent.length") > 0, "an empty description on focus"
    assert page.evaluate(f"document.getElementById('{prov}').getAttribute('aria-live')") == "polite"
    wait_for_popover(page)
    described = page.evaluate("""() => { const n = document.activeElement;
        return n.classList.contains('rl-num') ? document.getElementById(n.getAttribute('aria-describedby')).textContent : null; }""")
    assert described and "Inputs" in described or "No registry inputs" in (described or "")
    assert [u for u in page.requests_seen if u.endswith("provenance.json")] == [page.base_url + "/hardware/provenance.json"]


@pytest.mark.browser
def test_a_number_whose_details_cannot_load_says_so(page):
    # The connection gone: one sentence in the popover, which still opens and closes as before;
    # the next open tries again.
    page.route("**/provenance.json", lambda route: route.abort())
    num, prov = _first_number(page)
    num.click()
    wait_for_popover(page)
    assert prov.is_visible() and "did not load; reload the page" in prov.inner_text()
    page.keyboard.press("Escape")
    assert not prov.is_visible()
    page.unroute("**/provenance.json")
    num.click()
    wait_for_popover(page)
    assert prov.locator(".rl-prov-label").count() == 1 and "did not load" not in prov.inner_text()


@pytest.mark.browser
def test_a_page_opened_from_a_file_says_where_the_details_are(page, site_dir):
    # From file:// the browser refuses to fetch provenance.json: the popover says so in one sentence.
    page.goto((site_dir / "index.html").as_uri())
    num = page.locator(".rl-num").first
    num.click()
    wait_for_popover(page)
    text = num.locator(".rl-prov").inner_text()
    assert "Opened from a file" in text and "serve the folder over HTTP" in text


@pytest.mark.browser
def test_tap_opens_a_number_on_a_touch_screen(page):
    num, prov = _first_number(page)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    num.scroll_into_view_if_needed()
    box = num.bounding_box()
    x, y = box["x"] + 4, box["y"] + box["height"] / 2

    def tap():
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        page.wait_for_timeout(100)

    assert not prov.is_visible()
    tap()
    assert prov.is_visible()
    tap()
    assert not prov.is_visible()


@pytest.mark.browser
def test_keyboard_focus_opens_a_number_and_escape_closes_it(page):
    num, prov = _first_number(page)
    tab_until(page, "rl-num", "a number")  # through the header and navigation to the first number
    focused = page.locator(".rl-num:focus")
    assert focused.locator(".rl-prov").is_visible()
    page.keyboard.press("Escape")
    assert not focused.locator(".rl-prov").is_visible()
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")  # back onto the number: it opens again
    assert page.evaluate("document.activeElement.classList.contains('rl-num')")
    assert page.locator(".rl-num:focus .rl-prov").is_visible()


@pytest.mark.browser
def test_popover_stays_on_screen_and_clear_of_the_line_on_a_phone(page):
    page.set_viewport_size({"width": 375, "height": 740})
    num, prov = _first_number(page)
    num.click()
    box, own = prov.bounding_box(), num.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375
    overlap = not (box["y"] >= own["y"] + own["height"] or box["y"] + box["height"] <= own["y"])
    assert not overlap, "the popover covers the number being read"
