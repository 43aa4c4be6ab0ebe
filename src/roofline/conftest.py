"""Docstring examples run under pytest (`--doctest-modules`) with the package's public face in scope.

Here, inside the package, so pytest imports it as `roofline.conftest`, never as a second top-level
`conftest` beside tests/conftest.py; the wheel leaves it out (pyproject.toml).

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
