"""MkDocs hooks: the figures render while the pages do (roofline_site.pending_figures says how)."""

from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import event_priority

from roofline_site import pending_figures, serve_state


@event_priority(50)  # after build_hook's (100), which forks the process that builds
def on_config(config, **kwargs):
    # `mkdocs build` starts the figures here, where gen-files would a second later: the workers draw
    # while this process reads the glossary, the page store and the files. `mkdocs serve` waits for
    # on_pre_build, which may load the package afresh after an edit (numbers_hook).
    if serve_state.command() == "build":  # (recorded by numbers_hook's on_startup)
        from roofline_site.gen import figures

        figures.begin()
    return config


@event_priority(-50)  # after gen-files' scripts started the figures
def on_files(files, config, **kwargs):
    return pending_figures.add_files(files, config)


@event_priority(90)  # before the number tokens render the page (after build_hook notes the page)
def on_page_markdown(markdown, **kwargs):
    pending_figures.raise_failed()
    return markdown


@event_priority(100)  # first: every other hook sees the page as it will be written
def on_post_page(output, page, config, **kwargs):
    # (a page whose figures are still rendering is written as it is, and its sizes filled in by publish)
    return pending_figures.sizes_in(output, page.file.src_uri, Path(config["site_dir"]) / page.file.dest_path)


@event_priority(50)  # before the build hook swaps the finished site in
def on_post_build(config, **kwargs):
    pending_figures.publish()


def on_build_error(error, **kwargs):
    pending_figures.abandon()
