"""The pure scoring engine: estimates and rankings from plain typed values (no web, no database)."""
