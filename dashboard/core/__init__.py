"""core layer (see DESIGN.md)."""
