"""`roofline measure`: this machine's roofs, sustained memory bandwidth and large-GEMM FLOP/s.

One module per concern: probe.py (what it ran on), timing.py (warm-up, repetitions, progress bar),
kernels.py (STREAM copy and triad, numpy GEMM, torch GEMM on a GPU), runner.py (the budget and the
run), compare.py (measured against a device's spec), plot.py (the drawing). The record a run
writes, its schema and protocol, and reading it back live in `roofline.registry.machine`, where
the number tokens read them without importing this runner.
"""

from roofline.measure.compare import compare, spec_dtype
from roofline.measure.plot import MEASURED_COLOURS, draw_rooflines, plot_svg
from roofline.measure.runner import run
from roofline.measure.timing import Progress
from roofline.registry.machine import (DEFAULT_BUDGET_S, EXAMPLE_FILE, QUICK_BUDGET_S, SCHEMA, Measurement,
                                       MeasurementError, Rate, default_out_path, example_measurement, load,
                                       load_folder, measurements_dir, save, site_measurements, validate)

__all__ = ["DEFAULT_BUDGET_S", "EXAMPLE_FILE", "MEASURED_COLOURS", "QUICK_BUDGET_S", "SCHEMA", "Measurement",
           "MeasurementError", "Progress", "Rate", "compare", "default_out_path", "draw_rooflines",
           "example_measurement", "load", "load_folder", "measurements_dir", "plot_svg", "run", "save",
           "site_measurements", "spec_dtype", "validate"]
