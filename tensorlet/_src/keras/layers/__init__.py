"""Keras layers (public names are exported from the family modules; this package stays import-free)."""
