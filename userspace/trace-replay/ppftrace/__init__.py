"""ppf trace recorder and reader (see docs/trace-format.md)."""
