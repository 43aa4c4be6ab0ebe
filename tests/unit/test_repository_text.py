"""What the repository's own text may say: comments give a reason, not the tracker's number for it.

A comment that cites the tracker's number for a change sends the reader to a tracker they may not
have; the reason the number stands for ("every byte here is page weight") is what they need, and git
log keeps the story.
An upstream project's issue is a source like any other and stays cited by its project's name
("nccl-tests issue 123", "NVIDIA/nccl issue 1940").
"""

from __future__ import annotations

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
_ISSUE = re.compile(r"(?i)(?P<before>[\w./-]*)\W{0,2}\bissues?\s*#?\d+")
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


def tracker_numbers(text: str) -> list[str]:
    """Every "issue N" in `text` that names no upstream project."""
    out = []
    for m in _ISSUE.finditer(text):
        before = m.group("before").lower()
        if before in UPSTREAM or "/" in before:
            continue
        out.append(m.group(0).strip())
    return out


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
])
def test_an_upstream_issue_or_plain_word_passes(text):
    assert tracker_numbers(text) == []
