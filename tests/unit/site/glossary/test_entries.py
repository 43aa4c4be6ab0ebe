"""The glossary's sources: every entry complete and sourced, names unique, the matcher and HTML pass correct."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from roofline_site.glossary.entries import (CATEGORIES, GlossaryError, annotate_html, find_mentions, load_glossary,
                                    resolve_glossary_link)
from tests.conftest import ROOT


REQUIRED = """roofline-model arithmetic-intensity ridge-point compute-bound memory-bound memory-bandwidth peak-flops
flops hbm tensor-core systolic-array interconnect decode prefill kv-cache batching continuous-batching
critical-batch-size speculative-decoding quantization operator-fusion paged-attention mixture-of-experts
tensor-parallelism pipeline-parallelism disaggregated-serving speed-of-light time-to-first-token
time-per-output-token tokens-per-second gemm gemv bf16 fp8 mbu mfu""".split()


@pytest.fixture(scope="module")
def glossary():
    return load_glossary()


def test_every_required_slug_has_an_entry(glossary):
    assert sorted(set(REQUIRED) - set(glossary.by_slug)) == []


def test_entries_live_in_their_category_folder(glossary):
    for e in glossary.entries:
        assert e.path == f"glossary/{e.category}/{e.slug}.md"
        assert e.category in CATEGORIES


def test_every_entry_has_summary_category_and_a_real_source(glossary):
    for e in glossary.entries:
        assert e.summary.endswith(".") and len(e.summary.split()) >= 6, e.slug
        assert e.sources, e.slug
        for s in e.sources:
            assert s.url.startswith("https://") and "example.com" not in s.url and len(s.title) > 5, (e.slug, s)


def test_body_opens_with_a_definition_and_is_not_a_copy_of_the_summary(glossary):
    for e in glossary.entries:
        first = e.body.strip().split("\n\n")[0]
        assert not first.startswith(("#", "|", "-", "{{")), e.slug
        assert first.strip() != e.summary


def test_see_also_resolves(glossary):
    for e in glossary.entries:
        for other in e.see_also:
            assert other in glossary.by_slug, (e.slug, other)
            assert other != e.slug


def test_no_name_belongs_to_two_entries(glossary):
    owner = {}
    for e in glossary.entries:
        for name in e.names:
            key = re.sub(r"[\s-]+", " ", name).lower()
            assert owner.setdefault(key, e.slug) == e.slug, f"{name!r} is in {owner[key]} and {e.slug}"


def test_every_name_resolves_to_its_own_entry(glossary):
    # The matcher, given a term or alias in a sentence, finds exactly that entry (an entry declared
    # `marked: false` is linked by hand and never matched).
    for e in glossary.entries:
        for name in e.names if e.marked else ():
            found = find_mentions(f"Here {name} appears.", glossary)
            assert [m.slug for m in found] == [e.slug], (name, found)


@pytest.mark.parametrize("text, expected", [
    ("continuous batching beats batching", ["continuous-batching", "batching"]),   # longest name wins
    ("the KV-cache and the KV cache", ["kv-cache", "kv-cache"]),                    # hyphen == space
    ("Ridge points and decodes", ["ridge-point", "decode"]),                       # case and plural
    ("FLOP/byte and TFLOP/s are units", []),                                        # no match inside a unit
    ("decoded, prefill-heavy, TPU", []),                                            # no match inside a word
    ("kv cache in lower case", []),                                                 # acronym names keep case
    ("FLOPs, not FLOPS", ["flops"]),
])
def test_matching_rules(glossary, text, expected):
    assert [m.slug for m in find_mentions(text, glossary)] == expected


def _annotate(html, glossary, page_url="decode/"):
    return annotate_html(html, glossary, page_url, lambda s: f"../glossary/{s}/")


def test_annotation_skips_code_links_headings_and_numbers(glossary):
    page = ('<h2 id="x">The ridge point</h2><p>Use <code>decode</code> and <a href="x/">prefill</a>; '
            '<span class="rl-num" tabindex="0">295 FLOP/byte<span class="rl-prov">ridge point of the H100</span></span>'
            '</p><pre><code>KV cache</code></pre>')
    out = _annotate(page, glossary)
    assert out.mentioned == frozenset()
    assert out.html == page


def test_a_term_is_marked_once_per_section_and_linked_once_per_page(glossary):
    out = _annotate("<p>The ridge point. Again the ridge point, then decode.</p>"
                    '<h2 id="more">More</h2><p>A third ridge point and a fourth ridge point.</p>', glossary)
    assert out.mentioned == {"ridge-point", "decode"}
    links = re.findall(r'<a class="gl-term" href="([^"]+)"', out.html)
    assert links == ["../glossary/ridge-point/", "../glossary/decode/"]
    # Four mentions, two sections: the first section's second mention stays plain text, the second
    # section's first is a focusable span (the page's link came earlier), its second plain text.
    assert out.html.count('data-gl="ridge-point"') == 2
    assert out.html.count('tabindex="0" aria-describedby="gl-card-ridge-point"') == 1
    assert "Again the ridge point, then" in out.html and "a fourth ridge point." in out.html
    cards = re.findall(r'<span class="gl-card" role="tooltip" id="gl-card-([a-z-]+)"', out.html)
    assert cards == ["ridge-point", "decode"]
    summary = glossary.get("ridge-point").summary
    shown = re.search(r'<span class="gl-card-summary">(.*?)</span>', out.html).group(1)
    assert "<" not in shown and html.unescape(shown) == summary


def test_own_entry_is_not_annotated_on_its_page(glossary):
    out = annotate_html("<p>The ridge point and decode.</p>", glossary, "glossary/ridge-point/",
                        lambda s: f"../{s}/", exclude=frozenset({"ridge-point"}))
    assert out.mentioned == {"decode"}


def test_hand_written_links_to_entries_are_recorded(glossary):
    page = '<p><a href="../glossary/hbm/">memory</a> and <a href="../glossary/hbm.md">x</a> <a href="https://x.org/glossary/hbm/">y</a></p>'
    assert _annotate(page, glossary).linked == {"hbm"}
    assert resolve_glossary_link("../kv-cache/#x", "glossary/decode/", glossary) == "kv-cache"
    assert resolve_glossary_link("glossary/nope/", "", glossary) is None


def _write_entry(folder: Path, category: str, slug: str, text: str) -> None:
    (folder / category).mkdir(parents=True, exist_ok=True)
    (folder / category / f"{slug}.md").write_text(text, encoding="utf-8")


GOOD = """---
term: Thing
aliases: [gizmo]
category: hardware
summary: A thing that does what things do.
sources:
  - {title: "A real source", url: "https://example.org/thing"}
