//! Unit tests of `pinning_phi` on small hand-written functions (`mir::parse` text): the
//! pinning it produces, the copies out-of-pinned-SSA then needs, and that the result is a
//! correct pinning that runs.

use super::*;
use crate::mir::parse::parse_module;
use crate::out_of_ssa::fixtures::class3;
use crate::out_of_ssa::leung_george::{pinning_abi, translate, Phases};

fn func(text: &str) -> Function {
    let m = parse_module(text).expect("test input parses");
    m.functions.into_iter().next().expect("one function")
}

/// pinning_ABI then pinning_phi; returns the pinning and the counts.
fn pin(f: &Function, variant: PhiVariant) -> (Pinning, Counts) {
    let live = Liveness::compute(f);
    let mut p = Pinning::new(f);
    pinning_abi(f, &live, &mut p);
    let c = pinning_phi_counts(f, &live, &mut p, variant).expect("pinning_phi runs");
    assert!(
        check_pinning(f, &p).is_empty(),
        "{:?}",
        check_pinning(f, &p)
    );
    (p, c)
}

/// Copies emitted by out-of-pinned-SSA after pinning_ABI + pinning_phi(variant).
fn copies(f: &Function, variant: PhiVariant) -> u64 {
    let mut g = f.clone();
    let (s, _) = translate(
        &mut g,
        Phases {
            cssa: false,
            abi: true,
            phi: Some(variant),
        },
    )
    .expect("translates");
    let errs = crate::mir::verify::verify_function(&g, crate::mir::verify::Form::Allocation);
    assert!(errs.is_empty(), "{errs:?}\n{g}");
    s.copies
}

/// Rastello et al. Fig. 6: x = phi(x1, x2) with x1 live after the phi.
const FIG6: &str = "mfunc @fig6 st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:b = cmpne %1, #0
  br %2, b2
  goto b1
b1:
  %3:r = add %0, #5
  goto b2
b2:
  %4:r = phi [b0: %0], [b1: %3]
  %5:r = add %4, %0
  .output %5^$r16
  return
}";

#[test]
fn fig6_pins_only_the_argument_that_does_not_interfere() {
    // x1 = %0 is live after the phi (used by %5): pinning it to x = %4 would kill it
    // (Fig. 6(b)); x2 = %3 dies at the phi: pinned to x (Fig. 6(c)).
    let f = func(FIG6);
    for v in [
        PhiVariant::Base,
        PhiVariant::Depth,
        PhiVariant::Opt,
        PhiVariant::Pess,
    ] {
        let (p, c) = pin(&f, v);
        assert_eq!(p.res(VReg(3)), p.res(VReg(4)), "{v:?}");
        assert_ne!(p.res(VReg(0)), p.res(VReg(4)), "{v:?}");
        assert_eq!(c.merged, 1, "{v:?}");
        assert_eq!(c.check_fallbacks, 0);
        // The one move of Fig. 6(c): R(x) := x1 at the end of b0.
        assert_eq!(copies(&f, v), 1, "{v:?}");
    }
}

/// A loop: i = phi(i0, i1), i1 = i + 1; the exit uses i1 only: everything coalesces.
const LOOP: &str = "mfunc @l st231 {
b0:
  %0:r^$r16 = .input
  goto b1
b1:
  %1:r = phi [b0: %0], [b1: %2]
  %2:r = add %1, #1
  %3:b = cmplt %2, #10
  br %3, b1
  goto b2
b2:
  .output %2^$r16
  return
}";

#[test]
fn loop_counter_is_fully_coalesced() {
    let f = func(LOOP);
    let (p, c) = pin(&f, PhiVariant::Base);
    assert_eq!(p.res(VReg(1)), p.res(VReg(2)));
    // %0 is in $r16 (.input) and %2 joins $r16 at `.output` (its last use): the whole
    // web ends in $r16, the physical reference resource of its component.
    assert_eq!(p.res(VReg(0)), p.res(VReg(1)));
    // One union: %0 and %2 already share $r16 (pinning_ABI), the phi joins them.
    assert_eq!(c.merged, 1);
    assert_eq!(copies(&f, PhiVariant::Base), 0);
}

