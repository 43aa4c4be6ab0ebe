"""The one HTML walker and its skip lists (html/walker.py), and the description it feeds."""

from __future__ import annotations

import pytest

from roofline_site.html.description import derived_description, paragraphs
from roofline_site.html.walker import AS_WRITTEN, CLOSE, NOT_PROSE, OPEN, OTHER, TEXT, attributes, walk, without

PAGE = ('<h2 id="x">Ridge<a class="headerlink" href="#x">¶</a></h2>\n'
        '<p title="a > b">The <code>KV cache</code> at <span class="rl-num">3.35 TB/s'
        '<span class="rl-prov" role="tooltip"><template>H100 datasheet</template></span></span>.<br>'
        '<!-- a comment --><script>if (a < b) {}</script></p>'
        '<div hidden>not shown</div><button>Copy</button><span data-glossary="off">decode</span>')


def test_the_tokens_cover_the_source_exactly_once():
    tokens = list(walk(PAGE, NOT_PROSE))
    assert "".join(t.html for t in tokens) == PAGE
    assert all(a.end == b.start for a, b in zip(tokens, tokens[1:]))


def test_kinds_names_and_depths():
    tokens = [(t.kind, t.name, t.depth) for t in walk('<div><p>a<br>b</p></div></span>', NOT_PROSE)]
    # A void tag opens nothing; a stray end tag closes nothing; an OPEN and its CLOSE share a depth.
    assert tokens == [(OPEN, "div", 1), (OPEN, "p", 2), (TEXT, "", 2), (OTHER, "br", 2), (TEXT, "", 2),
                      (CLOSE, "p", 2), (CLOSE, "div", 1), (OTHER, "span", 0)]


def test_an_end_tag_closes_the_elements_left_open_inside_it():
    tokens = list(walk("<div><span hidden>x</div>after", NOT_PROSE))
    assert [(t.html, t.skipped) for t in tokens if t.kind == TEXT] == [("x", True), ("after", False)]


def test_not_prose_leaves_out_popovers_permalinks_buttons_hidden_and_scripts():
    assert without(PAGE, NOT_PROSE) == (
        '<h2 id="x">Ridge</h2>\n<p title="a > b">The <code>KV cache</code> at <span class="rl-num">3.35 TB/s'
        '</span>.<br><!-- a comment --></p><span data-glossary="off">decode</span>')


def test_as_written_also_keeps_code_headings_links_numbers_and_opt_outs():
    prose = [t.html for t in walk(PAGE, AS_WRITTEN) if t.kind == TEXT and not t.skipped]
    assert prose == ["\n", "The ", " at ", "."]


@pytest.mark.parametrize("tag, skipped", [
    ('<a class="headerlink" href="#x">', True),
    ('<span class="headerlink">', False),        # a permalink class counts on links only
    ('<span role="tooltip">', True),
    ('<td class="linenos">', True),
    ('<span data-class="rl-prov">', False),      # an attribute named like class is not class
    ('<p\thidden>', True),
    ('<p>', False),
    # Attribute names are read in any case, and a value may spell a class with an entity: both are left out
    # as the attributes read them (a tag is passed over unread only when no name the list reads is in it).
    ('<p HiDdEn>', True),
    ('<span ROLE="tooltip">', True),
    ('<span class="rl&#45;prov">', True),
    ('<span class="rl-num" title="hidden role">', False),  # the names in a value, not as attributes
])
def test_not_prose_reads_attributes_not_substrings(tag, skipped):
    name = tag[1:].split()[0].split(">")[0]
    assert NOT_PROSE.skips(name, tag) is skipped


def test_attributes_unescape_values_and_keep_the_first_of_a_repeat():
    assert attributes('<a href="a?b&amp;c" class=x class="y" hidden>') == {"href": "a?b&c", "class": "x", "hidden": ""}


def test_paragraphs_are_top_level_prose_on_one_line():
    html = '<p>One\n <span role="tooltip">popover</span>two &amp; three</p><div><p>nested</p></div><p>Four</p>'
    assert paragraphs(html) == ["One two & three", "Four"]


def test_the_description_is_the_first_paragraph_long_enough():
    html = "<p>Short.</p><p>The ridge point is where the two roofs meet on the chart.</p>"
    assert derived_description(html) == "The ridge point is where the two roofs meet on the chart."
    assert derived_description("<h1>No paragraph</h1>") == ""
