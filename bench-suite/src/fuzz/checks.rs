//! Independent checkers the differential oracle runs on every compiled function, beside the
//! machine-IR verifier and the allocation checker that the back-end driver runs itself
//! (`BackendConfig::verify`):
//!
//! * [`check_cssa`] — after `sreedhar-cssa`: the function is in *conventional* SSA, i.e. no
//!   two members of one phi congruence class (a phi's result and arguments, closed
//!   transitively) are live at one point (Sreedhar et al. 1999 §3; SSA book §21.2). Own
//!   liveness, so that it does not share a bug with the pass it checks.
//! * [`check_register_budget`] — after `irc`: register pressure after spilling fits the
//!   registers the allocator was given: under `--regs N` no operand uses an allocatable
//!   register beyond the first N of its class unless some operand of the function is pinned
//!   to it (precoloured ABI registers keep theirs).
//! * [`check_encoding_round_trip`] — after emission: the object's code decodes, bundle by
//!   bundle (ST231) or word by word (ST120), and the scheduled program's assembly text,
//!   assembled by the simulator's independent assembler, encodes to the same bytes:
//!   decode(encode(scheduled program)) is the scheduled program.
//!
//! The pinning verifier (Rastello et al. Fig. 5 incorrect pinnings, `leung_george::
//! check_pinning`) is run by the out-of-pinned-SSA pass itself on the pinning it is about to
//! use, on every function; the oracle classifies its rejection ("incorrect pinning") as a
//! checker failure (see `super::backend`).
//!
//! Complexity: liveness by iterative bit-set dataflow, O(blocks × vregs / 64) per round;
//! the interference walk is O(instructions × congruence-class size). The other checks are
//! linear in the code.

use compiler::mir::{self, Function, InstFlags, Pin, Reg};
use simulator::isa::Target;
use simulator::object::Object;

/// Errors reported per check (the first few are enough to locate a bug).
const MAX_ERRORS: usize = 8;

/// A dense bit set over vreg indices.
#[derive(Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn remove(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
    /// `self |= o`; true if something changed.
    fn union(&mut self, o: &Bits) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &w)| {
            (0..64)
                .filter(move |b| w & (1u64 << b) != 0)
                .map(move |b| k * 64 + b)
        })
    }
}

/// Union-find over vreg indices (path halving).
struct Classes(Vec<usize>);

impl Classes {
    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[ra] = rb;
        }
    }
}

fn valid_vreg(f: &Function, r: Reg) -> Option<usize> {
    r.vreg().map(|v| v.index()).filter(|&i| i < f.vregs.len())
}

/// SSA liveness with phi semantics: a phi's argument is used at the end of its predecessor,
/// its result defined at the entry of its block. Returns (live-in, live-out) per block.
fn ssa_liveness(f: &Function) -> (Vec<Bits>, Vec<Bits>) {
    let n = f.vregs.len();
    let nb = f.blocks.len();
    let succs = f.successors();
    // Per block: upward-exposed uses and defs (phis: defs only), and the phi uses per
    // predecessor.
    let mut gen = vec![Bits::new(n); nb];
    let mut kill = vec![Bits::new(n); nb];
    let mut phi_uses = vec![Bits::new(n); nb];
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in b.insts.iter().rev() {
            for d in &i.defs {
                if let Some(v) = valid_vreg(f, d.reg) {
                    kill[bi].insert(v);
                    gen[bi].remove(v);
                }
            }
            if i.is_phi() {
                for (p, u) in i.phi_blocks().iter().zip(&i.uses) {
                    if let (Some(v), true) = (valid_vreg(f, u.reg), p.index() < nb) {
                        phi_uses[p.index()].insert(v);
                    }
                }
                continue;
            }
            for u in &i.uses {
                if let Some(v) = valid_vreg(f, u.reg) {
                    gen[bi].insert(v);
                }
            }
        }
    }
    let mut live_in = gen.clone();
    let mut live_out = phi_uses;
    let mut changed = true;
    while changed {
        changed = false;
        for bi in (0..nb).rev() {
            for s in &succs[bi] {
                if s.index() < nb {
                    let li = live_in[s.index()].clone();
                    changed |= live_out[bi].union(&li);
                }
            }
            let mut inn = live_out[bi].clone();
            for (w, k) in inn.0.iter_mut().zip(&kill[bi].0) {
                *w &= !k;
            }
            changed |= live_in[bi].union(&inn);
        }
    }
    (live_in, live_out)
}

