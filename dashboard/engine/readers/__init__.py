"""Trace readers: every format becomes one canonical Trace (see canonical.build_trace)."""
