"""Migration scripts, one per schema revision, oldest first."""
