"""The repository on a page: a link to it and the lines that install the package from a clone.

The address is the site's `repo_url` (mkdocs.yml, `REPO_URL` for a fork): pages never type it.
"""

from __future__ import annotations

from roofline_site.html import escape as esc
from roofline_site.numbers.tokens import Raw


def clone_folder(repo_url: str) -> str:
    """The folder `git clone` makes: the address's last path segment, without `.git`.

    >>> clone_folder("https://github.com/roofline-explainer/roofline-explainer.git")
    'roofline-explainer'
    """
    name = repo_url.rstrip("/").rsplit("/", 1)[-1]
    return name.removesuffix(".git") or "roofline"


def repository_link(repo_url: str) -> Raw:
    """An inline link to the repository, its address as the text (a reader can copy it)."""
    return Raw(esc.link(repo_url, repo_url))


def install_block(repo_url: str) -> Raw:
    """A shell block: clone, set up the environment as README does (`make env`: uv syncs .venv from
    uv.lock), run the CLI from it without activating anything."""
    lines = (f"git clone {repo_url}", f"cd {clone_folder(repo_url)}", "make env",
             ".venv/bin/roofline decode --model llama-3.1-8b --hardware h100-sxm5")
    code = "\n".join(esc.attr(line) for line in lines)
    return Raw(f'<div class="language-sh highlight"><pre><span></span><code>{code}</code></pre></div>')
