//! ssalab compiler.
