"""The phone layout every table gets at build time (table_base.phone_layout): labels, long columns, cards."""

from __future__ import annotations

from roofline_site.numbers.table_base import CARDS_FROM_COLUMNS, LONG_CELL_CHARS, Column, html_table, phone_layout


def _table(columns: int, cell: str = "1") -> str:
    head = "".join(f"<th>h{i}</th>" for i in range(columns))
    body = "".join(f"<td>{cell if i else 'name'}</td>" for i in range(columns))
    return f"<table><thead><tr>{head}</tr></thead><tbody><tr>{body}</tr></tbody></table>"


def test_every_value_carries_its_column_name_and_the_name_column_none():
    out = phone_layout(_table(3))
    assert '<td>name</td><td data-label="h1">1</td><td data-label="h2">1</td>' in out


def test_a_table_is_cards_on_a_phone_from_three_columns():
    assert CARDS_FROM_COLUMNS == 3  # two columns fit 358 px; the playbook's three did not (155 px over)
    assert "data-rl-cards" not in phone_layout(_table(2))
    assert '<table class="rl-table" data-rl-cards>' in phone_layout(_table(3))


def test_a_long_column_spans_the_card_and_popover_text_does_not_count():
    long = "x" * (LONG_CELL_CHARS + 1)
    assert "data-rl-long" in phone_layout(_table(3, long))
    # A number whose popover body (a template) is long still reads as a short cell.
    assert "data-rl-long" not in phone_layout(_table(3, f'<span class="rl-num">7<template>{long}</template></span>'))


def test_a_sortable_tables_label_names_the_unit_and_is_escaped():
    html = str(html_table([Column("Device", numeric=False), Column("Peak <b>&amp;</b> more", "TB/s"),
                           Column("Ridge", "FLOP/byte")], [["A &amp; B", "1", "2"]], "t"))
    out = phone_layout(html)
    assert 'data-label="Peak &amp; more (TB/s)"' in out  # tags dropped, & escaped once, unit in brackets
    assert '<td class="rl-r" data-label="Ridge (FLOP/byte)">2</td>' in out  # after the cell's own attributes
    assert '<table data-rl-sort aria-label="t" class="rl-table" data-rl-cards>' in out


def test_a_table_inside_a_cell_is_labelled_on_its_own():
    inner = _table(3)
    out = phone_layout(f"<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>n</td><td>{inner}</td></tr></tbody></table>")
    assert out.count("data-rl-cards") == 1 and 'data-label="h1"' in out and 'data-label="b"' in out


# Material's bundle moves every table without a class into two boxes as it starts: a restyle and a new
# layout of the whole table in its start-up task. Built in them here, named rl-table, it moves none.
BOXES = '<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'


def test_a_table_arrives_in_materials_boxes_with_a_class_the_bundle_leaves_alone():
    out = phone_layout("<p>before</p>" + _table(2) + "<p>after</p>")
    assert out.startswith(f'<p>before</p>{BOXES}<table class="rl-table">')
    assert out.endswith("</table></div></div><p>after</p>")


def test_a_table_with_a_class_of_its_own_is_left_where_it_is():
    code = '<table class="highlighttable"><tbody><tr><td>1</td><td>x = 1</td></tr></tbody></table>'
    assert phone_layout(code) == code


def test_a_table_inside_a_cell_gets_its_own_boxes():
    out = phone_layout(f"<table><tbody><tr><td>n</td><td>{_table(2)}</td></tr></tbody></table>")
    assert out.count(BOXES) == 2 and out.count("</table></div></div>") == 2
