"""Markdown copies of pages (roofline_site.html.markdown_copy)."""

from __future__ import annotations

import os

import pytest

from roofline_site.html.markdown_copy import CopyWriter, article_html, article_markdown

PAGE = ('<h1 id="t">Ridge</h1><p>The ridge is <span class="rl-num" tabindex="0">295 FLOP/byte'
        '<span class="rl-prov" role="tooltip"><template><b>Inputs</b> 3.35 TB/s</template></span></span>.</p>'
        '<div class="language-python highlight"><pre><span></span><code>print(1)</code></pre></div>'
        '<div class="gl-cards" hidden><span class="gl-card" role="tooltip">card text</span></div>')


def test_a_copy_keeps_prose_numbers_and_code_and_drops_popovers_and_cards():
    md = article_markdown(article_html(PAGE, "Ridge"))
    assert md.startswith("# Ridge\n")
    assert "The ridge is 295 FLOP/byte." in md
    assert "```python\nprint(1)\n```" in md
    assert "Inputs" not in md and "3.35" not in md and "card text" not in md


def test_the_h1_material_adds_is_added_only_when_the_page_has_none():
    assert article_html("<p>x</p>", "A & B").count("<h1>A &amp; B</h1>") == 1
    assert "<h1>T</h1>" not in article_html(PAGE, "T")


def test_copies_come_back_by_page_from_the_worker():
    writer = CopyWriter()
    writer.submit("a.md", article_html("<p>Alpha text.</p>", "A"))
    writer.submit("b.md", article_html("<p>Beta text.</p>", "B"))
    writer.submit("a.md", article_html("<p>Alpha, edited.</p>", "A"))  # a later submit wins
    out = writer.results()
    assert out == {"a.md": "# A\n\nAlpha, edited.\n", "b.md": "# B\n\nBeta text.\n"}
    worker = next(iter(CopyWriter._executor._processes.values()))
    CopyWriter.close()  # as at exit: the worker stops and the class lets the executor go
    assert CopyWriter._executor is None and not worker.is_alive()
    writer.submit("c.md", article_html("<p>Gamma.</p>", "C"))  # a later build starts another
    assert writer.results() == {"c.md": "# C\n\nGamma.\n"}
    CopyWriter.close()


def test_the_worker_server_starts_before_the_first_copy_and_the_copy_comes_from_it():
    from multiprocessing import forkserver

    CopyWriter.start_server()  # as the build does in on_config, before any page
    server = forkserver._forkserver._forkserver_pid
    assert server is not None and os.waitpid(server, os.WNOHANG) == (0, 0)  # booting or up, not gone
    writer = CopyWriter()
    writer.submit("a.md", article_html("<p>Alpha text.</p>", "A"))
    assert writer.results() == {"a.md": "# A\n\nAlpha text.\n"}
    assert forkserver._forkserver._forkserver_pid == server  # the worker came from that server
    CopyWriter.close()


def test_copies_the_worker_has_not_started_are_made_here(monkeypatch):
    from concurrent.futures import Future

    held = []

    class Queued(Future):  # a copy waiting in the worker's queue, which it never reaches
        def result(self, timeout=None):
            raise AssertionError("waited for a copy the worker never started")

    class Busy:
        def submit(self, fn, *args):
            held.append(Queued())
            return held[-1]

    monkeypatch.setattr(CopyWriter, "_pool", classmethod(lambda cls: Busy()))
    writer = CopyWriter()
    writer.submit("a.md", article_html("<p>Alpha text.</p>", "A"))
    writer.submit("b.md", article_html("<p>Beta text.</p>", "B"))
    assert writer.results() == {"a.md": "# A\n\nAlpha text.\n", "b.md": "# B\n\nBeta text.\n"}
    assert len(held) == 2 and all(f.cancelled() for f in held)  # taken back from the worker, made here


def test_copies_are_made_in_process_when_the_worker_cannot_start(monkeypatch):
    def no_pool(cls):
        raise RuntimeError("no processes here")

    monkeypatch.setattr(CopyWriter, "_pool", classmethod(no_pool))
    writer = CopyWriter()
    writer.submit("a.md", article_html("<p>Alpha text.</p>", "A"))
    assert writer.results() == {"a.md": "# A\n\nAlpha text.\n"}


def test_a_failed_conversion_names_its_page(monkeypatch):
    import roofline_site.html.markdown_copy as mc

    monkeypatch.setattr(CopyWriter, "_pool", classmethod(lambda cls: (_ for _ in ()).throw(OSError("no"))))
    monkeypatch.setattr(mc, "article_markdown_from", lambda html, known: 1 / 0)
    writer = CopyWriter()
    writer.submit("glossary/hbm.md", "<article></article>")
    with pytest.raises(RuntimeError, match=r"^glossary/hbm\.md: the Markdown copy failed"):
        writer.results()




