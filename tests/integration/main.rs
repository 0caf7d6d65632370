//! Integration tests: one binary, files named by behaviour.
