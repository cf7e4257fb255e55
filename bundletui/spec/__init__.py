"""spec layer."""