/// The lost-copy shape: x2 = phi(x1, x3), x3 = x2 + 1, x2 used after the loop. Pinning x3
/// to x2 would kill x2 at the back edge (Class 2): not done.
const LOST_COPY: &str = "mfunc @lc st231 {
b0:
  .input
  %0:r = add $r0, #1
  goto b1
b1:
  %1:r = phi [b0: %0], [b1: %2]
  %2:r = add %1, #1
  %3:b = cmplt %2, #10
  br %3, b1
  goto b2
b2:
  .output %1^$r16
  return
}";

#[test]
fn lost_copy_argument_joins_the_phi_its_own_copy_already_kills() {
    let f = func(LOST_COPY);
    let (p, c) = pin(&f, PhiVariant::Base);
    // x2 (%1) is live at the end of b1, whose argument is x3 (%2): x2 is killed by its own
    // phi (Class 2 with b = a), so it needs a repair whatever happens, and pinning x3 with
    // it adds no new kill. Every edge is kept: x1, x2, x3 share one resource.
    assert_eq!(p.res(VReg(1)), p.res(VReg(2)));
    assert_eq!(p.res(VReg(0)), p.res(VReg(1)));
    assert_eq!(c.initially_pruned, 0);
    // Without pinning_phi: R(x2) := x1 at the end of b0, R(x2) := x3 at the end of b1,
    // x2 is killed by that write while live out of the loop (repair x2' := R(x2) after
    // the phi), and `.output` copies x2' into $r16: 4. pinning_phi saves both phi moves
    // (x1 and x3 are defined in R(x2)); the repair and the output copy remain: 2, the
    // minimum for the lost copy (x2 and x3 are both live at the end of b1).
    let mut g = f.clone();
    let base = translate(
        &mut g,
        Phases {
            cssa: false,
            abi: true,
            phi: None,
        },
    )
    .unwrap()
    .0;
    assert_eq!(base.copies, 4, "{g}");
    assert_eq!(copies(&f, PhiVariant::Base), 2);
}

/// Two phis of one block swapping two values around a loop (the swap problem): the phi
/// results strongly interfere and each argument is the other phi's result.
const SWAP: &str = "mfunc @sw st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  goto b1
b1:
  %2:r = phi [b0: %0], [b1: %3]
  %3:r = phi [b0: %1], [b1: %2]
  %4:r = add %2, #1
  %5:b = cmplt %4, %3
  br %5, b1
  goto b2
b2:
  %6:r = sub %2, %3
  .output %6^$r16
  return
}";

#[test]
fn swap_phis_stay_apart_and_the_result_is_correct() {
    let f = func(SWAP);
    let (p, _) = pin(&f, PhiVariant::Base);
    assert_ne!(p.res(VReg(2)), p.res(VReg(3)));
    copies(&f, PhiVariant::Base);
}

#[test]
fn depth_variant_only_takes_arguments_defined_at_the_current_depth() {
    // In LOST_COPY, x1 = %0 is defined at depth 0 and x3 = %2 at depth 1. At depth 1 the
    // header's graph has the one edge (x2, x3), kept (x2 is already killed by its own phi);
    // at depth 0 the edge (x2, x1), merged too.
    let f = func(LOST_COPY);
    let (p, c) = pin(&f, PhiVariant::Depth);
    assert_eq!(p.res(VReg(0)), p.res(VReg(1)));
    assert_eq!(p.res(VReg(2)), p.res(VReg(1)));
    assert_eq!(c.blocks, 2, "the header is visited once per depth level");
    assert_eq!(c.affinity_edges, 2);
    assert_eq!(c.initially_pruned, 0);
}