see_also: []
---
A thing is a thing.
"""


@pytest.mark.parametrize("mutate, message", [
    (lambda t: t.replace("summary: A thing that does what things do.\n", ""), "field 'summary' is missing"),
    (lambda t: t.replace("category: hardware", "category: gadgets"), "category 'gadgets' is not one of"),
    (lambda t: t.replace("see_also: []", "see_also: [nowhere]"), "see_also 'nowhere' is not a glossary slug"),
    (lambda t: t.replace('url: "https://example.org/thing"', 'url: "ftp://x"'), "field 'sources'"),
    (lambda t: t.replace("sources:\n  - {title: \"A real source\", url: \"https://example.org/thing\"}\n", ""),
     "field 'sources' is missing"),
    (lambda t: t.replace("do.", "do. It is good."), "must be one sentence"),
    # A schema: misspelt or unknown keys, a key given twice, controls, anchors and aliases refused.
    (lambda t: t.replace("aliases: [gizmo]", "alias: [gizmo]"), "field 'alias' is not a front-matter field "
                                                                  "(did you mean 'aliases'?)"),
    (lambda t: t.replace("see_also: []", "see-also: [other]"), "field 'see-also' is not a front-matter field"),
    (lambda t: t.replace("term: Thing", "term: Thing\nterm: Other"), "field 'term' is given twice"),
    (lambda t: t.replace("term: Thing", 'term: "Thing\\x1b[2J"'), "control character U+001B"),
    (lambda t: t.replace("term: Thing", "term: Thing\x00"), "control character U+0000"),
    (lambda t: t.replace("see_also: []", "see_also: &a [x]\nbindings: {b: *a}"), "anchor or alias"),
    (lambda t: t.replace("term: Thing", "term: [7, 8]"), "field 'term' must be text, got a list"),
])
def test_malformed_entries_fail_with_one_line_naming_file_and_field(tmp_path, mutate, message):
    folder = tmp_path / "glossary"
    _write_entry(folder, "hardware", "thing", mutate(GOOD))
    with pytest.raises(GlossaryError) as err:
        load_glossary(folder)
    assert message in str(err.value)
    assert str(err.value).startswith("glossary/hardware/thing.md")
    assert "\n" not in str(err.value)


def test_an_alias_in_two_entries_is_refused(tmp_path):
    folder = tmp_path / "glossary"
    _write_entry(folder, "hardware", "thing", GOOD)
    _write_entry(folder, "hardware", "other", GOOD.replace("term: Thing", "term: Other"))
    with pytest.raises(GlossaryError, match="name 'gizmo' already belongs to"):
        load_glossary(folder)


def test_redirect_map_must_point_at_live_slugs(tmp_path, glossary):
    folder = tmp_path / "glossary"
    _write_entry(folder, "hardware", "thing", GOOD)
    (folder / "_redirects.yml").write_text("old-thing: gone\n")
    with pytest.raises(GlossaryError, match="'old-thing' redirects to 'gone', which is not a slug"):
        load_glossary(folder)
    assert glossary.redirects, "keep at least one renamed slug as a live example"
    assert all(new in glossary.by_slug and old not in glossary.by_slug for old, new in glossary.redirects.items())


def test_quoted_greater_than_in_an_attribute_does_not_end_the_tag(glossary):
    page = '<p title="decode > prefill">The KV cache</p><!-- a ridge point --><p data-glossary="off">decode</p>'
    out = _annotate(page, glossary)
    assert out.mentioned == {"kv-cache"}
    assert out.html.startswith('<p title="decode > prefill">The <span class="gl-ref" data-gl="kv-cache">')


def test_the_matcher_equals_one_alternation_of_every_name(glossary):
    # The matcher tries at each word start only the names beginning with its letter. The plain
    # reference: one regex of every name, longest first, with the same boundaries. Both must find
    # the same mentions in a text that puts every name in every position the rules distinguish
    # (plain, plural, capitalised, inside a word, in a compound, before a unit) and in two pages.
    # (The reference is slow: it tries every name at every position, so it reads a sample.)
    from roofline_site.glossary.entries import name_pattern

    names = sorted(((n, e.slug) for e in glossary.entries if e.marked for n in e.names),
                   key=lambda t: (-len(t[0]), t[0]))
    ref = re.compile(r"(?<![\w/\-])(?:" + "|".join(f"(?P<g{i}>{name_pattern(n)})" for i, (n, _) in enumerate(names))
                     + r")s?(?![\w/]|-\w)")
    every_name = " ".join(f"{n}, {n}s {n.upper()} {n.capitalize()} x{n} {n}x {n}-based {n}/s." for n, _ in names)
    texts = {"every name": every_name,
             **{p: (ROOT / "docs" / p).read_text(encoding="utf-8") for p in ("batching.md", "your-model.md")}}
    for where, text in texts.items():
        got = [(m.start, m.end, m.slug) for m in find_mentions(text, glossary)]
        want = [(m.start(), m.end(), names[int(m.lastgroup[1:])][1]) for m in ref.finditer(text)]
        assert got == want, where


def test_a_reload_parses_only_the_entry_that_changed_and_shows_its_edit(tmp_path, monkeypatch):
    # `mkdocs serve` loads the glossary at every rebuild: an unchanged file is not parsed again, an edited
    # one is, whatever its size or time stamp (the edit below keeps the file's length).
    from roofline_site.glossary import entries

    folder = tmp_path / "glossary"
    _write_entry(folder, "hardware", "thing", GOOD)
    _write_entry(folder, "hardware", "other", GOOD.replace("term: Thing", "term: Other").replace("gizmo", "doohickey"))
    parsed = []
    split = entries._split_front_matter
    monkeypatch.setattr(entries, "_split_front_matter", lambda text, where: parsed.append(where) or split(text, where))
    entries._entry.cache_clear()
    first = load_glossary(folder)
    assert sorted(parsed) == ["glossary/hardware/other.md", "glossary/hardware/thing.md"]
    parsed.clear()
    assert load_glossary(folder).entries == first.entries and parsed == []
    _write_entry(folder, "hardware", "thing", GOOD.replace("does what things do", "does what makers do"))
    again = load_glossary(folder)
    assert parsed == ["glossary/hardware/thing.md"]
    assert again.by_slug["thing"].summary == "A thing that does what makers do."


@pytest.mark.parametrize("value,said", [("", "ROOFLINE_GLOSSARY is set but empty"),
                                        ("/dev/zero", "ROOFLINE_GLOSSARY=/dev/zero: is not a folder"),
                                        ("/nowhere/glossary", "ROOFLINE_GLOSSARY=/nowhere/glossary: does not exist")])
def test_the_glossary_variable_is_named_when_it_names_no_folder(monkeypatch, value, said):
    from roofline_site.glossary.entries import glossary_dir

    monkeypatch.setenv("ROOFLINE_GLOSSARY", value)
    with pytest.raises(GlossaryError, match=re.escape(said)):
        glossary_dir()


def test_an_unmarked_entry_is_never_matched(glossary):
    token = glossary.get("token")
    assert not token.marked
    assert find_mentions("Each token costs a step; tokens per second counts them.", glossary) == [
        m for m in find_mentions("Each token costs a step; tokens per second counts them.", glossary) if m.slug != "token"]
    assert all(m.slug != "token" for m in find_mentions("a token and tokens", glossary))
