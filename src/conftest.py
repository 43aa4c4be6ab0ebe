"""Docstring examples run under pytest (`--doctest-modules`) with the package's public face in scope.

A module's own names win: `parallel.decode`'s example means that module's `decode`.
"""

import pytest


@pytest.fixture(autouse=True)
def _public_face(request):
    test = getattr(request.node, "dtest", None)
    if test is not None:
        import roofline

        for name in roofline.__all__:
            test.globs.setdefault(name, getattr(roofline, name))

# gen-files scripts generate pages when imported: they run inside a build, never as modules here.
collect_ignore_glob = ["roofline_site/gen/*.py"]
