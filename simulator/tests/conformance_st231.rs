//! Outside-examiner conformance tests of the ST231 simulator: programs written from isa.md
//! §A and the README only (`tests/programs/conformance/st231/*.s`), every expected figure
//! derived by hand in the program's comments before it was run. One test per program, so a
//! disagreement with the simulator can be marked `#[ignore = "simulator bug: ..."]` alone.
//! Also: illegal encodings in hand-made objects, and assembly syntax variants.

#[path = "programs/conformance/harness.rs"]
mod harness;

use simulator::asm::assemble;
use simulator::machine::{RunOptions, TrapKind};
use simulator::object::Object;
use simulator::sim::run;
use simulator::Target;

fn check(file: &str) {
    let errors = harness::check(Target::St231, "st231", file, |obj, opts| {
        (run(obj, opts), harness::NoState)
    });
    assert!(errors.is_empty(), "{file}:\n{}", errors.join("\n"));
}

macro_rules! programs {
    ($($(#[$attr:meta])* $name:ident,)*) => {
        $(
            #[test]
            $(#[$attr])*
            fn $name() {
                check(concat!(stringify!($name), ".s"));
            }
        )*
        /// Every program in the directory has its test above (none silently skipped).
        #[test]
        fn every_program_has_a_test() {
            let listed = [$(concat!(stringify!($name), ".s")),*];
            for p in harness::programs("st231") {
                assert!(listed.contains(&p.as_str()), "{p} has no test");
            }
        }
    };
}

programs! {
    arith,
    logic_shift,
    ext_cmp,
    mul,
    branch_select,
    memory,
    latency,
    recursion,
}
