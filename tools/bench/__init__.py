"""Benchmarks: each measures one thing and prints figures; none asserts. Shared helpers
live in `tools.bench.common`; a bench never imports another bench."""
