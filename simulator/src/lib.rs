pub mod isa;
