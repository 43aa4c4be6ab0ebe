"""Every quoted number that changed since a git ref: `python -m roofline_site.release.numbers_diff REF`.

Renders every `{{ ... }}` token of docs/ and glossary/ at REF and in the working tree,
each with its own tree's code and registry (see numbers_worker.py), and lists each
quoted number whose text changed: page, sentence, old value, new value. Numbers are
matched by (page, token, occurrence), so moving a sentence does not count as a change.
Figures whose data (the CSV beside the SVG), alt text or caption changed are listed too.

    make numbers-diff REF=v0.1.0
    python -m roofline_site.release.numbers_diff HEAD~3 --json
    python -m roofline_site.release.numbers_diff v0.1.0 --record 0.2.0 --note "H100 bandwidth corrected"

Exit status 0 with the list (or one line, "no quoted number changed"); 1 when a page
fails to render on either side (listed); 2 on a bad ref or argument, with one line.
No full MkDocs build is run: the REF tree comes from `git archive`, so the repository
is never modified.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from roofline_site.paths import ROOT
from roofline_site.release import changelog
from roofline_site.release.rows import ReleaseError
from roofline_site.release.rows import Row
WORKER = Path(__file__).with_name("numbers_worker.py")
NUMERAL = re.compile(r"\d[\d.,]*")


# ---------------------------------------------------------------- trees -------------------
def _git(repo: Path, *args: str, binary: bool = False):
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=not binary)


def resolve(repo: Path, ref: str) -> str:
    """The commit `ref` names in `repo`; ReleaseError in one sentence if there is none."""
    top = _git(repo, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise ReleaseError(f"{repo} is not inside a git repository")
    if ref.startswith("-"):
        raise ReleaseError(f"'{ref}' is not a git ref")
    proc = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if proc.returncode != 0 or not proc.stdout.strip():
        raise ReleaseError(f"'{ref}' is not a commit in {repo} (try a tag, a branch or a hash from `git log`)")
    return proc.stdout.strip()


def export_tree(repo: Path, commit: str, dest: Path) -> Path:
    """The files of `commit` under `dest`, via `git archive` (the repository is not touched)."""
    top = Path(_git(repo, "rev-parse", "--show-toplevel").stdout.strip())
    prefix = repo.resolve().relative_to(top.resolve()).as_posix()
    proc = _git(repo, "archive", "--format=tar", commit, binary=True)
    if proc.returncode != 0:
        raise ReleaseError(f"git archive of {commit[:12]} failed: {proc.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        tar.extractall(dest, filter="data")
    return dest / prefix if prefix != "." else dest


def render(tree: Path, scratch: Path) -> dict:
    """Run the worker on `tree` in a fresh interpreter; its JSON result."""
    out = scratch / f"numbers-{abs(hash(str(tree)))}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOFLINE_")}
    env.update(PYTHONPATH=os.pathsep.join([str(tree / "src"), str(tree)]), MPLBACKEND="Agg",
               NO_MKDOCS_2_WARNING="1", DISABLE_MKDOCS_2_WARNING="true", PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-c", WORKER.read_text(encoding="utf-8"), str(tree), str(out)],
                          cwd=tree, env=env, capture_output=True, text=True)
    if proc.returncode != 0 or not out.exists():
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise ReleaseError(f"rendering the numbers of {tree} failed: {last}")
    result = json.loads(out.read_text(encoding="utf-8"))
    if "fatal" in result:
        raise ReleaseError(f"rendering the numbers of {tree} failed: {result['fatal']}")
    if "spec_error" in result:
        raise ReleaseError(f"{tree}: {result['spec_error']}")
    return result


# ---------------------------------------------------------------- diff --------------------
def _keyed(records: list[dict]) -> dict[tuple[str, str, int], dict]:
    seen: dict[tuple[str, str], int] = {}
    out = {}
    for r in records:
        n = seen.get((r["page"], r["expr"]), 0)
        seen[(r["page"], r["expr"])] = n + 1
        out[(r["page"], r["expr"], n)] = r
    return out


def _csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def figure_rows(old: dict, new: dict) -> list[Row]:
    """Figures whose data, alt text or caption differ between two renders."""
    rows = []
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        if a is None:
            rows.append(Row("figure", name, "", "added", "new figure"))
            continue
        if b is None:
            rows.append(Row("figure", name, "removed", "", "figure removed"))
            continue
        what = []
        if a.get("csv") != b.get("csv"):
            ra, rb = _csv_rows(a.get("csv", "")), _csv_rows(b.get("csv", ""))
            if ra[:1] != rb[:1]:
                what.append("data columns changed")
            differ = sum(1 for x, y in zip(ra[1:], rb[1:]) if x != y) + abs(len(ra) - len(rb))
            what.append(f"{differ} of {max(len(ra), len(rb)) - 1} data rows differ")
        for part in ("alt", "caption"):
            if a.get(part) != b.get(part):
                what.append(f"{part} text changed")
        if a.get("error") != b.get("error") and b.get("error"):
            what.append(f"now fails: {b['error']}")
        if what:
            rows.append(Row("figure", name, "", "", "; ".join(what)))
    return rows


def _skeleton(sentence: str) -> str:
    return NUMERAL.sub("#", sentence)


def _rewritten(gone: list, came: list, a: dict, b: dict) -> list[tuple]:
    """Pairs (old key, new key) on one page whose sentences match once numerals are masked, in page order."""
    pairs, free = [], sorted(came, key=lambda k: (k[0], b[k].get("position", 0)))
    for ka in sorted(gone, key=lambda k: (k[0], a[k].get("position", 0))):
        for kb in free:
            if kb[0] == ka[0] and _skeleton(b[kb]["sentence"]) == _skeleton(a[ka]["sentence"]):
                pairs.append((ka, kb))
                free.remove(kb)
                break
    return pairs


def diff(old: dict, new: dict) -> list[Row]:
    """Rows for every changed number, added or removed page and quote, changed figure, and render error."""
    a, b = _keyed(old["records"]), _keyed(new["records"])
    old_pages = {k[0] for k in a} | {e["page"] for e in old.get("errors", []) if e["page"]}
    new_pages = {k[0] for k in b} | {e["page"] for e in new.get("errors", []) if e["page"]}
    rows: list[Row] = []
    for key in sorted(a.keys() & b.keys()):
        ra, rb = a[key], b[key]
        if ra["text"] != rb["text"]:
            rows.append(Row("number", key[0], ra["text"], rb["text"], rb["sentence"], key[1], rb["label"]))
    for page in sorted(new_pages - old_pages):
        count = sum(1 for k in b if k[0] == page)
        rows.append(Row("page-added", page, "", f"{count} quoted numbers", "page did not exist or quoted no number at the ref"))
    for page in sorted(old_pages - new_pages):
        count = sum(1 for k in a if k[0] == page)
        rows.append(Row("page-removed", page, f"{count} quoted numbers", "", "page removed or quotes no number now"))
    shared = old_pages & new_pages
    gone = [k for k in a.keys() - b.keys() if k[0] in shared]
    came = [k for k in b.keys() - a.keys() if k[0] in shared]
    # A token rewritten in place (same sentence, another expression): one change, not a removal and an addition.
    for ka, kb in _rewritten(gone, came, a, b):
        gone.remove(ka)
        came.remove(kb)
        if a[ka]["text"] != b[kb]["text"]:
            rows.append(Row("number", kb[0], a[ka]["text"], b[kb]["text"], b[kb]["sentence"],
                            f"{ka[1]} -> {kb[1]}", b[kb]["label"]))
    order = {"number": 0, "page-added": 1, "page-removed": 2}
    rows.sort(key=lambda r: (order[r.kind], r.page, r.expr))  # stable: the table reads page by page
    for key in sorted(came):
        r = b[key]
        rows.append(Row("quote-added", key[0], "", r["text"], r["sentence"], key[1], r["label"]))
    for key in sorted(gone):
        r = a[key]
        rows.append(Row("quote-removed", key[0], r["text"], "", r["sentence"], key[1], r["label"]))
    rows += figure_rows(old.get("figures", {}), new.get("figures", {}))
    for side, result in (("at the ref", old), ("in the working tree", new)):
        for e in result.get("errors", []):
            rows.append(Row("error", e["page"], "", "", f"{side}: {e['error']}"))
    return rows


def release_commit(repo: Path, version: str) -> str:
    """The commit that recorded release `version` in the changelog: the tree whose numbers it published."""
    proc = _git(repo, "log", "--all", "--reverse", "--format=%H", f"-Sversion = \"{version}\"")
    commits = proc.stdout.split() if proc.returncode == 0 else []
    if not commits:
        raise ReleaseError(f"no commit records release {version} in the changelog (is the history shallow?)")
    return commits[0]


def numbers_diff(ref: str, repo: Path = ROOT) -> tuple[str, list[Row]]:
    """(commit, rows) for every quoted number of `repo`'s working tree that differs from `ref`."""
    repo = repo.resolve()
    commit = resolve(repo, ref)
    with tempfile.TemporaryDirectory(prefix="numbers-diff-") as tmp:
        scratch = Path(tmp)
        old_tree = export_tree(repo, commit, scratch / "ref")
        with ThreadPoolExecutor(max_workers=2) as pool:  # two interpreters side by side
            old_f = pool.submit(render, old_tree, scratch)
            new_f = pool.submit(render, repo, scratch)
            old, new = old_f.result(), new_f.result()
    return commit, diff(old, new)


