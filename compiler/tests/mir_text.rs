//! The machine-level IR text form round-trips: for random machine functions built through the
//! `mir` API (every target operation, every pseudo-operation, pins, guards, flags, frame
//! objects, layouts, every immediate kind), `parse(print(f)) == f` and printing the parsed
//! function gives the same text. Malformed text gets a located error, never a panic; random
//! functions never panic the verifier or the interpreter.

use compiler::ir::Global;
use compiler::mir::parse::{parse_function, parse_module};
use compiler::mir::target::{classes, num_regs, st120_op_name, RegClass};
use compiler::mir::verify::{signature, ImmKinds};
use compiler::mir::*;
use proptest::prelude::*;
use simulator::isa::{st120, st231, Target};

/// A tiny deterministic generator (xorshift), so that a proptest seed gives one function.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn int(&mut self) -> i32 {
        match self.below(4) {
            0 => 0,
            1 => self.below(512) as i32 - 256,
            _ => self.next() as i32,
        }
    }
}

const NAMES: [&str; 5] = ["g", "tab.1", "__ssalab_divs", "x$y", "main"];
const FRAME_NAMES: [&str; 5] = [
    "buf",
    "",
    "quote\"back\\slash",
    "tab\tnl\n",
    "uni\u{e9}\u{200b}\u{1b}",
];

struct Gen<'a> {
    rng: &'a mut Rng,
    f: Function,
}

