"""Shared test support: hand-derived values, exercise checks, the site build and browser set-up."""