/// The paper-figure files of this pass (`compiler/tests/lai/fig*.lai`): every `# moves:`
/// line is checked here too (the lead's `tests/lai.rs` checks them on every configuration
/// with the simulator), and the out-of-SSA result of each named configuration must print
/// the file's `# expected:` output under the MIR interpreter.
const FIGURES: &[(&str, &str)] = &[
    (
        "fig6_phi_args_st231.lai",
        include_str!("../../../tests/lai/fig6_phi_args_st231.lai"),
    ),
    (
        "fig6_phi_args_st120.lai",
        include_str!("../../../tests/lai/fig6_phi_args_st120.lai"),
    ),
    (
        "fig10_joint_st231.lai",
        include_str!("../../../tests/lai/fig10_joint_st231.lai"),
    ),
    (
        "fig10_joint_st120.lai",
        include_str!("../../../tests/lai/fig10_joint_st120.lai"),
    ),
];

/// `# moves: CONFIG @f = N` lines of a file.
fn moves_lines(text: &str) -> Vec<(String, String, u64)> {
    let mut out = Vec::new();
    for l in text.lines() {
        let Some(rest) = l.trim().strip_prefix('#').map(str::trim) else {
            continue;
        };
        let Some(rest) = rest.strip_prefix("moves:") else {
            continue;
        };
        let mut it = rest.split_whitespace();
        let (Some(config), Some(func), Some("="), Some(n)) =
            (it.next(), it.next(), it.next(), it.next())
        else {
            panic!("bad moves line {l:?}");
        };
        let func = func.trim_start_matches('@').to_string();
        out.push((config.to_string(), func, n.parse().expect("a count")));
    }
    out
}

fn expected_output(text: &str) -> String {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix('#')?.trim().strip_prefix("expected:"))
        .expect("an expected line");
    line.trim().replace("\\n", "\n")
}

/// Runs `config`'s passes up to its last allocation-form pass on every function.
fn run_to_allocation(m: &crate::mir::Module, config: &str) -> crate::mir::Module {
    use crate::backend::{stat_passes, BackendConfig, MIR_PASSES};
    let c = BackendConfig::named(config, m.target).expect("a known configuration");
    let (_, last, _) = stat_passes(&c);
    let last = last.expect("an allocation-form pass");
    let mut m = m.clone();
    for f in &mut m.functions {
        for name in &c.passes {
            let pass = MIR_PASSES.iter().find(|p| p.name == name).expect("a pass");
            (pass.run)(f, &c).unwrap_or_else(|e| panic!("{config} {name} @{}: {e}", f.name));
            if name == last {
                break;
            }
        }
    }
    m
}

/// Copies whose source and destination differ.
fn moves_in(f: &Function) -> u64 {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.flags.contains(crate::mir::InstFlags::COPY))
        .map(|i| {
            i.defs
                .iter()
                .zip(&i.uses)
                .filter(|(d, u)| d.reg != u.reg)
                .count() as u64
        })
        .sum()
}

