"""gcp provider (placeholder until its issue lands)."""
