"""MkDocs hook: the built site's scripts and stylesheets made small, once every page is final.

- The calculator's step mode is bundled into one script (html/bundle.py).
- The scripts that run whole as a page starts are marked to compile eagerly (html/compile_hints.py).
- Material's stylesheets are purged of every rule no page or script can match, ours minified, and
  every page's indentation collapsed (html/slim.py).

It runs after the figures' publish (figures_hook), which fills in the sizes of pages written while
their figures rendered: the purge reads every page as it will be served.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from roofline_site import derived
from roofline_site.html.bundle import BundleError, write_bundle
from roofline_site.html.compile_hints import hint_material_bundle, hint_scripts
from roofline_site.html.slim import slim_site
from roofline_site.paths import theme_file


def on_post_build(config, **kwargs):
    site_dir = Path(config["site_dir"])
    # The calculator's step mode in one file, before the scripts are minified (html/bundle.py).
    try:
        write_bundle(Path(config["docs_dir"]) / "assets" / "calculator", site_dir / "assets" / "calculator", "ui.js")
    except BundleError as err:
        raise PluginError(str(err)) from None
    # The scripts that run whole as a page starts compile eagerly: Material's bundle marked before the
    # purge, which reads every script, so it reads the bundle as a dirty rebuild keeps it (else the purge
    # missed its cache on the first edit under `mkdocs serve`); ours after minifying, which drops comments.
    hint_material_bundle(site_dir, config["theme"].dirs)
    slim_site(site_dir, _theme_stylesheets(config, site_dir), derived.cache_dir("slim"), _features_off(config))
    hint_scripts(site_dir, ("assets/calculator/ui.js",))


def _features_off(config) -> tuple[tuple[str, str], ...]:
    """Material's features this site leaves off, as slim.features_off takes them: their rules go from its
    stylesheet (1.5 KB gzip on every page). Each is read from the configuration, so turning one
    on brings its rules back."""
    off = []
    if "content.code.annotate" not in config["theme"].get("features", []):
        off.append(("md-annotation", "annotate"))  # a code block of class annotate still gets them
    if not (config.get("extra") or {}).get("version"):
        off.append(("md-version", ""))  # the version selector (mike)
    if not any(name.endswith("tags") for name in config["plugins"]):
        off.append(("md-tag", ""))
    source = Path(config["theme"].custom_dir or "") / "partials" / "source.html"
    if source.is_file() and 'data-md-component="source"' not in source.read_text(encoding="utf-8"):
        off.append(("md-source__fact", ""))  # our repository link fetches no stars or forks
    # A page's status (new, deprecated): the templates write it from the page's front matter, and the bundle
    # only looks for it, so a page that has one keeps its rules (its class is in the page).
    off.append(("md-status", ""))
    return tuple(off)


def _theme_stylesheets(config, site_dir: Path) -> dict[str, Path]:
    """Material's stylesheets in the built site (assets/stylesheets/*.css) -> the theme's own copies."""
    found = {}
    for css in sorted((site_dir / "assets" / "stylesheets").glob("*.css")):
        rel = css.relative_to(site_dir).as_posix()
        source = theme_file(config["theme"].dirs, rel)
        if source is not None:
            found[rel] = source
    return found
