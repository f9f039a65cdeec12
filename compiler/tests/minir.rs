//! The Minir export (`compiler::mir::minir`, issue 29) on every program and LAI file of the
//! repository: the machine SSA of every C program of `programs/` and `compiler/tests/c` (both
//! targets, `-O0` and `-O2`, and on ST120 also without if-conversion and without
//! post-increment, the instruction-selection options that change the machine SSA), every
//! text-IR file test of `compiler/tests/filetests` (both targets, `-O0` and `-O2`), every LAI
//! file of `programs/lai` and `compiler/tests/lai` (but the `err_*` files, which must not
//! parse), and every machine-SSA file test of `compiler/tests/mir`. The back-end
//! configurations do not change the export: it is taken before their passes.
//!
//! Each export must
//! 1. pass [`lao_reader_rules`], the rules of the LAO's reader (every `_APPLY` with exactly
//!    one result, every phi with one use per `preds` entry, `preds` in entering-edge order,
//!    control last, SSA; on ST231 every dedicated register a kv3 `$r` register);
//! 2. be our function: the same blocks and edges (no block added), every phi's uses the
//!    phi's arguments in `preds` order, every pin present as its dedicated-register copy
//!    (a pinned phi result as the copies ending its predecessors and the copy after the
//!    phis), every operation present;
//! 3. survive the round trip: re-imported (`minir::import`), the function verifies in SSA
//!    form and Sreedhar III (`S3`'s out-of-SSA pass) leaves exactly as many copies in it as
//!    in the original with its phi uses in `preds` order. The census of the functions where
//!    that order changes our own `S3` count (Sreedhar III breaks ties by operand order) is
//!    printed (`--nocapture`) and documented in `docs/minir.md`.

mod common;

use compiler::backend::{add_runtime, measure, BackendConfig, MIR_PASSES};
use compiler::front::{compile_file, FrontOptions};
use compiler::isel::{select_module, IselOptions};
use compiler::lai::parse_lai_full;
use compiler::mir::minir::check::lao_reader_rules;
use compiler::mir::minir::import::module_from_minir;
use compiler::mir::minir::read::{parse, MFunction};
use compiler::mir::minir::{minir_block, minir_reg, module_to_minir};
use compiler::mir::verify::{verify_function, verify_module, Form};
use compiler::mir::{BlockId, Function, Imm, Module, Opc, Pin, Reg};
use compiler::pipeline::{mid_level_passes, run_passes, OptLevel};
use simulator::isa::Target;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One exported module: where it comes from, and the LAI `.freq`s.
struct Case {
    name: String,
    module: Module,
    freqs: Option<Vec<Vec<Option<u64>>>>,
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

/// The instruction-selection variants of a target.
fn isel_variants(t: Target) -> Vec<(&'static str, IselOptions)> {
    let all = IselOptions::default();
    match t {
        Target::St231 => vec![("", all)],
        Target::St120 => vec![
            ("", all.clone()),
            (
                " --no-if-convert",
                IselOptions {
                    if_convert: false,
                    ..all.clone()
                },
            ),
            (
                " --no-post-increment",
                IselOptions {
                    post_increment: false,
                    ..all
                },
            ),
        ],
    }
}

/// C and text IR through the front end, the mid-level pipeline, the runtime and isel.
fn from_source(p: &Path, cases: &mut Vec<Case>, failures: &mut Vec<String>) {
    for opt in [OptLevel::O0, OptLevel::O2] {
        let ir = if p.extension().is_some_and(|x| x == "ir") {
            let text = std::fs::read_to_string(p).unwrap();
            compiler::ir::parse_module(&text).map_err(|e| e.to_string())
        } else {
            let c = compile_file(p, &FrontOptions::default());
            c.module.ok_or_else(|| c.diagnostics.render())
        };
        let mut ir = match ir {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: {e}", p.display()));
                return;
            }
        };
        let built = run_passes(&mut ir, &mid_level_passes(opt), &mut |_, _| Ok(()))
            .map_err(|e| e.to_string())
            .and_then(|_| add_runtime(&mut ir, opt));
        if let Err(e) = built {
            failures.push(format!("{} {opt:?}: {e}", p.display()));
            return;
        }
        for t in [Target::St231, Target::St120] {
            for (label, isel) in isel_variants(t) {
                match select_module(&ir, t, &isel) {
                    Ok(m) => cases.push(Case {
                        name: format!("{} {t} {opt:?}{label}", p.display()),
                        module: m,
                        freqs: None,
                    }),
                    Err(e) => failures.push(format!("{} {t} {opt:?}{label}: {e:?}", p.display())),
                }
            }
        }
    }
}

