"""Page bindings (numbers/bindings.py): a name in front matter renders exactly what its expression spelled out renders."""

from __future__ import annotations

import pytest

from roofline_site.numbers.bindings import _spell, _substitute
from roofline_site.numbers.tokens import Rendered, TokenError, expand

PAGED = 'paged("llama-3.1-8b", "h100-sxm5", example("long_context"), example("medium_context"))'
SPELLED = (f"Batch {{{{ {PAGED}.paged_batch }}}}, {{{{ {PAGED}.speedup }}}}. "
           f'{{{{ claim({PAGED}.paged_batch > {PAGED}.contiguous_batch, "paging fits more") }}}} Then more.')
BOUND = 'Batch {{ paging.paged_batch }}, {{ paging.speedup }}. {{ fits_more }} Then more.'
BINDINGS = {"long": 'example("long_context")',
            "paging": 'paged("llama-3.1-8b", "h100-sxm5", long, example("medium_context"))',
            "fits_more": 'claim(paging.paged_batch > paging.contiguous_batch, "paging fits more")'}


def test_a_bound_page_renders_and_records_exactly_what_the_spelled_out_page_does():
    spelled_records: list[Rendered] = []
    bound_records: list[Rendered] = []
    spelled = expand(SPELLED, "p.md", spelled_records)
    bound = expand(BOUND, "p.md", bound_records, bindings=BINDINGS)
    assert bound == spelled, "same HTML, popovers included"
    assert [vars(r) for r in bound_records] == [vars(r) for r in spelled_records]
    # The record quotes the expression and its sentence spelled out, as numbers-diff evaluates them.
    assert bound_records[0].expr == f"{PAGED}.paged_batch"
    assert "paging." not in bound_records[0].sentence and f"{{{{ {PAGED}.speedup }}}}" in bound_records[0].sentence


def test_names_are_replaced_only_where_read_as_values():
    # `tp=` is a keyword and `.n` an attribute: neither is the binding; a compound binding keeps its parentheses.
    spelled = {"n": _spell("a + b"), "tp": 'example("tp_degree")'}
    assert _substitute("f(n, tp=tp) * n.x + m.n", spelled) == 'f((a + b), tp=example("tp_degree")) * (a + b).x + m.n'
    assert _spell('example("x")') == 'example("x")'


@pytest.mark.parametrize("markdown, bindings, message", [
    ("{{ pagin.speedup }}", {"paging": PAGED},
     "p.md:1: token {{ pagin.speedup }}: name 'pagin' is not defined (did you mean the binding 'paging'?)"),
    ("{{ paging.speedup }}", {"paging": PAGED.replace("llama-3.1-8b", "llama-3.1-8")},
     "p.md: binding 'paging' = paged(\"llama-3.1-8\""),
    ("{{ ctx }}", {"ctx": 'example("medium_context")', "spare": 'example("long_context")'},
     "p.md: binding 'spare' is never used by a token; use it or remove it"),
    ("{{ decode }}", {"decode": 'example("long_context")'},
     "p.md: binding 'decode': the name is already a token function or name; choose another"),
    ("{{ n }}", {"n": 8}, "p.md: binding 'n': the value must be an expression written as text"),
    ("{{ hw }}", {"hw": "h100-sxm5"},
     "p.md: binding 'hw' = h100-sxm5: name 'h100' is not defined (a name in quotes is written '\"h100-sxm5\"' in"),
    ("{{ ctx }}", ["ctx"], "p.md: front matter 'bindings' must be a mapping of name: expression"),
    ("{{ ctx }}", {"ctx": 'claim(example("medium_context") > example("long_context"), "medium is longer")'},
     "p.md: binding 'ctx' = claim("),
])
def test_a_bad_binding_is_one_sentence_naming_page_and_binding(markdown, bindings, message):
    with pytest.raises(TokenError) as err:
        expand(markdown, "p.md", bindings=bindings)
    text = str(err.value)
    assert text.startswith(message), text
    assert "\n" not in text and "Traceback" not in text


def test_a_binding_used_only_by_another_binding_counts_as_used():
    assert expand("{{ paging.paged_batch }}", "p.md", bindings={k: BINDINGS[k] for k in ("long", "paging")})


def test_a_glossary_entrys_bindings_reach_its_published_page(tmp_path):
    """An entry's front-matter bindings are carried, as written, into the page the build expands."""
    from mkdocs.utils.meta import get_data

    from roofline_site.glossary.entries import GlossaryError, entry_markdown, load_glossary

    entry = ("---\nterm: Thing\ncategory: hardware\nsummary: A thing that does what things do.\n"
             "sources:\n  - {title: \"A real source\", url: \"https://example.org/thing\"}\n"
             "bindings:\n  hw: '\"h100-sxm5\"'\n  fits: 'claim(ridge(hw).value > 1, \"the ridge is: above one\")'\n"
             "---\nThe ridge is {{ ridge(hw) }}. {{ fits }}\n")
    (tmp_path / "glossary" / "hardware").mkdir(parents=True)
    (tmp_path / "glossary" / "hardware" / "thing.md").write_text(entry, encoding="utf-8")
    glossary = load_glossary(tmp_path / "glossary")
    body, meta = get_data(entry_markdown(glossary.get("thing"), glossary))
    assert meta["bindings"] == {"hw": '"h100-sxm5"', "fits": 'claim(ridge(hw).value > 1, "the ridge is: above one")'}
    assert meta["search"] == {"boost": 2}
    assert "295 FLOP/byte" in expand(body, "glossary/thing.md", bindings=meta["bindings"])
    (tmp_path / "glossary" / "hardware" / "thing.md").write_text(entry.replace("  hw:", "  hw: [1]\n  x:"))
    with pytest.raises(GlossaryError, match="field 'bindings' must be a mapping of name: expression"):
        load_glossary(tmp_path / "glossary")


def test_front_matter_mkdocs_cannot_read_fails_the_page_instead_of_dropping_its_bindings():
    # MkDocs keeps front matter that is not YAML in the page, silently (mkdocs.utils.meta.get_data):
    # an unquoted ': ' inside a claim's statement is enough.
    from mkdocs.exceptions import PluginError
    from mkdocs.utils.meta import get_data

    from roofline_site.hooks.numbers_hook import on_page_markdown

    source = '---\nbindings:\n  fits: claim(True, "note: this breaks YAML")\n---\n\nText {{ fits }}\n'
    body, meta = get_data(source)
    assert meta == {} and body == source

    class Page:
        class file:
            src_uri = "p.md"
        meta, url = {}, "p/"

    with pytest.raises(PluginError, match=r"^p\.md: the front matter is not valid YAML, so its bindings cannot be read"):
        on_page_markdown(body, page=Page(), config={}, files=None)
