//! Copy coalescing outside register allocation: the "C" pass of Rastello, de Ferrière and
//! Guillon (LIP RR-2005-34, §5), run after an out-of-SSA translation on allocation-form code.
//!
//! * [`aggressive`]: repeated aggressive coalescing of the remaining copies, ignoring
//!   colourability (`C`: each pinned vreg its own class);
//! * [`chaitin`]: the same with one precoloured node per physical register (`Cc`, the
//!   paper's Chaitin-style coalescer).

pub mod aggressive;
pub mod chaitin;
