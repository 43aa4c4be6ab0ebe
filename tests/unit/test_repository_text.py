"""What the repository's own text may say: comments give a reason, not the tracker's number for it.

A comment that cites the tracker's number for a change sends the reader to a tracker they may not
have; the reason the number stands for ("every byte here is page weight") is what they need, and git
log keeps the story.
An upstream project's issue is a source like any other and stays cited by its project's name
("nccl-tests issue 123", "NVIDIA/nccl issue 1940").
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

#: Where the project's comments, docstrings and prose live (text files only).
TEXT_ROOTS = ("src", "tools", "tests", "figures_gen", "docs", "glossary", ".ci")
TOP_FILES = ("Makefile", "mkdocs.yml", "pyproject.toml", "README.md", "ARCHITECTURE.md", "CONTRIBUTING.md")
TEXT_EXT = {".py", ".js", ".mjs", ".css", ".html", ".md", ".toml", ".yml", ".yaml", ".txt", ""}
SKIP_DIRS = {"__pycache__", "node_modules", ".venv", ".hypothesis", ".pytest_cache", "site"}

#: The word "issue", an optional "#" and a number: a tracker number (or an upstream project's).
_ISSUE = re.compile(r"(?i)\bissues?\s*#?\d+")
#: Upstream projects whose issues the registry and the glossary cite as sources (matched against the
#: word before "issue", lower case); an `owner/name` word is one too.
UPSTREAM = frozenset({"nccl", "nccl-tests", "fbgemm", "transformers-benchmarks", "vllm", "sglang", "pytorch",
                      "tensorrt-llm", "flashinfer", "cutlass", "rccl", "jax", "triton"})


def _text_files() -> list[Path]:
    files = [ROOT / name for name in TOP_FILES if (ROOT / name).is_file()]
    for top in TEXT_ROOTS:
        for path in (ROOT / top).rglob("*"):
            rel = path.relative_to(ROOT).parts
            if path.is_file() and path.suffix in TEXT_EXT and not SKIP_DIRS.intersection(rel):
                files.append(path)
    return files


#: A hash and a number in brackets or between spaces: a tracker number with no word at all (an HTML entity
#: "&#91;" or a colour "#333" is not one).
_HASH = re.compile(r"(?<=[(\s])#\d{1,4}(?=[)\s:,;]|\.\s)")


def tracker_numbers(text: str) -> list[str]:
    """Every "issue N" in `text` that names no upstream project, and every bare "#N"."""
    out = [m.group(0) for m in _HASH.finditer(text) if not _upstream_before(text, m.start())]
    for m in _ISSUE.finditer(text):
        words = re.findall(r"[\w./-]+", text[max(0, m.start() - 60):m.start()])
        before = words[-1].lower() if words else ""
        if before in UPSTREAM or "/" in before:
            continue
        out.append(m.group(0).strip())
    return out


def _upstream_before(text: str, at: int) -> bool:
    """Whether the word before position `at` is an upstream project or a word a "#N" counts in."""
    words = re.findall(r"[\w./-]+", text[max(0, at - 60):at])
    return bool(words) and (words[-1].lower() in UPSTREAM or "/" in words[-1] or words[-1].lower() in ("issue", "pr", "entry", "step", "no", "number", "run"))


def test_no_comment_names_an_issue_number():
    files = _text_files()
    assert len(files) > 200  # the walk found the tree
    found = [f"{path.relative_to(ROOT)}: {hit!r}" for path in files
             for hit in tracker_numbers(path.read_text(encoding="utf-8", errors="replace"))]
    assert not found, "say the reason, not the issue's number:\n" + "\n".join(found)


ISSUE = "issue"  # split from the numbers below, so this file does not trip its own test


@pytest.mark.parametrize("text", [
    f"every reader downloads it ({ISSUE} 26).",
    f"{ISSUE.title()} 25: the Devices field gave no message",
    f"one symbol per quantity (item 14 of {ISSUE} 22)",
    f"as {ISSUE} #23 counted them",
    f"before {ISSUE} 22's item 7 was finished",
    "kept between builds (" + "#26).",
])
def test_a_tracker_number_is_caught(text):
    assert tracker_numbers(text)


@pytest.mark.parametrize("text", [
    f"latency from nccl-tests {ISSUE} 123 (DGX-A100, NVLink, ring)",
    f"NCCL {ISSUE} 1940 (NCCL 2.27 symmetric-memory kernels)",
    f"RCCL takes about 26 us there, FBGEMM {ISSUE} 4072",
    f"the A800 figure of mli/transformers-benchmarks {ISSUE} #4",
    f"NVIDIA/nccl-tests {ISSUE} 212, H100 all reduce performance",
    "an issue the reader may raise, 26 of them",
    "'&#91;a&#93;(javascript:1)' and a colour '#333'",
    "entry #3 of the file",
])
def test_an_upstream_issue_or_plain_word_passes(text):
    assert tracker_numbers(text) == []


# --- the front door and the map ------------------------------------------------------------------
# README is the front door: set-up, the site, the CLI and the map within a screen or two, no more.

README_MAX_LINES = 150
README_MAX_BYTES = 10_000
MAPS = ("README.md", "ARCHITECTURE.md", "CONTRIBUTING.md")


def test_readme_is_a_front_door_not_a_manual():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES, "README: move detail to ARCHITECTURE.md or CONTRIBUTING.md"
    assert len(text.encode("utf-8")) <= README_MAX_BYTES
    first_screen = "\n".join(text.splitlines()[:60])
    for what in ("make site", "make test", "make serve", ".venv/bin/roofline", "ARCHITECTURE.md", "https://"):
        assert what in text, f"README does not say {what!r}"
    assert "make site" in first_screen and "make test" in first_screen


def test_architecture_stays_a_map():
    assert len((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8").splitlines()) <= 300


#: Paths the tree does not hold until something writes them (git-ignored or built).
WRITTEN_LATER = (".venv/", ".tools/", ".cache/", "site/", "screenshots/", "node_modules/", "measurements/local/")
#: `src/roofline/cli.py`, `docs/assets/`, `.ci/run`: a token with a slash, or a file name with one of our extensions.
_BACKTICKED = re.compile(r"`([^`\s]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_EXT = (".py", ".js", ".mjs", ".css", ".md", ".toml", ".yml", ".html")
#: Where a path may be anchored: the root, or the package a section of the map is about.
ANCHORS = ("", "src/roofline", "src/roofline_site", "docs/assets/calculator", "tests/unit")


def named_paths(text: str) -> list[str]:
    """The repository paths a Markdown text names: link targets that are not URLs, backticked paths."""
    out = [m.group(1).split("#")[0] for m in _LINK.finditer(text) if "://" not in m.group(1)]
    for m in _BACKTICKED.finditer(text):
        token = m.group(1).rstrip(".,:;")
        if any(c in token for c in "<>*{}()=$…|") or "://" in token or token.startswith(("-", "--")):
            continue
        if "/" in token or token.endswith(_EXT):
            out.append(token)
    return [p for p in out if p]


def missing_paths(text: str, root: Path) -> list[str]:
    """Each path `named_paths` finds that the tree does not hold (a bare file name: anywhere in it)."""
    missing = []
    for path in named_paths(text):
        clean = path.lstrip("./") if path.startswith("./") else path
        if clean.startswith(WRITTEN_LATER) or clean in ("/", "site"):
            continue
        if "/" in clean:  # a path, or a folder (`data/`): from the root or a package the map is about
            if not any((root / anchor / clean).exists() for anchor in ANCHORS):
                missing.append(path)
        elif not (root / clean).exists() and clean not in _file_names(root):
            missing.append(path)
    return missing


@functools.cache
def _file_names(root: Path) -> frozenset[str]:
    """The name of every file in the tree, outside what is installed or built."""
    skip = {".git", ".venv", ".tools", ".cache", "node_modules", "site", "screenshots", "__pycache__"}
    names: set[str] = set()
    for _folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if d not in skip and not d.startswith(".site")]
        names.update(files)
    return frozenset(names)


@pytest.mark.parametrize("name", MAPS)
def test_every_path_a_map_names_exists(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert len(named_paths(text)) > 5  # the extraction found the paths
    assert missing_paths(text, ROOT) == [], f"{name} names paths the tree does not hold"


@pytest.mark.parametrize("name", MAPS)
def test_every_module_or_file_a_map_names_is_live(name):
    # The stale-reference check of comments, run over the maps: `roofline.model.kernels`, `kernels.js`.
    from tests.support.stale_refs import stale_in
    stale = [str(s) for s in stale_in((ROOT / name).read_text(encoding="utf-8"), ROOT / name, ROOT)
             if not s.name.startswith(WRITTEN_LATER)]
    assert not stale, "\n".join(stale)


def test_a_missing_path_is_caught(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "here.py").write_text("")
    text = "See `src/here.py`, [a link](src/gone.py), `tools/gone.py` and `here.py`; `make site`; `site/`."
    assert missing_paths(text, tmp_path) == ["src/gone.py", "tools/gone.py"]


# --- references generated from the code ----------------------------------------------------------

def test_the_references_are_what_the_code_gives():
    from tools import reference
    assert reference.stale() == [], "run `make reference` and commit reference/"


def test_a_stale_reference_is_caught(tmp_path):
    from tools import reference
    for name in reference.REFERENCES:
        (tmp_path / name).write_text((ROOT / "reference" / name).read_text(encoding="utf-8"), encoding="utf-8")
    cli = tmp_path / "cli.md"
    cli.write_text(cli.read_text(encoding="utf-8").replace("| `--chunk-tokens` |", "| `--chunk` |"), encoding="utf-8")
    assert reference.stale(tmp_path) == ["cli.md"]


def _cli_sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## roofline (\w+)$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_the_cli_reference_lists_every_option_of_every_command():
    # Read from the parser here, not from the generator, so a generator that drops an option fails.
    from roofline.cli import build_parser
    parser = build_parser()
    sections = _cli_sections((ROOT / "reference" / "cli.md").read_text(encoding="utf-8"))
    commands = next(a.choices for a in parser._actions if isinstance(a.choices, dict))
    assert set(sections) == set(commands), "reference/cli.md: commands differ from the parser's"
    missing = [f"{name} {opt}" for name, sub in commands.items() for a in sub._actions
               for opt in (a.option_strings or [a.dest]) if opt not in ("-h", "--help")
               and f"`{opt}`" not in sections[name]]
    assert not missing, f"reference/cli.md lacks {missing}"


def test_no_hand_written_copy_of_the_references_is_left():
    # The old hand-kept copies: a schema table in README, the plausible ranges typed in a Markdown file.
    for name in MAPS:
        text = (ROOT / name).read_text(encoding="utf-8")
        assert "| `time_perfect_overlap_s` |" not in text and "| `memory_bandwidth_TB_per_s` |" not in text, name


# --- no narrative of passes, rounds or sessions --------------------------------------------------
# README, the reports, the docs and the references describe the project as it is; what changed and
# when is git log's. Tuned on the pages as they are: "one pass of the weights" and "the last stop on
# the chip" are the model's words, "the twelfth pass" and "this session" a diary's.

_ORDINAL = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
            "fourteenth|fifteenth|\\d+(?:st|nd|rd|th)")
NARRATIVE = re.compile(
    rf"\b(?:(?:{_ORDINAL}|last|previous|this|earlier|latest|next|same) (?:pass|round)"
    r"|this (?:stop|session)|(?:pass|round) \d+|load averages?|in brackets: the last"
    r"|before (?:this|the last) (?:pass|round))\b", re.I)


def _prose_files() -> list[Path]:
    files = [ROOT / n for n in MAPS]
    files += [*(ROOT / "reports").rglob("*.md"), *(ROOT / "reference").rglob("*.md"),
              *(ROOT / "measurements").glob("*.md"), *(ROOT / "docs").rglob("*.md"), *(ROOT / "glossary").rglob("*.md")]
    return [f for f in files if f.is_file()]


def test_no_narrative_of_passes_or_rounds():
    found = [f"{path.relative_to(ROOT)}: {m.group(0)!r}" for path in _prose_files()
             for m in NARRATIVE.finditer(path.read_text(encoding="utf-8"))]
    assert not found, "describe the project as it is; the story belongs in git log:\n" + "\n".join(found)


@pytest.mark.parametrize("text", [
    "What changed is under \"A twelfth pass\" below.", "the builds of this pass", "In this session we",
    "load average 3.1 at the time", "(the last pass's figures)", "the 3rd round of review",
])
def test_a_narrative_is_caught(text):
    assert NARRATIVE.search(text)


@pytest.mark.parametrize("text", [
    "Prefill processes the prompt in one pass", "The L2 cache is the last stop on the chip",
    "a round trip through HBM", "the verify pass takes", "passes through it",
])
def test_the_models_words_pass(text):
    assert not NARRATIVE.search(text)


# --- one install story, one set of numbers -------------------------------------------------------

def test_make_help_and_readme_tell_the_same_story():
    # `make help` and README say the same durations and the same set-up words.
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    help_text = " ".join(re.findall(r'@echo "([^"]*)"', makefile[makefile.index("help:"):]))
    durations = re.findall(r"about (?:half a minute|a minute|\w+ minutes?)", help_text)
    assert durations, "make help gives no durations"
    for d in durations:
        assert d in readme, f"make help says {d!r}, README does not"
    for words in ("uv", "npm ci", "chromium"):
        assert words in help_text.lower() and words in readme.lower(), words


def test_contributing_names_every_variable_the_code_reads_and_no_other():
    # A variable the code reads and CONTRIBUTING.md leaves out is a switch nobody finds; one it names
    # that nothing reads is a switch that does nothing.
    read = set()
    for path in [*(ROOT / "src").rglob("*.py"), *(ROOT / "tests" / "support").rglob("*.py")]:
        read |= set(re.findall(r"\b(ROOFLINE_[A-Z_]+)\b", path.read_text(encoding="utf-8")))
    named = set(re.findall(r"\b(ROOFLINE_[A-Z_]+)\b", (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")))
    assert read - named == set(), "CONTRIBUTING.md, Environment variables, lacks these"
    assert named - read == set(), "CONTRIBUTING.md names variables no code reads"
