//! The α3 scorer (ALPHA3.md): per-episode pillars and run-level aggregation.
