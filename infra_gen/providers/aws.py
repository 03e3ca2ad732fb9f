"""aws provider (placeholder until its issue lands)."""
