//! Unit tests of the aggressive coalescer on small allocation-form functions (text form):
//! behaviour under `mir::interp` is unchanged, the result verifies in allocation form, and
//! the copies left are those derived by hand in each comment.

use super::*;
use crate::mir::interp::run_module;
use crate::mir::parse::parse_module;
use crate::mir::verify::{verify_module, Form};

fn copies(f: &Function) -> usize {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.flags.contains(InstFlags::COPY))
        .count()
}

/// Coalesces every function of `src`; returns the copies left in `name` and its stats.
fn check(src: &str, name: &str) -> (usize, Stats) {
    let mut m = parse_module(src).unwrap_or_else(|e| panic!("{e}"));
    assert!(verify_module(&m, Form::Allocation).is_empty());
    let before = run_module(&m, "main", &Default::default()).expect("runs");
    let mut out = None;
    for f in &mut m.functions {
        let s = coalesce(f).unwrap_or_else(|e| panic!("{e}"));
        if f.name == name {
            out = Some((copies(f), s));
        }
    }
    let errs = verify_module(&m, Form::Allocation);
    assert!(errs.is_empty(), "{errs:#?}\n{m}");
    let after = run_module(&m, "main", &Default::default()).expect("runs");
    assert_eq!(
        (after.output, after.exit_code),
        (before.output, before.exit_code)
    );
    out.expect("function")
}

/// `%2 := %1` and `%3 := %2`, unpinned and never live with different values: both copies
/// coalesce; `%6 := %5` (argument of the syscall, pinned `$r16`) takes %5; `%4 := %3` (the
/// pinned `.output` use) cannot take %3's class, see below.
#[test]
fn copy_chain_disappears() {
    let src = "
mfunc @main st231 {
b0:
  .input
  %1:r = add $r0, #20
  %2:r = copy %1 !copy
  %3:r = copy %2 !copy
  %5:r = add %3, #1
  %6:r^$r16 = copy %5 !copy
  syscall %6^$r16, #2
  %4:r^$r16 = copy %3 !copy
  .output %4^$r16
  return
}
";
    let (n, s) = check(src, "main");
    // %2, %3 merge with %1; %6 (pinned $r16, live only up to the syscall) takes %5; %4
    // (pinned $r16) would take %1's class, but that class is live at the syscall where
    // %6 is pinned to $r16 too: the two would need $r16 at once → blocked. 1 copy left.
    assert_eq!(n, 1);
    assert_eq!(s.blocked_pins, 1);
}

/// `%2 := %1` then `%1 = %1 + 1` while %2 is still used: %1 is written while %2 is live,
/// they interfere, the copy stays (1 copy).
#[test]
fn interfering_copy_stays() {
    let src = "
mfunc @main st231 {
b0:
  .input
  %1:r = add $r0, #5
  %2:r = copy %1 !copy
  %1:r = add %1, #1
  %3:r = add %1, %2
  %4:r^$r16 = copy %3 !copy
  .output %4^$r16
  return
}
";
    let (n, s) = check(src, "main");
    // %4 := %3 coalesces (exit code 11 unchanged); %2 := %1 is blocked by interference.
    assert_eq!(n, 1);
    assert_eq!(s.blocked_interference, 1);
}

/// A value copied into the argument register `$r16` of a call but also live across the call
/// (which clobbers `$r16`) must not be precoloured `$r16`: the copy stays.
#[test]
fn no_pin_across_a_clobber() {
    let src = "
mfunc @id st231 {
b0:
  %0:r^$r16 = .input
  %1:r = copy %0 !copy
  %2:r^$r16 = copy %1 !copy
  .output %2^$r16
  return
}

mfunc @main st231 {
b0:
  .input
  %1:r = add $r0, #7
  %2:r^$r16 = copy %1 !copy
  %3:r^$r16 = call %2^$r16, fn @id
  %4:r = copy %3 !copy
  %5:r = add %4, %1
  %6:r^$r16 = copy %5 !copy
  .output %6^$r16
  return
}
";
    // @main: `%2 := %1` blocked (%1 is live across the call, which clobbers $r16);
    // `%4 := %3` merges %4 into the $r16-pinned %3 (%4 crosses no call and no other
    // $r16-pinned vreg is live with it); `%6 := %5` merges %5 into %6 likewise. Left: 1.
    // @id: %1 merges into the pinned %0, then %2 (same pin $r16, no interference): 0 left.
    let (n, _) = check(src, "main");
    assert_eq!(n, 1);
    assert_eq!(check(src, "id").0, 0);
}

/// The pinned-neighbour counts answer the merge pin test as a scan of both neighbour sets
/// would, through random edges and merges (pinned and unpinned classes, interfering merges
/// as the Chaitin variant's register nodes do).
#[test]
fn pinned_neighbour_counts_agree_with_a_scan_of_the_neighbours() {
    use crate::mir::RegClass;
    use crate::ssa::random::Rng;
    let regs = [PReg::new(RegClass::R, 3), PReg::new(RegClass::R, 7)];
    for seed in 0..200u64 {
        let mut rng = Rng::new(seed);
        let n = 12usize;
        let mut g = Graph {
            parent: (0..n as u32).collect(),
            adj: vec![FastSet::default(); n],
            pin: (0..n)
                .map(|_| match rng.below(4) {
                    0 => Some(regs[0]),
                    1 => Some(regs[1]),
                    _ => None,
                })
                .collect(),
            forbidden: vec![0; n],
            pinned_nbrs: FastMap::default(),
        };
        for _ in 0..3 * n {
            let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
            g.add_edge(a, b);
        }
        for _ in 0..2 * n {
            let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
            let (a, b) = (g.find(a), g.find(b));
            if a != b {
                g.merge(a, b);
            }
            for x in 0..n as u32 {
                let y = (x + 1) % n as u32;
                let (x, y) = (g.find(x), g.find(y));
                for r in regs {
                    let scan = g.adj[x as usize]
                        .iter()
                        .chain(&g.adj[y as usize])
                        .any(|&m| g.pin[m as usize] == Some(r));
                    assert_eq!(g.neighbour_pinned(x, y, r), scan, "seed {seed}");
                }
            }
        }
    }
}