def test_a_sortable_tables_header_row_keeps_its_names_and_units():
    # table_base.html_table puts each header in a sort button, and buttons are not prose: the copy
    # once gave "|  |  |". Expected by hand: the name, then the unit in brackets where there is one.
    page = ('<table data-rl-sort><thead><tr>'
            '<th scope="col" data-rl-text><button type="button" class="rl-sort">Device<span class="rl-unit"></span></button></th>'
            '<th scope="col"><button type="button" class="rl-sort">Bandwidth<span class="rl-unit">TB/s</span></button></th>'
            '</tr></thead><tbody><tr><td>H100</td><td>3.35</td></tr></tbody></table>')
    md = article_markdown(article_html(page, "T"))
    assert "| Device | Bandwidth (TB/s) |" in md, md
    assert "|  |" not in md


def test_emphasis_characters_from_a_name_stay_text_in_the_copy():
    from roofline_site.html.markdown_copy import article_markdown

    # A device named "*em* _under_" shows those characters on the page (esc.text); in the copy they
    # must not become emphasis. The page's own <em> and <strong> still do, and lm_head keeps its
    # underscore bare (inside a word it cannot open emphasis).
    md = article_markdown('<article class="md-content__inner"><p>*em* _under_ lm_head <em>e</em> '
                          '<strong>b</strong></p></article>')
    assert md.strip() == r"\*em\* \_under\_ lm_head *e* **b**"


def test_a_phrase_written_for_hover_and_for_touch_reads_once_in_the_copy():
    # Both wordings sit side by side in the page and CSS shows one; a copy that kept both read "focusTap".
    page = ('<article class="md-content__inner"><p><span class="rl-if-hover">Hover over or focus</span>'
            '<span class="rl-if-touch">Tap</span> any number.</p></article>')
    md = article_markdown(page)
    assert "Hover over or focus any number." in md
    assert "Tap" not in md


def test_a_tables_column_toggle_is_left_out_of_the_copy():
    page = ('<article class="md-content__inner"><div class="rl-fold"><label class="rl-fold-toggle"><input type="checkbox">'
            ' Show every column (adds Source)</label><table><thead><tr><th>a</th></tr></thead>'
            '<tbody><tr><td>x</td></tr></tbody></table></div></article>')
    md = article_markdown(page)
    assert "Show every column" not in md and "x" in md


# A page converted block by block (each child of the article alone, then joined as markdownify joins an
# element's children) reads as the page converted whole; an edited page converts only its edited blocks.
BLOCKS_PAGE = ('<article class="md-content__inner md-typeset"><h1>Ridge</h1>\n<p>The ridge is <strong>295</strong>'
               ' FLOP/byte.</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<div class="language-python highlight"><pre><code>x = 1\n'
               '</code></pre></div>\n<p>End.</p></article>')
# By hand: an ATX heading, the paragraph with its bold, a "-" list, a fenced block with its language (from
# Material's highlight box), the end.
BLOCKS_MD = "# Ridge\n\nThe ridge is **295** FLOP/byte.\n\n- one\n- two\n\n```python\nx = 1\n```\n\nEnd.\n"


def test_a_page_converted_by_blocks_reads_as_written_by_hand():
    from roofline_site.html.markdown_copy import article_markdown_from

    md, blocks = article_markdown_from(BLOCKS_PAGE, {})
    assert md == BLOCKS_MD
    assert article_markdown(BLOCKS_PAGE) == BLOCKS_MD
    assert len(set(blocks.values()) - {""}) == 5  # heading, paragraph, list, code, paragraph


def test_an_edited_page_converts_only_its_edited_blocks(monkeypatch):
    import roofline_site.html.markdown_copy as mc

    _, blocks = mc.article_markdown_from(BLOCKS_PAGE, {})
    converted = []
    real = mc._block_markdown
    monkeypatch.setattr(mc, "_block_markdown", lambda conv, head, block: converted.append(block) or real(conv, head, block))
    md, _ = mc.article_markdown_from(BLOCKS_PAGE.replace("295", "298"), blocks)
    assert converted == ["<p>The ridge is <strong>298</strong> FLOP/byte.</p>"]
    assert md == BLOCKS_MD.replace("295", "298")


def test_a_page_whose_numbers_alone_changed_converts_no_block_again(monkeypatch):
    import roofline_site.html.markdown_copy as mc

    page = ('<article class="md-content__inner md-typeset"><h1>Decode</h1>\n<p>At <span class="rl-num" tabindex="0">'
            '3.35 TB/s</span> a step takes <span class="rl-num" tabindex="0">4.8 ms</span>.</p>\n<p>End.</p></article>')
    _, blocks = mc.article_markdown_from(page, {})
    converted = []
    real = mc._block_markdown
    monkeypatch.setattr(mc, "_block_markdown", lambda conv, head, block: converted.append(block) or real(conv, head, block))
    md, _ = mc.article_markdown_from(page.replace("3.35 TB/s", "4.1 TB/s").replace("4.8 ms", "3.9 ms"), blocks)
    # By hand: the same heading and paragraphs, the new values in place; nothing converted again.
    assert md == "# Decode\n\nAt 4.1 TB/s a step takes 3.9 ms.\n\nEnd.\n" and converted == []
    # A value the conversion would escape (an asterisk) keeps its block whole: converted, and escaped.
    md, _ = mc.article_markdown_from(page.replace("4.8 ms", "4.8*ms"), blocks)
    assert "4.8\\*ms" in md and len(converted) == 1
