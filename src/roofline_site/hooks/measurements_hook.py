"""MkDocs hooks for measurement files: check measurements/*.json before anything is drawn.

A malformed or foreign file stops the build with one sentence naming the file and the
problem (no traceback), before the figure script would trip over it. `mkdocs serve`
also watches the folder, so a file dropped there redraws the figure.
"""

from __future__ import annotations

from mkdocs.exceptions import PluginError


def on_pre_build(config, **kwargs):
    from roofline.registry.machine import MeasurementError, example_measurement, site_measurements

    try:
        example_measurement()
        site_measurements()
    except MeasurementError as err:
        raise PluginError(f"measurement file: {err}") from None


def on_serve(server, config, builder, **kwargs):
    from roofline.registry.machine import measurements_dir

    server.watch(str(measurements_dir()))
    return server
