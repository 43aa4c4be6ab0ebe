"""Tables in Chromium, on a phone (390×844, touch) and a laptop (1280×900): the widest fits a laptop,
and a phone sorts the cards. That every table and formula on every page reads whole is checked on the
reading walk (tests/site/test_reading.py, TABLES_WHOLE), which loads every page at both sizes anyway.
"""

from __future__ import annotations

import pytest
from tests.support.browser import LAPTOP, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.site]


def test_the_hardware_reference_fits_a_laptop_whole(chromium, served_site):
    """Twelve columns, every device: on a laptop the page gives the table the contents column, so the
    whole table is on screen without scrolling sideways (it was 1,346 px in a 720 px column)."""
    tabs = chromium.tabs(**LAPTOP)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/hardware/", wait_until="load")
        tab.wait_for_selector(".md-typeset__scrollwrap table[data-rl-wide]")
        fit = tab.evaluate("""() => { const w = document.querySelector('table[data-rl-wide]').closest('.md-typeset__scrollwrap');
            return {table: w.scrollWidth, room: w.clientWidth}; }""")
        assert fit["table"] <= fit["room"] + 1, f"the table is {fit['table']} px wide in {fit['room']} px"
    finally:
        tabs.close()


def test_a_phone_sorts_the_cards_from_the_buttons_above_them(chromium, served_site):
    tabs = chromium.tabs(**PHONE)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/ridge-point/", wait_until="load")
        button = tab.locator("table[data-rl-cards][data-rl-sort] thead th button", has_text="Ridge point")
        assert button.is_visible(), "the sort buttons are hidden on a phone"
        values = """() => Array.from(document.querySelector('table[data-rl-sort]').tBodies[0].rows,
                    r => Number(r.cells[1].getAttribute('data-v')))"""
        before = tab.evaluate(values)
        assert before != sorted(before), "the registry order is already sorted: the test would prove nothing"
        button.tap()
        assert tab.evaluate(values) == sorted(before)
    finally:
        tabs.close()