impl Gen<'_> {
    fn preg(&mut self, c: RegClass) -> PReg {
        let n = num_regs(self.f.target, c) as usize;
        PReg::new(c, self.rng.below(n) as u8)
    }
    fn class(&mut self) -> RegClass {
        let cs = classes(self.f.target);
        cs[self.rng.below(cs.len())]
    }
    fn pin(&mut self, c: RegClass, allow_var: bool) -> Option<Pin> {
        match self.rng.below(6) {
            0 => Some(Pin::Phys(self.preg(c))),
            1 if allow_var && !self.f.vregs.is_empty() => {
                Some(Pin::Var(VReg(self.rng.below(self.f.vregs.len()) as u32)))
            }
            _ => None,
        }
    }
    /// A definition of class `c`: a fresh vreg (so every vreg has a printed definition) or a
    /// physical register.
    fn def(&mut self, c: RegClass) -> Operand {
        let reg = if self.rng.chance(15) {
            Reg::P(self.preg(c))
        } else {
            Reg::V(self.f.new_vreg(c))
        };
        Operand {
            reg,
            pin: self.pin(c, false),
        }
    }
    /// A use of class `c`: an existing vreg of that class or a physical register. Uses may
    /// name vregs defined later in the text.
    fn use_(&mut self, c: RegClass) -> Operand {
        let candidates: Vec<u32> = (0..self.f.vregs.len() as u32)
            .filter(|&v| self.f.class_of(VReg(v)) == c)
            .collect();
        let reg = if candidates.is_empty() || self.rng.chance(15) {
            Reg::P(self.preg(c))
        } else {
            Reg::V(VReg(candidates[self.rng.below(candidates.len())]))
        };
        Operand {
            reg,
            pin: self.pin(c, true),
        }
    }
    fn imm(&mut self, kinds: ImmKinds, nblocks: usize) -> Imm {
        let mut options = Vec::new();
        for k in [
            ImmKinds::NONE,
            ImmKinds::INT,
            ImmKinds::SYM,
            ImmKinds::BLOCK,
            ImmKinds::FUNC,
            ImmKinds::FRAME,
        ] {
            if kinds.contains(k) {
                options.push(k);
            }
        }
        let k = options[self.rng.below(options.len())];
        let name = NAMES[self.rng.below(NAMES.len())].to_string();
        if k == ImmKinds::INT {
            Imm::Int(self.rng.int())
        } else if k == ImmKinds::SYM {
            let part = [SymPart::Full, SymPart::Hi16, SymPart::Lo16][self.rng.below(3)];
            Imm::Sym {
                name,
                offset: self.rng.int(),
                part,
            }
        } else if k == ImmKinds::BLOCK {
            Imm::Block(BlockId(self.rng.below(nblocks) as u32))
        } else if k == ImmKinds::FUNC {
            Imm::Func(name)
        } else if k == ImmKinds::FRAME {
            Imm::Frame {
                idx: FrameIdx(self.rng.below(4) as u32),
                offset: self.rng.int(),
            }
        } else {
            Imm::None
        }
    }
    fn flags(&mut self) -> InstFlags {
        let mut fl = InstFlags::empty();
        for f in [
            InstFlags::COPY,
            InstFlags::SPILL_LOAD,
            InstFlags::SPILL_STORE,
            InstFlags::SWAP,
            InstFlags::FRAME,
        ] {
            if self.rng.chance(10) {
                fl |= f;
            }
        }
        fl
    }
    fn target_op(&mut self) -> Opc {
        match self.f.target {
            Target::St231 => {
                Opc::St231(st231::Opcode::ALL[self.rng.below(st231::Opcode::ALL.len())])
            }
            Target::St120 => {
                let all: Vec<st120::Opcode> = st120::Opcode::all()
                    .into_iter()
                    .filter(|o| o.is_valid())
                    .collect();
                Opc::St120(all[self.rng.below(all.len())])
            }
        }
    }
    fn inst(&mut self, nblocks: usize) -> Inst {
        let t = self.f.target;
        let flags = self.flags();
        match self.rng.below(10) {
            0 => {
                let c = self.class();
                let d = self.def(c);
                let n = self.rng.below(4);
                let uses = (0..n).map(|_| self.use_(c)).collect();
                let blocks = (0..n)
                    .map(|_| BlockId(self.rng.below(nblocks) as u32))
                    .collect();
                Inst::new(Opc::Phi, vec![d], uses, Imm::Blocks(blocks)).with_flags(flags)
            }
            1 => {
                let n = self.rng.below(4);
                let pairs = (0..n)
                    .map(|_| {
                        let c = self.class();
                        (self.def(c), self.use_(c))
                    })
                    .collect();
                Inst::par_copy(pairs).with_flags(flags)
            }
            2 => {
                let c = self.class();
                let d = self.def(c);
                let u = self.use_(c);
                Inst::copy(d, u).with_flags(flags)
            }
            3 => {
                let c = self.class();
                let d = self.def(c);
                let gk = if t == Target::St231 {
                    RegClass::B
                } else {
                    RegClass::G
                };
                let mut uses = Vec::new();
                for _ in 0..1 + self.rng.below(3) {
                    uses.push(self.use_(gk));
                    uses.push(self.use_(c));
                }
                Inst::new(Opc::Psi, vec![d], uses, Imm::None).with_flags(flags)
            }
            4 => {
                let n = self.rng.below(3);
                let (c, pin) = (RegClass::R, Pin::Phys(self.preg(RegClass::R)));
                if self.rng.chance(50) {
                    let defs = (0..n)
                        .map(|_| Operand::pinned(self.f.new_vreg(c), pin))
                        .collect();
                    Inst::new(Opc::Input, defs, vec![], Imm::None)
                } else {
                    let uses = (0..n).map(|_| self.use_(c)).collect();
                    Inst::new(Opc::Output, vec![], uses, Imm::None)
                }
            }
            _ => {
                let opc = self.target_op();
                // Choose the immediate first (the ST231 shape depends on it).
                let probe = Inst::new(opc, vec![], vec![], Imm::None);
                let kinds = signature(t, &probe).imm;
                let kinds = if matches!(opc, Opc::St231(_)) {
                    let with_imm = Inst::new(opc, vec![], vec![], Imm::Int(1));
                    kinds | signature(t, &with_imm).imm
                } else {
                    kinds
                };
                let imm = self.imm(kinds, nblocks);
                let sig = signature(t, &Inst::new(opc, vec![], vec![], imm.clone()));
                let mut defs: Vec<Operand> = Vec::new();
                for k in 0..sig.defs.len() + sig.extra_defs.map_or(0, |_| self.rng.below(3)) {
                    let cs = sig.def_class(k).unwrap();
                    let c = pick(self.rng, t, cs);
                    defs.push(self.def(c));
                }
                let extra = sig
                    .extra_uses
                    .map_or(0, |_| self.rng.below(sig.max_extra_uses.min(3) + 1));
                let mut uses: Vec<Operand> = Vec::new();
                for k in 0..sig.uses.len() + extra {
                    let cs = sig.use_class(k).unwrap();
                    let c = pick(self.rng, t, cs);
                    uses.push(self.use_(c));
                }
                for &(d, u) in &sig.tied {
                    if let Some(v) = defs[d].vreg() {
                        uses[u] = Operand::pinned(uses[u].reg, Pin::Var(v));
                    }
                }
                let mut inst = Inst::new(opc, defs, uses, imm).with_flags(flags);
                if t == Target::St120 && self.rng.chance(30) {
                    let g = self.use_(RegClass::G);
                    inst.uses.push(g);
                    inst.flags |= InstFlags::GUARDED;
                }
                inst
            }
        }
    }
}

fn pick(rng: &mut Rng, t: Target, cs: compiler::mir::verify::ClassSet) -> RegClass {
    let ok: Vec<RegClass> = classes(t)
        .iter()
        .copied()
        .filter(|&c| cs.contains(c))
        .collect();
    ok[rng.below(ok.len())]
}