/// Every module the test exports (see the file's doc), and what failed to build.
fn corpus() -> (Vec<Case>, Vec<String>) {
    let mut cases = Vec::new();
    let mut failures = Vec::new();
    let mut sources = common::c_programs();
    sources.extend(files("tests/c", "c"));
    sources.extend(files("tests/filetests", "ir"));
    for p in &sources {
        from_source(p, &mut cases, &mut failures);
    }
    let mut lai = files("../programs/lai", "lai");
    lai.extend(files("tests/lai", "lai"));
    for p in lai {
        if p.file_name().unwrap().to_string_lossy().starts_with("err_") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        match parse_lai_full(&p.display().to_string(), &text, None) {
            Ok(l) => cases.push(Case {
                name: p.display().to_string(),
                module: l.module,
                freqs: Some(l.freqs),
            }),
            Err(d) => failures.push(d.render()),
        }
    }
    for p in files("tests/mir", "mir") {
        // `#` lines are the file test's directives (as `tests/mir_filetests.rs` reads them).
        let text: String = std::fs::read_to_string(&p)
            .unwrap()
            .lines()
            .map(|l| {
                if l.trim_start().starts_with('#') {
                    "\n".to_string()
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        match compiler::mir::parse::parse_module(&text) {
            Ok(m) if verify_module(&m, Form::Ssa).is_empty() => cases.push(Case {
                name: p.display().to_string(),
                module: m,
                freqs: None,
            }),
            // Not machine SSA (a test of a later pass): nothing to export.
            Ok(_) => {}
            Err(e) => failures.push(format!("{}: {e}", p.display())),
        }
    }
    (cases, failures)
}

fn vtext(t: Target, r: Reg) -> String {
    match r {
        Reg::V(v) => format!("V{}", v.0),
        Reg::P(p) if t == Target::St231 && p.num == 0 && p.class == compiler::mir::RegClass::R => {
            "0".into()
        }
        Reg::P(p) => minir_reg(t, p),
    }
}

/// The export is our function: blocks and edges, phis, pins, operations.
fn check_against(f: &Function, y: &MFunction) -> Vec<String> {
    let t = f.target;
    let mut errs = Vec::new();
    let ctx = |b: usize| format!("@{} b{b}", f.name);
    if y.blocks.len() != f.blocks.len() {
        errs.push(format!(
            "@{}: {} Minir blocks for {} of ours",
            f.name,
            y.blocks.len(),
            f.blocks.len()
        ));
        return errs;
    }
    let preds = f.predecessors();
    let mut want_copies: Vec<Vec<(String, String)>> = vec![Vec::new(); f.blocks.len()];
    for b in f.block_ids() {
        let (k, yb) = (b.index(), &y.blocks[b.index()]);
        if yb.label != minir_block(b) {
            errs.push(format!("{}: label {}", ctx(k), yb.label));
        }
        let names = |v: &[BlockId]| v.iter().map(|&b| minir_block(b)).collect::<Vec<_>>();
        if yb.preds.as_deref() != Some(&names(&preds[k])[..]) {
            errs.push(format!("{}: preds {:?}", ctx(k), yb.preds));
        }
        let mut got = yb.succs.clone().unwrap_or_default();
        let mut ours = names(&f.block(b).successors());
        got.sort();
        ours.sort();
        if got != ours {
            errs.push(format!("{}: succs {got:?}, ours {ours:?}", ctx(k)));
        }
        let mut ops = yb.ops.iter();
        for inst in &f.block(b).insts {
            if inst.is_phi() {
                let args: HashMap<BlockId, String> = inst
                    .phi_blocks()
                    .iter()
                    .zip(&inst.uses)
                    .map(|(&p, u)| (p, vtext(t, u.reg)))
                    .collect();
                let x = vtext(t, inst.defs[0].reg);
                let want: Vec<String> = preds[k].iter().map(|p| args[p].clone()).collect();
                if let Some(Pin::Phys(r)) = inst.defs[0].pin {
                    // `_PHI [x'] = …` with a fresh x', then `$R = x'`, `x = $R`.
                    let reg = minir_reg(t, r);
                    let note = format!("pinned phi result {x}^{reg}");
                    let phi = yb.ops.iter().find(|o| {
                        o.op() == "_PHI"
                            && o.list("uses") == want
                            && o.notes().contains(&note.as_str())
                    });
                    let fresh = phi.map(|o| o.list("defs").concat()).filter(|d| {
                        d.strip_prefix('V')
                            .and_then(|n| n.parse::<usize>().ok())
                            .is_some_and(|n| n >= f.vregs.len())
                    });
                    match fresh {
                        Some(d) => {
                            want_copies[k].push((reg.clone(), d));
                            want_copies[k].push((x.clone(), reg));
                        }
                        None => errs.push(format!(
                            "{}: no `_PHI` of a fresh variable for {note}",
                            ctx(k)
                        )),
                    }
                    continue;
                }
                let found = yb.ops.iter().any(|o| {
                    o.op() == "_PHI" && o.list("defs") == [x.clone()] && o.list("uses") == want
                });
                if !found {
                    errs.push(format!(
                        "{}: no `_PHI {x} = {want:?}` (preds order)",
                        ctx(k)
                    ));
                }
                continue;
            }
            for o in &inst.uses {
                if let (Reg::V(_), Some(Pin::Phys(r))) = (o.reg, o.pin) {
                    want_copies[k].push((minir_reg(t, r), vtext(t, o.reg)));
                }
            }
            for o in &inst.defs {
                if let (Reg::V(_), Some(Pin::Phys(r))) = (o.reg, o.pin) {
                    want_copies[k].push((vtext(t, o.reg), minir_reg(t, r)));
                }
            }
            let plain_copy = inst.opc == Opc::Copy && inst.defs[0].pin.is_none();
            if plain_copy {
                let (d, u) = (vtext(t, inst.defs[0].reg), vtext(t, inst.uses[0].reg));
                if d.starts_with('$') || u.starts_with('$') {
                    want_copies[k].push((d, u));
                }
            }
            // Every non-marker operation appears, in order, under our name.
            if matches!(inst.opc, Opc::Input | Opc::Output) || inst.is_terminator() {
                continue;
            }
            let name = compiler::mir::print::opc_name(inst.opc);
            if !ops.any(|o| o.notes().first() == Some(&name.as_str())) {
                errs.push(format!("{}: `{name}` missing or out of order", ctx(k)));
            }
        }
    }
    for (k, want) in want_copies.iter_mut().enumerate() {
        let mut got: Vec<(String, String)> = y.blocks[k]
            .ops
            .iter()
            .filter(|o| o.op() == "_COPY")
            .map(|o| (o.list("defs").concat(), o.list("uses").concat()))
            .filter(|(d, u)| d.starts_with('$') || u.starts_with('$'))
            .collect();
        got.sort();
        want.sort();
        if got != *want {
            errs.push(format!(
                "{}: dedicated-register copies {got:?}, pins {want:?}",
                ctx(k)
            ));
        }
    }
    errs
}

/// `f` with every phi's uses in predecessor order (the order Minir requires).
fn preds_order(f: &Function) -> Function {
    let mut g = f.clone();
    for b in &mut g.blocks {
        for inst in b.insts.iter_mut().filter(|i| i.is_phi()) {
            let mut pairs: Vec<_> = inst
                .phi_blocks()
                .iter()
                .copied()
                .zip(inst.uses.iter().cloned())
                .collect();
            pairs.sort_by_key(|(p, _)| p.0);
            inst.imm = Imm::Blocks(pairs.iter().map(|(p, _)| *p).collect());
            inst.uses = pairs.into_iter().map(|(_, u)| u).collect();
        }
    }
    g
}

/// Copies left by S3's out-of-SSA pass (Sreedhar III, then pin isolation).
fn s3_copies(f: &Function) -> Result<usize, String> {
    let cfg = BackendConfig::named("S3", f.target).unwrap();
    let pass = MIR_PASSES.iter().find(|p| p.name == "sreedhar3").unwrap();
    let mut g = f.clone();
    (pass.run)(&mut g, &cfg)?;
    Ok(measure(&g).copies)
}

fn phi_order_differs(f: &Function) -> bool {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.is_phi())
        .any(|i| i.phi_blocks().windows(2).any(|w| w[0].0 > w[1].0))
}

/// Counts of the census, for the summary.
#[derive(Default)]
struct Census {
    modules: usize,
    functions: usize,
    fresh: usize,
    pinned_phis: usize,
    reordered: usize,
    /// Functions whose re-import has exactly the original's instructions (phi uses in
    /// `preds` order, `.input`/`.output` without operands left out): all of them.
    identical: usize,
    /// Functions where the inferred register classes differ from the original's.
    different: Vec<String>,
    tie_break_changes: Vec<String>,
}

fn check_case(c: &Case, census: &mut Census) -> Vec<String> {
    let mut errs = Vec::new();
    let text = module_to_minir(&c.module, c.freqs.as_deref());
    let doc = match parse(&text) {
        Ok(d) => d,
        Err(e) => return vec![format!("{}: {e}", c.name)],
    };
    let kv3 = c.module.target == Target::St231;
    for e in lao_reader_rules(&doc, kv3) {
        errs.push(format!("{}: reader rule: {e}", c.name));
    }
    census.modules += 1;
    census.fresh += text.matches("# fresh results from V").count();
    let back = match module_from_minir(&text, c.module.target) {
        Ok(m) => Some(m),
        Err(e) => {
            errs.push(format!("{}: re-import: {e}", c.name));
            None
        }
    };
    for (k, (f, y)) in c.module.functions.iter().zip(&doc.functions).enumerate() {
        census.functions += 1;
        census.pinned_phis += f
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter(|i| i.is_phi() && matches!(i.defs[0].pin, Some(Pin::Phys(_))))
            .count();
        for e in check_against(f, y) {
            errs.push(format!("{}: {e}", c.name));
        }
        let Some(g) = back.as_ref().and_then(|m| m.functions.get(k)) else {
            continue;
        };
        let v = verify_function(g, Form::Ssa);
        if !v.is_empty() {
            errs.push(format!(
                "{} @{}: re-import does not verify: {v:?}",
                c.name, f.name
            ));
            continue;
        }
        let normal = preds_order(f);
        // A `.input`/`.output` without operands has no copy, so nothing in Minir.
        let mut bare = normal.clone();
        for b in &mut bare.blocks {
            b.insts.retain(|i| {
                !(matches!(i.opc, Opc::Input | Opc::Output)
                    && i.defs.is_empty()
                    && i.uses.is_empty())
            });
        }
        if bare.blocks == g.blocks {
            census.identical += 1;
        } else {
            errs.push(format!(
                "{} @{}: the re-import has other instructions",
                c.name, f.name
            ));
        }
        let same_classes = f.vregs.iter().zip(&g.vregs).all(|(a, b)| a == b);
        if !same_classes {
            census.different.push(format!("{} @{}", c.name, f.name));
        }
        let (want, got) = (s3_copies(&normal), s3_copies(g));
        match (&want, &got) {
            (Ok(w), Ok(g)) if w == g => {}
            _ => errs.push(format!(
                "{} @{}: S3 copies {got:?} after the round trip, {want:?} before",
                c.name, f.name
            )),
        }
        if phi_order_differs(f) {
            census.reordered += 1;
            match (s3_copies(f), want) {
                (Ok(o), Ok(w)) if o != w => census.tie_break_changes.push(format!(
                    "{} @{}: S3 {o} with our phi order, {w} in preds order",
                    c.name, f.name
                )),
                _ => {}
            }
        }
    }
    errs
}

#[test]
fn every_export_passes_the_reader_rules_and_round_trips() {
    let (cases, failures) = corpus();
    assert!(
        failures.is_empty(),
        "inputs that did not build:\n{}",
        failures.join("\n")
    );
    assert!(cases.len() > 400, "the corpus: {} modules", cases.len());
    let chunk = cases.len().div_ceil(2);
    let results: Vec<(Vec<String>, Census)> = std::thread::scope(|s| {
        let hs: Vec<_> = cases
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut census = Census::default();
                    let errs = part
                        .iter()
                        .flat_map(|c| check_case(c, &mut census))
                        .collect();
                    (errs, census)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut errs = Vec::new();
    let mut total = Census::default();
    for (e, c) in results {
        errs.extend(e);
        total.modules += c.modules;
        total.functions += c.functions;
        total.fresh += c.fresh;
        total.pinned_phis += c.pinned_phis;
        total.reordered += c.reordered;
        total.identical += c.identical;
        total.different.extend(c.different);
        total.tie_break_changes.extend(c.tie_break_changes);
    }
    eprintln!(
        "minir corpus: {} modules, {} functions ({} with fresh results), {} pinned phis; \
         {} re-imported with the very instructions, {} with other inferred classes:\n{}\n\
         {} functions have phi uses out of preds order, of which {} change S3's count:\n{}",
        total.modules,
        total.functions,
        total.fresh,
        total.pinned_phis,
        total.identical,
        total.different.len(),
        total
            .different
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n"),
        total.reordered,
        total.tie_break_changes.len(),
        total.tie_break_changes.join("\n")
    );
    let shown: Vec<&String> = errs.iter().take(40).collect();
    assert!(
        errs.is_empty(),
        "{} problems, first ones:\n{}",
        errs.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The pinned phi of Rastello et al. Fig. 4 is in the corpus (both targets).
    assert!(total.pinned_phis >= 2);
}

/// Rastello et al. Fig. 4 with the pin on the phi (`%x3^$r16 = phi(%x1:entry, %y1:swap)`,
/// hand-read from the file): as our translations take it, the phi writes a fresh `x3'` and
/// the pinned copy `x3^$r16 = x3'` follows the phis, written `$r16 = x3'`, `x3 = $r16`.
#[test]
fn pinned_phi_result_is_exported_as_its_pin() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lai/fig4_pinned_phi_st231.lai");
    let text = std::fs::read_to_string(&p).unwrap();
    let lai = parse_lai_full("fig4.lai", &text, None).unwrap();
    let out = module_to_minir(&lai.module, Some(&lai.freqs));
    let doc = parse(&out).unwrap();
    let f = doc.functions.iter().find(|f| f.label == "fig4").unwrap();
    let m = &lai.module.functions[1];
    let phi = &m.blocks[2].insts[0];
    let r16 = compiler::mir::PReg::new(compiler::mir::RegClass::R, 16);
    assert_eq!(phi.defs[0].pin, Some(Pin::Phys(r16)));
    let (x3, x1, y1) = (
        vtext(m.target, phi.defs[0].reg),
        vtext(m.target, phi.uses[0].reg),
        vtext(m.target, phi.uses[1].reg),
    );
    let ops = &f.blocks[2].ops;
    let fresh = format!("V{}", m.vregs.len());
    assert_eq!(ops[0].op(), "_PHI", "{out}");
    assert_eq!(ops[0].list("defs"), std::slice::from_ref(&fresh), "{out}");
    assert_eq!(ops[0].list("uses"), [x1, y1], "{out}");
    // The other phi, then the pin of the first one.
    assert_eq!(ops[1].op(), "_PHI", "{out}");
    let copy = |o: &compiler::mir::minir::read::MOp| {
        (o.op(), o.list("defs").concat(), o.list("uses").concat())
    };
    assert_eq!(
        copy(&ops[2]),
        ("_COPY".into(), "$r16".into(), fresh),
        "{out}"
    );
    assert_eq!(copy(&ops[3]), ("_COPY".into(), x3, "$r16".into()), "{out}");
}

/// The checks are not vacuous: a dropped pin copy, `preds` reordered, an operation after a
/// control operation, a result-less `_APPLY`, `Block_` labels are all caught.
#[test]
fn the_checks_reject_a_tampered_export() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lai/fig4_pinned_phi_st231.lai");
    let src = std::fs::read_to_string(&p).unwrap();
    let lai = parse_lai_full("fig4.lai", &src, None).unwrap();
    let text = module_to_minir(&lai.module, Some(&lai.freqs));
    let messages = |t: &str| -> Vec<String> {
        let doc = match parse(t) {
            Ok(d) => d,
            Err(e) => return vec![e],
        };
        let mut v = lao_reader_rules(&doc, true);
        for (f, y) in lai.module.functions.iter().zip(&doc.functions) {
            v.extend(check_against(f, y));
        }
        v
    };
    let problems = |t: &str| messages(t).len();
    assert_eq!(messages(&text), Vec::<String>::new(), "{text}");
    let drop_first = |pat: &str| -> String {
        assert!(text.contains(pat), "{pat}");
        let mut done = false;
        text.lines()
            .filter(|l| {
                let hit = !done && l.contains(pat);
                done |= hit;
                !hit
            })
            .map(|l| format!("{l}\n"))
            .collect()
    };
    assert!(problems(&drop_first("# pin of")) > 0, "a missing pin copy");
    // The copy into $r16 of the pinned phi of @fig4 (its fresh variable is the first one).
    let fresh = lai.module.functions[1].vregs.len();
    let phi_pin = format!("{{op: _COPY, defs: [$r16], uses: [V{fresh}]}}");
    assert!(
        problems(&drop_first(&phi_pin)) > 0,
        "a missing phi pin copy"
    );
    let swapped = text.replacen("preds: [BB0, BB1]", "preds: [BB1, BB0]", 1);
    assert_ne!(swapped, text);
    assert!(problems(&swapped) > 0, "preds out of order");
    let at = text.find("{op: _APPLY, defs: [V").unwrap() + "{op: _APPLY, defs: [".len();
    let end = at + text[at..].find(']').unwrap();
    let no_result = format!("{}{}", &text[..at], &text[end..]);
    assert!(
        messages(&no_result)
            .iter()
            .any(|m| m.contains("exactly one result")),
        "an _APPLY without result"
    );
    let ret = "{op: _RETURN, defs: [], uses: []}";
    let after_return = text.replacen(
        ret,
        &format!("{ret}\n          - {{op: _APPLY, defs: [V999], uses: [1]}}"),
        1,
    );
    assert_ne!(after_return, text);
    assert!(problems(&after_return) > 0, "an op after a control op");
    assert!(problems(&text.replace("BB", "Block_")) > 0, "Block_ labels");
}

/// A module whose export needs each rewrite: a store and a syscall (no result), a call in
/// the middle of a block, a conditional branch whose fall-through is not the next block.
#[test]
fn result_less_operations_calls_and_far_fall_throughs() {
    let src = "\
.target st231
.proc f
    .input %p=$r16, %n=$r17
    mov %s = 0
    goto loop
out:
    .output %s=$r16
    return
loop:
    ldw %x = 0[%p]
    stw 4[%p] = %x
    call %y = g, %x
    syscall 2, %y
    add %s = %s, %y
    sub %n = %n, 1
    cmpgt %c = %n, 0
    br %c, loop
    goto out
.endp
.proc g
    .input %a=$r16
    .output %a=$r16
    return
.endp
";
    let lai = parse_lai_full("t.lai", src, None).unwrap_or_else(|d| panic!("{}", d.render()));
    let text = module_to_minir(&lai.module, Some(&lai.freqs));
    let doc = parse(&text).unwrap();
    assert_eq!(lao_reader_rules(&doc, true), Vec::<String>::new(), "{text}");
    let f = &doc.functions[0];
    // Our three blocks, nothing added; the loop's fall-through (out, BB1) comes first.
    assert_eq!(
        f.blocks.len(),
        lai.module.functions[0].blocks.len(),
        "{text}"
    );
    let lp = f
        .blocks
        .iter()
        .find(|b| b.ops.iter().any(|o| o.op() == "_IFTRUE"))
        .unwrap();
    assert_eq!(lp.succs.as_ref().unwrap()[0], "BB1", "{text}");
    // The store, the call and the syscall each write a fresh variable used nowhere.
    let base: u32 = f
        .comments
        .iter()
        .find_map(|c| c.strip_prefix("fresh results from V"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(base as usize, lai.module.functions[0].vregs.len());
    let fresh: Vec<String> = lp
        .ops
        .iter()
        .filter(|o| o.op() == "_APPLY")
        .flat_map(|o| o.list("defs"))
        .filter(|d| {
            d.strip_prefix('V')
                .is_some_and(|n| n.parse::<u32>().unwrap() >= base)
        })
        .collect();
    assert_eq!(fresh.len(), 3, "stw, call, syscall: {text}");
    for v in &fresh {
        assert_eq!(
            text.matches(&format!("{v}]")).count() + text.matches(&format!("{v},")).count(),
            1,
            "{v} used: {text}"
        );
    }
    // The call is an `_APPLY` in the middle of its block, reading only its callee.
    let call = lp.ops.iter().find(|o| o.notes()[0] == "call").unwrap();
    assert_eq!(call.op(), "_APPLY");
    assert_eq!(call.list("uses"), ["[g]"]);
    // Round trip: the same S3 count.
    let back = module_from_minir(&text, Target::St231).unwrap();
    for (a, b) in lai.module.functions.iter().zip(&back.functions) {
        assert_eq!(verify_function(b, Form::Ssa), vec![]);
        assert_eq!(s3_copies(&preds_order(a)), s3_copies(b), "@{}", a.name);
        assert_eq!(
            preds_order(a).blocks,
            b.blocks,
            "@{}: the same instructions",
            a.name
        );
    }
}

/// Per function, the copies after `S3`'s out-of-SSA pass (its `moves_coalesced`), when the
/// whole module goes through the back end from machine SSA (`compile_machine_module`, the
/// path of LAI files) with every pass verified.
fn s3_back_end_moves(m: &Module) -> Result<HashMap<String, usize>, String> {
    let mut cfg = BackendConfig::named("S3", m.target).unwrap();
    cfg.verify = true;
    let (_, coalesced, _) = compiler::backend::stat_passes(&cfg);
    let stage = coalesced.unwrap().to_string();
    let mut moves = HashMap::new();
    let mut hook = |s: &str, mm: &Module| -> Result<(), String> {
        if s == stage {
            for f in &mm.functions {
                moves.insert(f.name.clone(), measure(f).copies);
            }
        }
        Ok(())
    };
    compiler::backend::compile_machine_module(m.clone(), vec![], &cfg, &mut hook)
        .map_err(|e| e.to_string())?;
    Ok(moves)
}

/// The LAI files, exported and re-imported, compiled by the back end the way LAI input is
/// (`compile_machine_module` under `S3`, verified): the same `moves_coalesced` per function
/// as the original with its phi uses in `preds` order. Minir has no data: the module's
/// globals are taken from the original (frame objects are the re-import's placeholders).
#[test]
fn lai_files_round_trip_through_the_back_end() {
    let mut lai = files("../programs/lai", "lai");
    lai.extend(files("tests/lai", "lai"));
    let mut n = 0;
    let mut errs = Vec::new();
    for p in lai {
        if p.file_name().unwrap().to_string_lossy().starts_with("err_") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let l = parse_lai_full(&p.display().to_string(), &text, None).unwrap();
        let mut normal = l.module.clone();
        normal.functions = l.module.functions.iter().map(preds_order).collect();
        let out = module_to_minir(&l.module, Some(&l.freqs));
        let mut back = module_from_minir(&out, l.module.target).unwrap();
        back.globals = l.module.globals.clone();
        match (s3_back_end_moves(&normal), s3_back_end_moves(&back)) {
            (Ok(a), Ok(b)) if a == b => n += 1,
            (a, b) => errs.push(format!("{}: {a:?} before, {b:?} after", p.display())),
        }
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    assert!(n >= 40, "{n} LAI files");
}
