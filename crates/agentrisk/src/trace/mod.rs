//! Trace parsing (spec 1.1–1.2), the Python-compatible JSON reader, and
//! flattening of event content to searchable text (spec 1.4).
