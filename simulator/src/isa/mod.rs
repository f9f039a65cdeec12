//! Machine descriptions.
