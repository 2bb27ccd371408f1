"""engine layer (see DESIGN.md)."""