/// A random, printable (not necessarily valid) machine function.
fn random_function(seed: u64, target: Target) -> Function {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let name = format!("f{}", seed % 1000);
    let mut g = Gen {
        f: Function::new(&name, target),
        rng: &mut rng,
    };
    let nblocks = 1 + g.rng.below(4);
    for _ in 1..nblocks {
        g.f.new_block();
    }
    for k in 0..g.rng.below(4) {
        let kind = [
            FrameKind::Local,
            FrameKind::Spill,
            FrameKind::Save,
            FrameKind::IncomingArg(k as u32),
        ][g.rng.below(4)];
        let name = FRAME_NAMES[g.rng.below(FRAME_NAMES.len())];
        let size = g.rng.below(64) as u32;
        g.f.new_frame_object(size, 1 << g.rng.below(4), kind, name);
    }
    if g.rng.chance(40) {
        g.f.frame.outgoing_size = 16;
    }
    if g.rng.chance(30) {
        g.f.frame.size = 8 * g.rng.below(10) as u32;
        g.f.frame.offsets = (0..g.f.frame.objects.len()).map(|_| g.rng.int()).collect();
        g.f.frame.finalized = g.rng.chance(50);
    }
    for b in 0..nblocks {
        for _ in 0..g.rng.below(8) {
            let i = g.inst(nblocks);
            g.f.push(BlockId(b as u32), i);
        }
    }
    g.f
}

fn check_round_trip(f: &Function) {
    let text = f.to_string();
    let parsed = parse_function(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed.to_string(), text);
    assert_eq!(&parsed, f, "\n{text}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_st231_functions_round_trip(seed in any::<u64>()) {
        check_round_trip(&random_function(seed, Target::St231));
    }

    #[test]
    fn random_st120_functions_round_trip(seed in any::<u64>()) {
        check_round_trip(&random_function(seed, Target::St120));
    }

    /// Random (mostly invalid) functions never panic the verifier or the interpreter: every
    /// problem is an error value or a trap.
    #[test]
    fn verifier_and_interpreter_never_panic(seed in any::<u64>()) {
        use compiler::mir::interp::{run_module, InterpOptions};
        use compiler::mir::verify::{verify_module, Form};
        let t = Target::ALL[(seed % 2) as usize];
        let mut f = random_function(seed, t);
        f.name = "main".into();
        let callee = random_function(seed ^ 0x5555, t);
        let m = Module { target: t, functions: vec![f, callee], globals: vec![] };
        for form in [Form::Ssa, Form::Allocation, Form::Allocated, Form::Final] {
            let _ = verify_module(&m, form);
        }
        let opts = InterpOptions { max_steps: 10_000, max_depth: 50, ..InterpOptions::default() };
        let _ = run_module(&m, "main", &opts);
    }

    /// Cutting or corrupting printed text gives an error or a function, never a panic.
    #[test]
    fn damaged_text_never_panics(seed in any::<u64>(), cut in any::<usize>(), byte in any::<u8>()) {
        let text = random_function(seed, Target::ALL[(seed % 2) as usize]).to_string();
        let cut = cut % (text.len() + 1);
        let mut damaged = text.as_bytes()[..cut].to_vec();
        let _ = parse_function(&String::from_utf8_lossy(&damaged));
        if cut < text.len() {
            damaged = text.as_bytes().to_vec();
            damaged[cut] = byte;
            let _ = parse_function(&String::from_utf8_lossy(&damaged));
        }
    }
}

#[test]
fn every_opcode_round_trips() {
    // One instruction per target opcode (the random test may miss rare ones).
    for t in Target::ALL {
        let opcs: Vec<Opc> = match t {
            Target::St231 => st231::Opcode::ALL.iter().map(|&o| Opc::St231(o)).collect(),
            Target::St120 => st120::Opcode::all()
                .into_iter()
                .filter(|o| o.is_valid())
                .map(Opc::St120)
                .collect(),
        };
        let mut f = Function::new("all", t);
        let v = f.new_vreg(RegClass::R);
        for opc in opcs {
            let i = Inst::new(opc, vec![], vec![Operand::new(v)], Imm::Int(3));
            f.push(BlockId(0), i);
        }
        f.push(
            BlockId(0),
            Inst::new(Opc::Input, vec![Operand::new(v)], vec![], Imm::None),
        );
        check_round_trip(&f);
    }
    assert_eq!(st120_op_name(st120::Opcode::GotoF), "GOTO.f");
}

#[test]
fn modules_with_globals_round_trip() {
    let mut f = random_function(7, Target::St120);
    f.name = "main".into();
    let m = Module {
        target: Target::St120,
        functions: vec![f, random_function(8, Target::St120)],
        globals: vec![
            Global {
                name: "tab".into(),
                size: 8,
                align: 4,
                init: vec![1, 2, 3],
                relocs: vec![],
                readonly: true,
            },
            Global {
                name: "p".into(),
                size: 4,
                align: 4,
                init: vec![],
                relocs: vec![compiler::ir::Reloc {
                    offset: 0,
                    symbol: "tab".into(),
                    addend: 4,
                }],
                readonly: false,
            },
        ],
    };
    let text = m.to_string();
    let parsed = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed, m);
    assert_eq!(parsed.to_string(), text);
}

#[test]
fn mixed_targets_and_empty_modules_are_errors() {
    let a = random_function(1, Target::St231).to_string();
    let b = random_function(2, Target::St120).to_string();
    let e = parse_module(&format!("{a}\n{b}")).unwrap_err();
    assert!(
        e.message.contains("st120") && e.message.contains("st231"),
        "{e}"
    );
    let e = parse_module("global @x size 4 align 4 = zero\n").unwrap_err();
    assert!(e.message.contains("mfunc"), "{e}");
}
