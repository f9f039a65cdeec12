//! cargo-fuzz target `asm`: `ssalab::fuzz::inputs::asm` must return (no panic, hang or
//! stack overflow) for every input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ssalab::fuzz::inputs::asm(data);
});
