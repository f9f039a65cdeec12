//! Copy coalescing outside register allocation: the "C" pass of Rastello, de Ferrière and
//! Guillon (LIP RR-2005-34, §5), run after an out-of-SSA translation on allocation-form code.
//!
//! * [`aggressive`]: repeated aggressive coalescing of the remaining copies, ignoring
//!   colourability.

pub mod aggressive;
