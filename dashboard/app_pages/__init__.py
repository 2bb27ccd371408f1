"""app_pages layer (see DESIGN.md)."""
