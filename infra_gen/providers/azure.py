"""azure provider (placeholder until its issue lands)."""
