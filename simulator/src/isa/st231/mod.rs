//! ST231 machine description (in progress).
