"""Every glossary entry says what its term is, once, first; its names are true synonyms; the glossary
covers the terms an inference engineer looks up."""

from __future__ import annotations

import re

import pytest

from roofline_site.glossary.entries import entry_markdown, load_glossary
from roofline_site.glossary.matching import fold

#: The verbs a definition opens with: "X is ...", "Xs are ...", "X means ...".
DEFINING_VERB = r"(?:is|are|means|refers to)"


@pytest.fixture(scope="module")
def glossary():
    return load_glossary()


def _sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z(])", " ".join(text.split()))


def _defines(sentence: str, names: tuple[str, ...]) -> bool:
    """Whether `sentence` opens "[A|An|The] <name>[s] [(expansion)] is|are …" for one of `names`."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    pattern = (rf"^(?:(?:A|An|The)\s+)?(?:{alternatives})s?(?:\s+operation)?(?:\s+\([^)]*\))?"
               rf"\s+{DEFINING_VERB}\b")
    return re.match(pattern, sentence, re.IGNORECASE) is not None


@pytest.mark.parametrize("sentence, names, expected", [
    ("The ridge point is the intensity where the roofs meet.", ("Ridge point",), True),
    ("HBM (high-bandwidth memory) is stacked DRAM.", ("HBM",), True),
    ("A compute-bound operation is one whose intensity is high.", ("Compute-bound",), True),
    ("Occupancy is active warps over the most a core holds.", ("Occupancy",), True),
    # How the reviewed entries opened: a consequence, a fact about a neighbour, a bare noun phrase.
    ("The KV cache trades memory for compute.", ("KV cache",), False),
    ("The two phases sit on opposite sides of the ridge.", ("Disaggregated serving",), False),
    ("NVIDIA quotes NVLink bandwidth with both directions added.", ("NVLink",), False),
    ("The arithmetic intensity at which the roofs meet.", ("Ridge point",), False),
])
def test_the_definition_rule_tells_a_definition_from_a_consequence(sentence, names, expected):
    assert _defines(sentence, names) is expected


def test_every_entry_page_opens_with_its_definition(glossary):
    """The first sentence of the published page (after the title) is the summary, and it defines the term."""
    for e in glossary.entries:
        page = entry_markdown(e, glossary)
        first_paragraph = page.split(f"# {e.term}", 1)[1].strip().split("\n\n", 1)[0]
        assert first_paragraph.startswith('<p class="gl-lead">'), e.slug
        assert _defines(e.summary, e.names), f"{e.path}: the summary does not open '{e.term} is …': {e.summary!r}"


def test_the_page_description_is_the_definition(glossary):
    # The description feeds <meta name="description"> and the entry's llms.txt line.
    for e in glossary.entries:
        page = entry_markdown(e, glossary)
        front = page.split("\n---\n", 1)[0]
        assert f'description: "{e.summary}"' in front.replace('\\"', '"'), e.slug


def test_the_body_does_not_define_the_term_a_second_time(glossary):
    # The lead already says what the term is; a body that opens "X is …" again says it twice.
    for e in glossary.entries:
        first = _sentences(e.body.strip().split("\n\n")[0])[0]
        assert not _defines(first, e.names), f"{e.path}: the body repeats the definition: {first!r}"


def test_at_least_one_hundred_and_forty_entries(glossary):
    assert len(glossary.entries) >= 140


def test_no_alias_is_shared_or_names_another_entry(glossary):
    terms = {fold(e.term): e.slug for e in glossary.entries}
    owner: dict[str, str] = {}
    for e in glossary.entries:
        for alias in e.aliases:
            key = fold(alias)
            assert terms.get(key, e.slug) == e.slug, f"{e.slug}: alias {alias!r} is the title of {terms[key]}"
            assert owner.setdefault(key, e.slug) == e.slug, f"alias {alias!r} is in {owner[key]} and {e.slug}"


@pytest.mark.parametrize("name, slug", [
    # Related terms that used to route to a neighbour's card: each is its own entry now.
    ("INT4", "int4"), ("LayerNorm", "layernorm"), ("MHA", "multi-head-attention"),
    ("multi-head attention", "multi-head-attention"), ("output projection", "output-projection"),
    ("shared memory", "shared-memory"), ("L1 cache", "l1-cache"), ("unified memory", "unified-memory"),
])
def test_a_related_term_has_its_own_card(glossary, name, slug):
    from roofline_site.glossary.entries import find_mentions

    assert [m.slug for m in find_mentions(f"Here {name} appears.", glossary)] == [slug]


def test_every_definition_fits_a_search_snippet(glossary):
    # The definition is the page's meta description, written into an attribute with quotes escaped:
    # a search engine shows about this much, and the built-site check allows no more.
    import html

    for e in glossary.entries:
        assert len(html.escape(e.summary)) <= 170, f"{e.path}: the summary is too long for a description"


#: Sentences that describe the site or its history rather than the term (the reviewer's examples).
NOT_EXPLANATION = re.compile(r"earlier versions of this site|the package models it|the site names this bound"
                             r"|this site has no prices|the site quotes the whole-step|the package refuses", re.I)
MAX_WORDS = 35


def _words(sentence: str) -> int:
    """Words as a reader sees them: a token is one number, inline math one symbol, a link its text."""
    sentence = re.sub(r"\{\{.*?\}\}", "N", sentence)
    sentence = re.sub(r"\\\(.*?\\\)", "x", sentence)
    return len(re.sub(r"\]\([^)]*\)", "]", sentence).split())


def _prose_sentences(body: str):
    for paragraph in body.split("\n\n"):
        if not paragraph.lstrip().startswith(("|", "#", "-", "!!!", "???")):
            yield from re.split(r"(?<=[.!?])\s+(?=[A-Z(\[{])", " ".join(paragraph.split()))


def test_entries_explain_in_sentences_a_reader_can_hold(glossary):
    for e in glossary.entries:
        assert not NOT_EXPLANATION.search(e.body), f"{e.path}: {NOT_EXPLANATION.search(e.body).group()!r}"
        for sentence in [e.summary, *_prose_sentences(e.body)]:
            assert _words(sentence) <= MAX_WORDS, f"{e.path}: a sentence of {_words(sentence)} words: {sentence[:80]!r}"


def test_the_voice_checks_can_fail():
    assert NOT_EXPLANATION.search("Earlier versions of this site called this limit the memory wall.")
    long = "word " * (MAX_WORDS + 1)
    assert _words(long) > MAX_WORDS and _words("A {{ decode(m, hw).time }} step.") == 3
