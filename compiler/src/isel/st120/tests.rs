//! Unit tests of ST120 instruction selection on small IR functions.

use super::*;
