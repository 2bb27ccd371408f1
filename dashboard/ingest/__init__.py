"""ingest layer (see DESIGN.md)."""
