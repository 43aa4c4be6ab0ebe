"""The sourced facts: hardware, models and published measurements, loaded from data/*.toml."""