/// The conventional-SSA property of `f` (SSA form): the phi congruence classes are free of
/// interference. Returns the violations found (empty: `f` is in CSSA).
pub fn check_cssa(f: &Function) -> Vec<String> {
    let n = f.vregs.len();
    let mut classes = Classes((0..n).collect());
    let mut in_web = vec![false; n];
    for b in &f.blocks {
        for i in b.insts.iter().filter(|i| i.is_phi()) {
            let Some(d) = i.defs.first().and_then(|o| valid_vreg(f, o.reg)) else {
                continue;
            };
            in_web[d] = true;
            for u in &i.uses {
                if let Some(v) = valid_vreg(f, u.reg) {
                    in_web[v] = true;
                    classes.union(d, v);
                }
            }
        }
    }
    // Members of each class with two or more members.
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for v in (0..n).filter(|&v| in_web[v]) {
        let r = classes.find(v);
        members[r].push(v);
    }
    let class_of: Vec<usize> = (0..n).map(|v| classes.find(v)).collect();
    let (live_in, live_out) = ssa_liveness(f);
    let mut errs = Vec::new();
    let report = |errs: &mut Vec<String>, m: String| {
        if errs.len() < MAX_ERRORS {
            errs.push(format!("@{}: {m}", f.name));
        }
    };
    // `v` is defined while another member of its class is live.
    let clash = |v: usize, live: &Bits| -> Option<usize> {
        if !in_web[v] {
            return None;
        }
        members[class_of[v]]
            .iter()
            .copied()
            .find(|&m| m != v && live.contains(m))
    };
    for (bi, b) in f.blocks.iter().enumerate() {
        // Two members live at the block end (e.g. arguments of two phis of one class in two
        // successors, or an argument while the class's value is live through the edge).
        let mut seen: Vec<Option<usize>> = vec![None; n];
        for v in live_out[bi].iter().filter(|&v| in_web[v]) {
            let c = class_of[v];
            match seen[c] {
                Some(w) => report(
                    &mut errs,
                    format!("b{bi}: %{w} and %{v} of one phi class both live at the block end"),
                ),
                None => seen[c] = Some(v),
            }
        }
        let mut live = live_out[bi].clone();
        for (k, i) in b.insts.iter().enumerate().rev() {
            if i.is_phi() {
                break;
            }
            for d in &i.defs {
                if let Some(v) = valid_vreg(f, d.reg) {
                    if let Some(m) = clash(v, &live) {
                        report(
                            &mut errs,
                            format!(
                                "b{bi} inst {k}: %{v} defined while %{m} of its phi class is live"
                            ),
                        );
                    }
                    live.remove(v);
                }
            }
            for u in &i.uses {
                if let Some(v) = valid_vreg(f, u.reg) {
                    live.insert(v);
                }
            }
        }
        let mut phi_defs: Vec<usize> = Vec::new();
        for i in b.insts.iter().take_while(|i| i.is_phi()) {
            let Some(v) = i.defs.first().and_then(|o| valid_vreg(f, o.reg)) else {
                continue;
            };
            if let Some(m) = clash(v, &live_in[bi]) {
                report(
                    &mut errs,
                    format!("b{bi}: phi %{v} defined while %{m} of its phi class is live-in"),
                );
            }
            if let Some(&w) = phi_defs.iter().find(|&&w| class_of[w] == class_of[v]) {
                report(
                    &mut errs,
                    format!("b{bi}: phis %{w} and %{v} of one block in one phi class"),
                );
            }
            phi_defs.push(v);
        }
    }
    errs
}

