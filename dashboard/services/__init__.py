"""services layer (see DESIGN.md)."""
