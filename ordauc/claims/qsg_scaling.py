"""Claims (being written)."""