/// The classes whose registers `--regs` restricts: those with spill code (ST231 `$r`,
/// ST120 `R` and `P`); branch and guard registers keep their whole file.
fn restricted_class(t: Target, c: mir::target::RegClass) -> bool {
    use mir::target::RegClass;
    match t {
        Target::St231 => c == RegClass::R,
        Target::St120 => matches!(c, RegClass::R | RegClass::P),
    }
}

/// After allocation under `--regs regs`: every register operand is one of the first `regs`
/// allocatable registers of its class, a register some operand is pinned to, or a register
/// the allocator does not hand out (stack pointer, `$r0`). Returns the violations.
pub fn check_register_budget(f: &Function, regs: u32) -> Vec<String> {
    let t = f.target;
    // Per restricted class: the rank of each register number in the allocation order, and
    // whether some operand is pinned to it (computed once per function).
    let mut rank: Vec<(mir::target::RegClass, [Option<u8>; 256], [bool; 256])> = Vec::new();
    for &c in mir::target::classes(t) {
        if restricted_class(t, c) {
            let mut r = [None; 256];
            for (k, &n) in mir::target::allocatable(t, c).iter().enumerate() {
                r[n as usize] = Some(k as u8);
            }
            rank.push((c, r, [false; 256]));
        }
    }
    for i in f.blocks.iter().flat_map(|b| &b.insts) {
        for o in i.defs.iter().chain(&i.uses) {
            if let Some(Pin::Phys(p)) = o.pin {
                if let Some(e) = rank.iter_mut().find(|e| e.0 == p.class) {
                    e.2[p.num as usize] = true;
                }
            }
        }
    }
    let mut errs = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, i) in b.insts.iter().enumerate() {
            if i.flags.contains(InstFlags::FRAME) {
                continue;
            }
            for o in i.defs.iter().chain(&i.uses) {
                let Reg::P(p) = o.reg else { continue };
                let Some((_, ranks, pinned)) = rank.iter().find(|e| e.0 == p.class) else {
                    continue;
                };
                if pinned[p.num as usize] {
                    continue;
                }
                let Some(rank) = ranks[p.num as usize].map(usize::from) else {
                    continue;
                };
                if rank >= regs as usize && errs.len() < MAX_ERRORS {
                    errs.push(format!(
                        "@{} b{bi} inst {k}: {} is allocatable register #{} of its class, beyond --regs {regs}",
                        f.name,
                        mir::target::reg_name(t, p),
                        rank + 1
                    ));
                }
            }
        }
    }
    errs
}

