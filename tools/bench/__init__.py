"""Development-time benchmarks that print figures (never imported at run time)."""
