"""Errors a user can cause. Each carries one sentence that says what and where."""


class RooflineError(Exception):
    """Base class: the CLI prints `str(err)` on one line and exits with status 2."""


class SpecError(RooflineError):
    """A spec file (hardware.toml, models.toml, measurements.toml) is malformed."""


class InputError(RooflineError):
    """A bad argument: unknown id, non-positive size, unknown dtype, ..."""
