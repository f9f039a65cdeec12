//! cargo-fuzz target `large_sizes`: `ssalab::fuzz::inputs::large_sizes` (small inputs
//! expanded into LAI and assembly files of up to 65,536 lines with huge `.space`
//! directives and constants) must return (no panic, hang, stack overflow or huge allocation)
//! for every input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ssalab::fuzz::inputs::large_sizes(data);
});