/// The linked object's code decodes completely, and the assembly text of the same scheduled
/// program assembles to the same code and data bytes.
pub fn check_encoding_round_trip(obj: &Object, asm: &str) -> Result<(), String> {
    decode_all(obj)?;
    let again = simulator::asm::assemble(asm, Some(obj.target))
        .map_err(|e| format!("the assembly text does not assemble: {e}"))?;
    if again.code != obj.code {
        let at = first_difference(&again.code, &obj.code);
        return Err(format!(
            "the assembled text encodes differently from the linked object at code byte {at} (0x{:x}): {} vs {} bytes",
            obj.code_base as usize + at,
            again.code.len(),
            obj.code.len()
        ));
    }
    if again.data != obj.data || again.bss_size != obj.bss_size {
        let at = first_difference(&again.data, &obj.data);
        return Err(format!(
            "the assembled text has other data than the linked object (first difference at data byte {at}; bss {} vs {})",
            again.bss_size, obj.bss_size
        ));
    }
    Ok(())
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// Decodes every bundle (ST231) or word (ST120) of the object's code.
fn decode_all(obj: &Object) -> Result<(), String> {
    let words: Vec<u32> = obj
        .code
        .chunks(4)
        .map(|c| {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(b)
        })
        .collect();
    if !obj.code.len().is_multiple_of(4) {
        return Err(format!(
            "code size {} is not a multiple of 4",
            obj.code.len()
        ));
    }
    match obj.target {
        Target::St231 => {
            use simulator::isa::st231::encoding::decode_bundle;
            let mut k = 0;
            while k < words.len() {
                let b = decode_bundle(&words[k..]).map_err(|e| {
                    format!(
                        "the bundle at 0x{:x} does not decode: {e:?}",
                        obj.code_base as usize + 4 * k
                    )
                })?;
                k += b.syllables.max(1);
            }
        }
        Target::St120 => {
            for (k, w) in words.iter().enumerate() {
                simulator::isa::st120::encoding::decode(*w).map_err(|e| {
                    format!(
                        "the word 0x{w:08x} at 0x{:x} does not decode: {e:?}",
                        obj.code_base as usize + 4 * k
                    )
                })?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOST_COPY: &str = "mfunc @lost_copy st231 {\n\
        b0:\n  %0:r^$r16 = .input\n  goto b1\n\
        b1:\n  %1:r = phi [b0: %0], [b1: %2]\n  %2:r = add %1, #1\n  %3:b = cmplt %2, #10\n  br %3, b1\n  goto b2\n\
        b2:\n  .output %1^$r16\n  return\n}\n";

    /// The same loop in CSSA: the arguments go through copies, and the phi result, live
    /// after the loop, is copied right after the phi (the lost-copy fix).
    const LOST_COPY_CSSA: &str = "mfunc @lost_copy st231 {\n\
        b0:\n  %0:r^$r16 = .input\n  %4:r = copy %0\n  goto b1\n\
        b1:\n  %1:r = phi [b0: %4], [b1: %5]\n  %6:r = copy %1\n  %2:r = add %6, #1\n  %3:b = cmplt %2, #10\n  %5:r = copy %2\n  br %3, b1\n  goto b2\n\
        b2:\n  .output %6^$r16\n  return\n}\n";

    /// Only the arguments copied: the phi result is still live at the end of the loop
    /// block, where the back-edge argument is written.
    const ARGS_ONLY: &str = "mfunc @lost_copy st231 {\n\
        b0:\n  %0:r^$r16 = .input\n  %4:r = copy %0\n  goto b1\n\
        b1:\n  %1:r = phi [b0: %4], [b1: %5]\n  %2:r = add %1, #1\n  %3:b = cmplt %2, #10\n  %5:r = copy %2\n  br %3, b1\n  goto b2\n\
        b2:\n  .output %1^$r16\n  return\n}\n";

    #[test]
    fn copying_only_the_arguments_leaves_the_lost_copy_interference() {
        let f = mir::parse::parse_function(ARGS_ONLY).unwrap();
        let errs = check_cssa(&f);
        assert!(
            errs.iter().any(|e| e.contains("%5 defined while %1")),
            "{errs:?}"
        );
    }

    #[test]
    fn the_lost_copy_loop_is_not_conventional() {
        let f = mir::parse::parse_function(LOST_COPY).unwrap();
        let errs = check_cssa(&f);
        assert!(
            errs.iter().any(|e| e.contains("%2 defined while %1")),
            "{errs:?}"
        );
    }

    #[test]
    fn copies_make_it_conventional() {
        let f = mir::parse::parse_function(LOST_COPY_CSSA).unwrap();
        assert_eq!(check_cssa(&f), Vec::<String>::new());
    }

    #[test]
    fn a_register_beyond_the_budget_is_reported_unless_pinned() {
        let t = Target::St231;
        let alloc = mir::target::allocatable(t, mir::target::RegClass::R);
        let name =
            |k: usize| mir::target::reg_name(t, mir::PReg::new(mir::target::RegClass::R, alloc[k]));
        let text = format!(
            "mfunc @f st231 {{\nb0:\n  .input\n  {a} = add {b}, #1\n  {c} = add {a}, #2\n  return\n}}\n",
            a = name(0),
            b = name(1),
            c = name(9)
        );
        let f = mir::parse::parse_function(&text).unwrap();
        assert!(check_register_budget(&f, 10).is_empty());
        let errs = check_register_budget(&f, 8);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains(&name(9)), "{errs:?}");
    }
}