# ---------------------------------------------------------------- report ------------------
def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def report(ref: str, commit: str, rows: list[Row]) -> str:
    """A plain-text report: changed numbers as a table, then pages, quotes, figures and errors."""
    numbers = [r for r in rows if r.kind == "number"]
    head = f"since {ref} ({commit[:12]})"
    if not rows:
        return f"no quoted number changed {head}"
    lines = []
    if numbers:
        lines.append(f"{len(numbers)} quoted number{'s' if len(numbers) != 1 else ''} changed {head}:")
        w_page = max(len("page"), *(len(r.page) for r in numbers))
        w_old = max(len("old"), *(len(r.old) for r in numbers))
        w_new = max(len("new"), *(len(r.new) for r in numbers))
        lines.append(f"  {'page':<{w_page}}  {'old':>{w_old}}  {'new':<{w_new}}  sentence")
        for r in numbers:
            lines.append(f"  {r.page:<{w_page}}  {r.old:>{w_old}}  {r.new:<{w_new}}  {_cut(r.sentence, 110)}")
    else:
        lines.append(f"no quoted number changed {head}")
    titles = {"page-added": "pages added", "page-removed": "pages removed", "quote-added": "numbers newly quoted",
              "quote-removed": "numbers no longer quoted", "figure": "figures whose data or text changed",
              "error": "pages that failed to render"}
    for kind, title in titles.items():
        group = [r for r in rows if r.kind == kind]
        if not group:
            continue
        lines.append("")
        lines.append(f"{title}:")
        for r in group:
            value = r.new or r.old
            lines.append("  " + "  ".join(x for x in (r.page, value, _cut(r.sentence, 100)) if x))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="numbers-diff", description=__doc__.splitlines()[0])
    parser.add_argument("ref", nargs="?", default="",
                        help="git ref to compare the working tree against (tag, branch, hash)")
    parser.add_argument("--json", action="store_true", help="print the rows as a JSON list")
    parser.add_argument("--repo", type=Path, default=ROOT, help="checkout to compare (default: this one)")
    parser.add_argument("--record", metavar="VERSION",
                        help="append a release entry with these changes to the changelog data file")
    parser.add_argument("--note", default="", help="the human note for --record: why the numbers changed")
    parser.add_argument("--unreleased", action="store_true",
                        help="write the changelog's unreleased section: the changes since the last recorded release")
    args = parser.parse_args(argv)
    if not args.ref and not args.unreleased:
        parser.error("give a git ref, or --unreleased")
    try:
        if args.unreleased:
            releases = changelog.load(args.repo.resolve() / changelog.DATA_RELPATH)
            if not releases:
                raise ReleaseError("no release is recorded yet, so nothing is unreleased")
            args.ref = release_commit(args.repo.resolve(), releases[-1].version)
        if args.record:

            data = args.repo.resolve() / changelog.DATA_RELPATH
            changelog.check_new_release(args.record, args.note, data)  # before the slow part
        commit, rows = numbers_diff(args.ref, args.repo)
        if args.record:
            path = changelog.record(args.record, args.note, args.ref, commit, rows, data)
            (args.repo.resolve() / changelog.UNRELEASED_RELPATH).unlink(missing_ok=True)  # released now
            print(f"recorded release {args.record} in {path}", file=sys.stderr)
        if args.unreleased:
            path = changelog.write_unreleased(releases[-1], commit, rows, args.repo.resolve() / changelog.UNRELEASED_RELPATH)
            print(f"wrote the unreleased section since v{releases[-1].version} to {path}", file=sys.stderr)
    except ReleaseError as err:
        print(f"numbers-diff: error: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=1, ensure_ascii=False))
    else:
        print(report(args.ref, commit, rows))
    return 1 if any(r.kind == "error" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
