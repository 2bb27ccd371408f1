"""kvscope's benchmarks (`make bench`, BENCHMARKS.md)."""

# NOTE: first, so numpy starts with the settings kvscope's own commands give it (dashboard/__init__.py);
# the benchmark modules import numpy before dashboard.
import dashboard  # noqa: F401