#[test]
fn figure_files_move_counts_and_outputs() {
    let mut failures = Vec::new();
    for (name, text) in FIGURES {
        let m = crate::lai::parse_lai(name, text, None).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let want = expected_output(text);
        let lines = moves_lines(text);
        assert!(!lines.is_empty(), "{name}: no moves lines");
        for (config, func, n) in lines {
            let out = run_to_allocation(&m, &config);
            let got = crate::mir::interp::run_module(&out, "main", &Default::default())
                .map(|o| String::from_utf8_lossy(&o.output).to_string());
            if got.as_deref() != Ok(want.as_str()) {
                failures.push(format!("{name} {config}: output {got:?}, want {want:?}"));
            }
            let f = out
                .functions
                .iter()
                .find(|f| f.name == func)
                .expect("the function");
            let k = moves_in(f);
            if k != n {
                failures.push(format!(
                    "{name} {config} @{func}: {k} moves, file says {n}\n{f}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn variable_kills_under_the_three_interference_definitions() {
    // LOOP: %1 = phi (b1), %2 = add %1, #1 in b1, %1 dead after it.
    let f = func(LOOP);
    let live = Liveness::compute(&f);
    let facts = interference::Facts::compute(&f, &live);
    let kills = |v| facts.kills(&live, v, VReg(2), VReg(1));
    // Exact (Algorithm 2): %1 is not live after %2's definition.
    assert!(!kills(PhiVariant::Base));
    // Optimistic (Algorithm 4): %1 is not live out of b1.
    assert!(!kills(PhiVariant::Opt));
    // Pessimistic (Algorithm 4): defined in the same block counts as a kill.
    assert!(kills(PhiVariant::Pess));
    // Class 2: the phi %1 writes its resource at the end of b1 with %2; %2 is live there
    // only as that argument, so it is not killed; %0 (the other argument) is dead there.
    assert!(!facts.kills(&live, PhiVariant::Base, VReg(1), VReg(2)));
    // Case 1 of Fig. 5 as a strong interference: the two defs of `.input` in SWAP.
    let g = func(SWAP);
    let lg = Liveness::compute(&g);
    let fg = interference::Facts::compute(&g, &lg);
    assert!(fg.strongly_interfere(VReg(0), VReg(1)));
    // Class 4: two phis of one block.
    assert!(fg.strongly_interfere(VReg(2), VReg(3)));
}

#[test]
fn pessimistic_variant_pins_less_than_the_base() {
    // In LOOP, Pess sees %2 (defined in the phi's block) as killing %1: the back-edge
    // affinity is pruned and the loop keeps a move.
    let f = func(LOOP);
    let (p, _) = pin(&f, PhiVariant::Pess);
    assert_ne!(p.res(VReg(1)), p.res(VReg(2)));
    assert!(copies(&f, PhiVariant::Pess) > copies(&f, PhiVariant::Base));
}

#[test]
fn malformed_liveness_is_an_error_not_a_panic() {
    // Liveness of another function (one block instead of three).
    let f = func(LOOP);
    let other = func(
        "mfunc @one st231 {
b0:
  .input
  return
}",
    );
    let live = Liveness::compute(&other);
    let mut p = Pinning::new(&f);
    let e = pinning_phi(&f, &live, &mut p, PhiVariant::Base).unwrap_err();
    assert!(e.contains("@l"), "{e}");
}

#[test]
fn class3_identical_arguments_do_not_strongly_interfere() {
    let f = func(&class3("%1"));
    let live = Liveness::compute(&f);
    let facts = interference::Facts::compute(&f, &live);
    assert!(!facts.strongly_interfere(VReg(8), VReg(4)));
    assert!(!facts.strongly_interfere(VReg(4), VReg(8)));
    // Class 4 still holds in one block, and different arguments on a common predecessor
    // are Class 3: %8 against the other phi of b1, %3 (arguments %0 / %1 from b0).
    assert!(facts.strongly_interfere(VReg(3), VReg(4)));
    assert!(facts.strongly_interfere(VReg(8), VReg(3)));
}

#[test]
fn class3_identical_arguments_let_the_exit_phi_join_the_header_phi() {
    // Derivation (as in tests/lai/class3_identical_args_st231.lai): block b1 first merges
    // {$r16, %0, %9, %3} (%3-%5 pruned by Class 1: %3 is read after %5's definition) and
    // S = {%4, %1, %6}; block b2 has the one edge %8-S (multiplicity 2), no interference:
    // %8 joins S. The only copy left is $r16 := %5 at the end of b1. (Not `Opt`: its
    // Class 1 test only looks at live-out, so it merges %5 with %3 and repairs %3.)
    let f = func(&class3("%1"));
    for v in [PhiVariant::Base, PhiVariant::Depth] {
        let (p, c) = pin(&f, v);
        let s = p.res(VReg(4));
        for x in [1, 6, 8] {
            assert_eq!(p.res(VReg(x)), s, "{v:?}: %{x}");
        }
        assert_ne!(p.res(VReg(5)), p.res(VReg(3)), "{v:?}");
        assert_eq!(c.guard_rejections, 0, "{v:?}");
        assert_eq!(copies(&f, v), 1, "{v:?}");
    }
}
