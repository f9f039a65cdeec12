//! The machine-level IR verifier: checks a [`Function`] against the invariants of one of the
//! four forms of `docs/design.md` ("Forms of a machine function"):
//!
//! * every form — block structure (phis first, control operations last, the block ends with an
//!   unconditional control operation, branch targets and frame objects in range), operand
//!   counts, register classes and immediate kinds per opcode ([`signature`]: ST231 by
//!   `Opcode::info().format`, ST120 by `OpInfo::operands()` with `Def`/`Use`/`Tied` and the
//!   guard as last use when `GUARDED`), pins well formed (a physical pin has the operand's
//!   class; a `Pin::Var` sits on a use and names a definition of the same instruction),
//!   physical registers exist, `.input` only first in the entry block, no write to `G15`;
//! * [`Form::Ssa`] — single definition per vreg, definitions dominate uses (a phi use at the
//!   end of its predecessor), phi arity = predecessor count and phi blocks = predecessors,
//!   tied uses pinned `Var(def)`, ST231 `B` vregs defined and used in one block (no `B` value
//!   live across blocks: the cheap, sufficient check), no `B` phis;
//! * [`Form::AllocatedSsa`] — SSA (all of the above) with a physical register on every value:
//!   every virtual-register operand pinned to a register (`Pin::Phys`), the same one at all
//!   occurrences of the vreg; tied uses keep `Pin::Var` and their value has the register of
//!   the definition (road 2's `ssa-colour` output, `regalloc::ssa`);
//! * [`Form::Allocation`] — no `Phi`/`ParCopy`/`Psi`, tied uses are the same vreg as their
//!   definition, the ST231 `B` rule;
//! * [`Form::Allocated`] — no pseudo-SSA operations except parallel copies (kept first-class
//!   after road 2's SSA destruction until `seq-parcopy`), no `Reg::V` operand, tied operands in the
//!   same physical register, a physical pin equals its register;
//! * [`Form::Final`] — allocated, plus `frame.finalized` and no `Imm::Frame`.
//!
//! Errors name the function, block, instruction index and the printed instruction.
//! Complexity: O(instructions + operands) plus the dominator computation of `mir::cfg`.

use super::cfg::CfgInfo;
use super::function::*;
use super::print::inst_to_string;
use super::target::{num_regs, RegClass};
use bitflags::bitflags;
use simulator::isa::{st120, st231, Target};
use std::fmt;

/// Which stage's invariants to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// Instruction selection output.
    Ssa,
    /// SSA with every value pinned to its physical register (road 2, after colouring).
    AllocatedSsa,
    /// Out-of-SSA output / register allocator input.
    Allocation,
    /// Register allocator output.
    Allocated,
    /// Frame pass output (emission input).
    Final,
}

/// One violated invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    pub function: String,
    pub block: Option<BlockId>,
    /// Index of the instruction in its block.
    pub inst: Option<usize>,
    /// The printed instruction (empty for block- or function-level errors).
    pub text: String,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.function)?;
        if let Some(b) = self.block {
            write!(f, " {b}")?;
        }
        if let Some(i) = self.inst {
            write!(f, "[{i}] `{}`", self.text)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VerifyError {}

/// A set of register classes an operand may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassSet(u8);

impl ClassSet {
    pub const R: ClassSet = ClassSet(1);
    pub const B: ClassSet = ClassSet(2);
    pub const P: ClassSet = ClassSet(4);
    pub const G: ClassSet = ClassSet(8);
    pub const ANY: ClassSet = ClassSet(15);

    pub fn of(c: RegClass) -> ClassSet {
        match c {
            RegClass::R => ClassSet::R,
            RegClass::B => ClassSet::B,
            RegClass::P => ClassSet::P,
            RegClass::G => ClassSet::G,
        }
    }
    pub fn union(self, o: ClassSet) -> ClassSet {
        ClassSet(self.0 | o.0)
    }
    pub fn contains(self, c: RegClass) -> bool {
        self.0 & ClassSet::of(c).0 != 0
    }
    /// The class when the set has exactly one.
    pub fn single(self) -> Option<RegClass> {
        [RegClass::R, RegClass::B, RegClass::P, RegClass::G]
            .into_iter()
            .find(|&c| ClassSet::of(c) == self)
    }
}

impl fmt::Display for ClassSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = [RegClass::R, RegClass::B, RegClass::P, RegClass::G]
            .into_iter()
            .filter(|&c| self.contains(c))
            .map(|c| c.suffix())
            .collect();
        f.write_str(&names.join("|"))
    }
}

bitflags! {
    /// The immediate kinds an operation accepts.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct ImmKinds: u8 {
        const NONE = 1;
        const INT = 2;
        const SYM = 4;
        const BLOCK = 8;
        const FUNC = 16;
        const FRAME = 32;
        /// A value operand: integer, symbol address or frame offset.
        const VALUE = 2 | 4 | 32;
    }
}

/// Operand shape of a target operation (the guard of a guarded ST120 operation excluded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub defs: Vec<ClassSet>,
    pub uses: Vec<ClassSet>,
    /// Further definitions allowed beyond `defs` (call results), of these classes.
    pub extra_defs: Option<ClassSet>,
    /// Further uses allowed beyond `uses` (call and system-call arguments).
    pub extra_uses: Option<ClassSet>,
    /// At most this many extra uses.
    pub max_extra_uses: usize,
    /// Tied operands: (index in defs, index in uses).
    pub tied: Vec<(usize, usize)>,
    pub imm: ImmKinds,
}

impl Signature {
    fn new(defs: Vec<ClassSet>, uses: Vec<ClassSet>, imm: ImmKinds) -> Signature {
        Signature {
            defs,
            uses,
            extra_defs: None,
            extra_uses: None,
            max_extra_uses: 0,
            tied: Vec::new(),
            imm,
        }
    }
    fn variadic(mut self, defs: Option<ClassSet>, uses: ClassSet, max_uses: usize) -> Self {
        self.extra_defs = defs;
        self.extra_uses = Some(uses);
        self.max_extra_uses = max_uses;
        self
    }
    /// Allowed classes of definition `k`.
    pub fn def_class(&self, k: usize) -> Option<ClassSet> {
        self.defs.get(k).copied().or(self.extra_defs)
    }
    /// Allowed classes of use `k` (guard excluded).
    pub fn use_class(&self, k: usize) -> Option<ClassSet> {
        match self.uses.get(k) {
            Some(&c) => Some(c),
            None if k - self.uses.len() < self.max_extra_uses => self.extra_uses,
            None => None,
        }
    }
}

/// Operand shape of `inst` on target `t` (pseudo-operations get an unconstrained shape; the
/// verifier checks them separately).
pub fn signature(_t: Target, inst: &Inst) -> Signature {
    match inst.opc {
        Opc::St231(o) => st231_signature(o, &inst.imm),
        Opc::St120(o) => st120_signature(o),
        _ => Signature::new(vec![], vec![], ImmKinds::all()).variadic(
            Some(ClassSet::ANY),
            ClassSet::ANY,
            usize::MAX,
        ),
    }
}

fn st231_signature(o: st231::Opcode, imm: &Imm) -> Signature {
    use st231::Format as F;
    use ClassSet as C;
    let info = o.info();
    let has_imm = !matches!(imm, Imm::None);
    // The second source: a register, or the immediate.
    let second = |mut uses: Vec<ClassSet>| {
        if !has_imm {
            uses.push(C::R);
        }
        uses
    };
    let value_imm = if has_imm {
        ImmKinds::VALUE
    } else {
        ImmKinds::NONE
    };
    let mem_imm = ImmKinds::NONE | ImmKinds::VALUE;
    match info.format {
        F::Binary => {
            let d = if info.props.contains(st231::OpProps::COMPARE) {
                C::R.union(C::B)
            } else {
                C::R
            };
            Signature::new(vec![d], second(vec![C::R]), value_imm)
        }
        F::Monadic => Signature::new(vec![C::R], vec![C::R], ImmKinds::NONE),
        F::Select => Signature::new(vec![C::R], second(vec![C::B, C::R]), value_imm),
        F::Carry => Signature::new(vec![C::R, C::B], vec![C::B, C::R, C::R], ImmKinds::NONE),
        F::Load => Signature::new(vec![C::R], vec![C::R], mem_imm),
        F::Store => Signature::new(vec![], vec![C::R, C::R], mem_imm),
        F::Prefetch => Signature::new(vec![], vec![C::R], mem_imm),
        F::Branch => Signature::new(vec![], vec![C::B], ImmKinds::BLOCK),
        F::Jump if o == st231::Opcode::Call => {
            Signature::new(vec![], vec![], ImmKinds::FUNC).variadic(Some(C::R), C::R, usize::MAX)
        }
        F::Jump => Signature::new(vec![], vec![], ImmKinds::BLOCK),
        F::Indirect => {
            let defs = (o == st231::Opcode::Icall).then_some(C::R);
            Signature::new(vec![], vec![], ImmKinds::NONE).variadic(defs, C::R, usize::MAX)
        }
        F::Syscall => Signature::new(vec![], vec![], ImmKinds::INT).variadic(None, C::R, 2),
        F::Nop => Signature::new(vec![], vec![], ImmKinds::NONE),
    }
}

fn class_of_120(c: st120::RegClass) -> ClassSet {
    match c {
        st120::RegClass::R => ClassSet::R,
        st120::RegClass::P => ClassSet::P,
        st120::RegClass::G => ClassSet::G,
    }
}

fn st120_signature(o: st120::Opcode) -> Signature {
    use st120::opcode::Operand as O;
    let info = o.info();
    let mut s = Signature::new(vec![], vec![], ImmKinds::NONE);
    for op in info.operands() {
        match *op {
            O::Def(c) => s.defs.push(class_of_120(c)),
            O::Use(c) => s.uses.push(class_of_120(c)),
            O::Tied(c) => {
                s.tied.push((s.defs.len(), s.uses.len()));
                s.defs.push(class_of_120(c));
                s.uses.push(class_of_120(c));
            }
            O::Imm(_) => s.imm = ImmKinds::VALUE,
            O::Target => {
                s.imm = if info.props.contains(st120::OpProps::CALL) {
                    ImmKinds::FUNC
                } else {
                    ImmKinds::BLOCK
                }
            }
        }
    }
    let rp = ClassSet::R.union(ClassSet::P);
    if info.props.contains(st120::OpProps::CALL) {
        s = s.variadic(Some(rp), rp, usize::MAX);
    } else if info.props.contains(st120::OpProps::SYSCALL) {
        s = s.variadic(None, rp, 2);
    }
    s
}

/// Verifies every function of a module, plus module-level facts: each function's target is
/// the module's, called functions exist, symbols name a global or a function.
pub fn verify_module(m: &Module, form: Form) -> Vec<VerifyError> {
    let mut errs = Vec::new();
    let exists = |name: &str| {
        m.functions.iter().any(|f| f.name == name) || m.globals.iter().any(|g| g.name == name)
    };
    for f in &m.functions {
        if f.target != m.target {
            errs.push(VerifyError {
                function: f.name.clone(),
                block: None,
                inst: None,
                text: String::new(),
                message: format!("function is for {} in a {} module", f.target, m.target),
            });
        }
        errs.extend(verify_function(f, form));
        for (b, block) in f.blocks.iter().enumerate() {
            for (k, inst) in block.insts.iter().enumerate() {
                let missing = match &inst.imm {
                    Imm::Func(n) if !m.functions.iter().any(|g| &g.name == n) => {
                        Some(format!("call to unknown function @{n}"))
                    }
                    Imm::Sym { name, .. } if !exists(name) => {
                        Some(format!("unknown symbol @{name}"))
                    }
                    _ => None,
                };
                if let Some(message) = missing {
                    errs.push(VerifyError {
                        function: f.name.clone(),
                        block: Some(BlockId(b as u32)),
                        inst: Some(k),
                        text: inst_to_string(f, inst),
                        message,
                    });
                }
            }
        }
    }
    errs
}

/// Verifies one function against the invariants of `form`; returns every violation found.
pub fn verify_function(f: &Function, form: Form) -> Vec<VerifyError> {
    let mut v = Verifier {
        f,
        form,
        errs: Vec::new(),
    };
    v.function();
    v.errs
}

struct Verifier<'a> {
    f: &'a Function,
    form: Form,
    errs: Vec<VerifyError>,
}

impl<'a> Verifier<'a> {
    fn err(&mut self, b: Option<BlockId>, k: Option<usize>, message: String) {
        let text = match (b, k) {
            (Some(b), Some(k)) => self
                .f
                .blocks
                .get(b.index())
                .and_then(|bl| bl.insts.get(k))
                .map(|i| inst_to_string(self.f, i))
                .unwrap_or_default(),
            _ => String::new(),
        };
        self.errs.push(VerifyError {
            function: self.f.name.clone(),
            block: b,
            inst: k,
            text,
            message,
        });
    }

    fn at(&mut self, b: BlockId, k: usize, message: String) {
        self.err(Some(b), Some(k), message);
    }

    fn function(&mut self) {
        let f = self.f;
        if f.blocks.is_empty() {
            self.err(None, None, "function has no blocks".into());
            return;
        }
        match self.form {
            Form::Final if !f.frame.finalized => {
                self.err(None, None, "final form needs a finalized frame".into())
            }
            Form::Ssa | Form::Allocation if f.frame.finalized => self.err(
                None,
                None,
                "frame is finalized before register allocation".into(),
            ),
            _ => {}
        }
        for b in f.block_ids() {
            self.block_structure(b);
            for k in 0..f.block(b).insts.len() {
                self.inst(b, k);
            }
        }
        match self.form {
            Form::Ssa => self.ssa(),
            Form::AllocatedSsa => {
                self.ssa();
                self.registers_consistent();
            }
            Form::Allocation => self.b_values_local(),
            _ => {}
        }
    }

    fn block_structure(&mut self, b: BlockId) {
        let f = self.f;
        let block = f.block(b);
        let n = block.insts.len();
        let Some(last) = block.insts.last() else {
            self.err(
                Some(b),
                None,
                "empty block (it needs a control operation)".into(),
            );
            return;
        };
        if !matches!(last.control(), Control::Jump | Control::Return) {
            self.at(
                b,
                n - 1,
                "block does not end with an unconditional control operation".into(),
            );
        }
        let mut seen_non_phi = false;
        let mut seen_terminator = false;
        for (k, inst) in block.insts.iter().enumerate() {
            if inst.is_phi() {
                if seen_non_phi {
                    self.at(b, k, "phi after a non-phi instruction".into());
                }
            } else {
                seen_non_phi = true;
            }
            if inst.is_terminator() {
                if matches!(inst.control(), Control::Jump | Control::Return) && k + 1 != n {
                    self.at(
                        b,
                        k,
                        "unconditional control operation before the block end".into(),
                    );
                }
                seen_terminator = true;
            } else if seen_terminator {
                self.at(b, k, "instruction after a branch".into());
            }
            if let Some(t) = inst.branch_target() {
                if t.index() >= f.blocks.len() {
                    self.at(b, k, format!("branch to missing block {t}"));
                }
            }
            if inst.opc == Opc::Input && (b.0 != 0 || k != 0) {
                self.at(
                    b,
                    k,
                    "`.input` must be the first instruction of the entry block".into(),
                );
            }
            if inst.opc == Opc::Output
                && matches!(self.form, Form::Ssa | Form::Allocation)
                && !(k + 2 == n && last.control() == Control::Return)
            {
                self.at(b, k, "`.output` must come right before the return".into());
            }
        }
    }

    /// The class of a register operand, or an error when a vreg is out of range.
    fn class(&mut self, b: BlockId, k: usize, r: Reg) -> Option<RegClass> {
        match r {
            Reg::V(v) if v.index() < self.f.vregs.len() => Some(self.f.class_of(v)),
            Reg::V(v) => {
                self.at(b, k, format!("{v} has no entry in the vreg table"));
                None
            }
            Reg::P(p) => {
                if num_regs(self.f.target, p.class) <= p.num {
                    self.at(
                        b,
                        k,
                        format!("physical register {:?} {} does not exist", p.class, p.num),
                    );
                    return None;
                }
                Some(p.class)
            }
        }
    }

    fn inst(&mut self, b: BlockId, k: usize) {
        let f = self.f;
        let t = f.target;
        let inst = &f.block(b).insts[k];
        let physical_form = matches!(self.form, Form::Allocated | Form::Final);
        // Operation belongs to the target.
        match (inst.opc, t) {
            (Opc::St231(_), Target::St120) | (Opc::St120(_), Target::St231) => {
                self.at(b, k, format!("operation of the wrong target for {t}"));
                return;
            }
            _ => {}
        }
        let ssa_form = matches!(self.form, Form::Ssa | Form::AllocatedSsa);
        let par_copy_ok = ssa_form || self.form == Form::Allocated;
        if matches!(inst.opc, Opc::Phi | Opc::Psi) && !ssa_form
            || inst.opc == Opc::ParCopy && !par_copy_ok
        {
            self.at(b, k, format!("{:?} is not allowed after SSA", inst.opc));
        }
        // Registers, pins.
        for (is_def, o) in inst
            .defs
            .iter()
            .map(|o| (true, o))
            .chain(inst.uses.iter().map(|o| (false, o)))
        {
            let Some(c) = self.class(b, k, o.reg) else {
                continue;
            };
            if physical_form {
                if let Reg::V(v) = o.reg {
                    self.at(
                        b,
                        k,
                        format!("virtual register {v} in {:?} form", self.form),
                    );
                }
            }
            match o.pin {
                Some(Pin::Phys(p)) => {
                    if p.class != c {
                        self.at(b, k, "pin to a register of another class".into());
                    } else if physical_form && o.reg != Reg::P(p) {
                        self.at(b, k, "operand is not in its pinned register".into());
                    }
                }
                Some(Pin::Var(d)) => {
                    if is_def {
                        self.at(b, k, "a definition pinned to a variable".into());
                    } else if !physical_form && !inst.def_vregs().any(|x| x == d) {
                        self.at(
                            b,
                            k,
                            format!("tied use pinned to {d}, not a definition here"),
                        );
                    } else if self.form == Form::Allocation && o.reg != Reg::V(d) {
                        self.at(
                            b,
                            k,
                            format!("tied use is not {d} itself in allocation form"),
                        );
                    }
                }
                None => {}
            }
            if is_def && t == Target::St120 && o.reg == Reg::P(PReg::new(RegClass::G, 15)) {
                self.at(b, k, "G15 is always true and cannot be written".into());
            }
        }
        if let Imm::Frame { idx, .. } = inst.imm {
            if idx.0 as usize >= f.frame.objects.len() {
                self.at(b, k, format!("frame object {idx} does not exist"));
            }
            if self.form == Form::Final {
                self.at(b, k, "unresolved frame offset in final form".into());
            }
        }
        match inst.opc {
            Opc::St231(_) | Opc::St120(_) => self.target_op(b, k),
            _ => self.pseudo(b, k),
        }
    }

    /// `what` names the operand (`guard`, `definition 1`); it is formatted only on an error.
    fn check_class(
        &mut self,
        b: BlockId,
        k: usize,
        r: Reg,
        allowed: ClassSet,
        what: &dyn fmt::Display,
    ) {
        if let Some(c) = self.class(b, k, r) {
            if !allowed.contains(c) {
                self.at(
                    b,
                    k,
                    format!("{what} has class {} (expected {allowed})", c.suffix()),
                );
            }
        }
    }

    fn target_op(&mut self, b: BlockId, k: usize) {
        let f = self.f;
        let inst = &f.block(b).insts[k];
        let sig = signature(f.target, inst);
        let guarded = inst.flags.contains(InstFlags::GUARDED);
        if guarded && f.target == Target::St231 {
            self.at(b, k, "ST231 operations are not guarded".into());
        }
        let mut uses: &[Operand] = &inst.uses;
        if guarded {
            match uses.split_last() {
                Some((g, rest)) => {
                    self.check_class(b, k, g.reg, ClassSet::G, &"guard");
                    uses = rest;
                }
                None => self.at(b, k, "guarded operation without a guard".into()),
            }
        }
        if let Opc::St120(o) = inst.opc {
            if guarded && o.info().props.contains(st120::OpProps::UNGUARDED) {
                self.at(b, k, "this operation cannot be guarded".into());
            }
            if o == st120::Opcode::GotoF && !guarded {
                self.at(b, k, "GOTO.f needs a guard".into());
            }
            if !o.is_valid() {
                self.at(b, k, "operation does not exist".into());
            }
        }
        let def_ok = inst.defs.len() == sig.defs.len()
            || (inst.defs.len() > sig.defs.len() && sig.extra_defs.is_some());
        let use_ok = uses.len() == sig.uses.len()
            || (uses.len() > sig.uses.len()
                && sig.extra_uses.is_some()
                && uses.len() - sig.uses.len() <= sig.max_extra_uses);
        if !def_ok || !use_ok {
            self.at(
                b,
                k,
                format!(
                    "operand count: {} definitions and {} uses (expected {}{} and {}{})",
                    inst.defs.len(),
                    uses.len(),
                    sig.defs.len(),
                    if sig.extra_defs.is_some() { "+" } else { "" },
                    sig.uses.len(),
                    if sig.extra_uses.is_some() { "+" } else { "" },
                ),
            );
            return;
        }
        for (i, d) in inst.defs.iter().enumerate() {
            if let Some(c) = sig.def_class(i) {
                self.check_class(b, k, d.reg, c, &format_args!("definition {i}"));
            }
        }
        for (i, u) in uses.iter().enumerate() {
            if let Some(c) = sig.use_class(i) {
                self.check_class(b, k, u.reg, c, &format_args!("use {i}"));
            }
        }
        for &(di, ui) in &sig.tied {
            let (d, u) = (inst.defs[di], uses[ui]);
            match self.form {
                Form::Ssa | Form::AllocatedSsa => {
                    if u.pin != d.reg.vreg().map(Pin::Var) {
                        self.at(
                            b,
                            k,
                            format!("tied use {ui} is not pinned to definition {di}"),
                        );
                    }
                }
                _ => {
                    if u.reg != d.reg {
                        self.at(b, k, format!("tied use {ui} differs from definition {di}"));
                    }
                }
            }
        }
        let kind = imm_kind(&inst.imm);
        if !sig.imm.contains(kind) {
            self.at(b, k, format!("immediate {:?} not accepted here", inst.imm));
        }
        if self.form == Form::Final {
            self.final_imm_range(b, k);
        }
    }

    /// In final form ST120 immediates must fit their fields (ST231 has long immediates).
    fn final_imm_range(&mut self, b: BlockId, k: usize) {
        let inst = &self.f.block(b).insts[k];
        if let (Opc::St120(o), Imm::Int(v)) = (inst.opc, &inst.imm) {
            if let Some(field) = o.info().imm() {
                if !field.contains(i64::from(*v)) {
                    let (lo, hi) = field.range();
                    self.at(b, k, format!("immediate {v} out of range {lo}..={hi}"));
                }
            }
        }
        if let (Opc::St231(st231::Opcode::Syscall), Imm::Int(v)) = (inst.opc, &inst.imm) {
            if !(0..1 << 21).contains(v) {
                self.at(b, k, format!("system call number {v} out of range"));
            }
        }
    }

    fn pseudo(&mut self, b: BlockId, k: usize) {
        let f = self.f;
        let inst = &f.block(b).insts[k];
        let classes = |v: &mut Self, ops: &[Operand]| -> Vec<Option<RegClass>> {
            ops.iter().map(|o| v.class(b, k, o.reg)).collect()
        };
        let dc = classes(self, &inst.defs);
        let uc = classes(self, &inst.uses);
        if !matches!(inst.imm, Imm::None) && !(inst.opc == Opc::Phi) {
            self.at(b, k, "pseudo-operation with an immediate".into());
        }
        // ST120 copies may be guarded (out-of-SSA lowers psis to guarded copies; emission
        // makes them guarded MOVEs): the guard is the last use.
        let guarded_copy = inst.opc == Opc::Copy && f.target == Target::St120;
        let mut uc = uc;
        if inst.flags.contains(InstFlags::GUARDED) {
            if !guarded_copy {
                self.at(b, k, "pseudo-operations are not guarded".into());
            } else if uc.pop().flatten().is_some_and(|g| g != RegClass::G) {
                self.at(b, k, "guard of a copy is not of class g".into());
            }
        }
        match inst.opc {
            Opc::Copy | Opc::ParCopy => {
                if (inst.opc == Opc::Copy && inst.defs.len() != 1) || inst.defs.len() != uc.len() {
                    self.at(b, k, "copy needs as many sources as destinations".into());
                    return;
                }
                for (i, (d, u)) in dc.iter().zip(&uc).enumerate() {
                    if let (Some(d), Some(u)) = (d, u) {
                        if d != u {
                            self.at(
                                b,
                                k,
                                format!(
                                    "copy {i} between classes {} and {}",
                                    d.suffix(),
                                    u.suffix()
                                ),
                            );
                        }
                    }
                }
                if f.target == Target::St231
                    && matches!(self.form, Form::Ssa | Form::AllocatedSsa)
                    && dc.contains(&Some(RegClass::B))
                {
                    self.at(b, k, "no copies of B values in ST231 SSA".into());
                }
            }
            Opc::Phi => {
                if inst.defs.len() != 1 {
                    self.at(b, k, "phi needs one definition".into());
                    return;
                }
                if !matches!(inst.imm, Imm::Blocks(ref bl) if bl.len() == inst.uses.len()) {
                    self.at(b, k, "phi needs one predecessor block per operand".into());
                }
                for u in uc.iter().flatten() {
                    if Some(*u) != dc[0] {
                        self.at(b, k, "phi operand of another class".into());
                    }
                }
                if dc[0] == Some(RegClass::B) && f.target == Target::St231 {
                    self.at(b, k, "no B phis on ST231".into());
                }
            }
            Opc::Psi => {
                if inst.defs.len() != 1
                    || inst.uses.is_empty()
                    || !inst.uses.len().is_multiple_of(2)
                {
                    self.at(
                        b,
                        k,
                        "psi needs one definition and (guard, value) pairs".into(),
                    );
                    return;
                }
                let gk = if f.target == Target::St231 {
                    RegClass::B
                } else {
                    RegClass::G
                };
                for (i, pair) in uc.chunks(2).enumerate() {
                    if pair[0].is_some_and(|c| c != gk) {
                        self.at(
                            b,
                            k,
                            format!("psi guard {i} is not of class {}", gk.suffix()),
                        );
                    }
                    if pair[1].is_some() && pair[1] != dc[0] {
                        self.at(b, k, format!("psi value {i} of another class"));
                    }
                }
            }
            Opc::Input | Opc::Output => {
                let (ops, bad) = if inst.opc == Opc::Input {
                    (&inst.defs, !inst.uses.is_empty())
                } else {
                    (&inst.uses, !inst.defs.is_empty())
                };
                if bad {
                    self.at(b, k, "`.input` only defines and `.output` only uses".into());
                }
                for o in ops {
                    if !matches!(o.pin, Some(Pin::Phys(_))) {
                        self.at(
                            b,
                            k,
                            "`.input`/`.output` operands must be pinned to registers".into(),
                        );
                    }
                }
            }
            Opc::St231(_) | Opc::St120(_) => {}
        }
    }

    /// Allocated-SSA form: every vreg operand pinned to one physical register, the same at
    /// every occurrence; a tied use's value in the register of the definition.
    fn registers_consistent(&mut self) {
        let f = self.f;
        let mut reg: Vec<Option<PReg>> = vec![None; f.vregs.len()];
        for b in f.block_ids() {
            for (k, inst) in f.block(b).insts.iter().enumerate() {
                for o in inst.defs.iter().chain(&inst.uses) {
                    let Some(v) = o.vreg() else { continue };
                    let Some(Pin::Phys(p)) = o.pin else {
                        if !matches!(o.pin, Some(Pin::Var(_))) {
                            self.at(b, k, format!("{v} has no register in allocated-SSA form"));
                        }
                        continue;
                    };
                    match reg.get(v.index()).copied().flatten() {
                        Some(q) if q != p => {
                            self.at(b, k, format!("{v} is in two registers ({q:?} and {p:?})"))
                        }
                        _ => {
                            if let Some(r) = reg.get_mut(v.index()) {
                                *r = Some(p);
                            }
                        }
                    }
                }
            }
        }
        for b in f.block_ids() {
            for (k, inst) in f.block(b).insts.iter().enumerate() {
                for u in &inst.uses {
                    let (Some(v), Some(Pin::Var(d))) = (u.vreg(), u.pin) else {
                        continue;
                    };
                    let (rv, rd) = (reg[v.index()], reg.get(d.index()).copied().flatten());
                    if rv.is_some() && rv != rd {
                        self.at(b, k, format!("tied use {v} is not in the register of {d}"));
                    }
                }
            }
        }
    }

    /// SSA form: single definitions, dominance, phi arity and blocks, B locality.
    fn ssa(&mut self) {
        let f = self.f;
        let n = f.vregs.len();
        let mut def_at: Vec<Option<(BlockId, usize)>> = vec![None; n];
        for b in f.block_ids() {
            for (k, inst) in f.block(b).insts.iter().enumerate() {
                for v in inst.def_vregs() {
                    if v.index() >= n {
                        continue;
                    }
                    if def_at[v.index()].is_some() {
                        self.at(b, k, format!("{v} is defined more than once"));
                    } else {
                        def_at[v.index()] = Some((b, k));
                    }
                }
            }
        }
        let info = CfgInfo::compute(f);
        let preds = f.predecessors();
        for b in f.block_ids() {
            let reachable = info.is_reachable(b);
            for (k, inst) in f.block(b).insts.iter().enumerate() {
                if inst.is_phi() {
                    let mut pb: Vec<BlockId> = inst.phi_blocks().to_vec();
                    pb.sort();
                    let dup = pb.windows(2).any(|w| w[0] == w[1]);
                    pb.dedup();
                    if dup || pb != preds[b.index()] {
                        self.at(
                            b,
                            k,
                            format!(
                                "phi blocks {:?} are not the predecessors {:?}",
                                inst.phi_blocks().iter().map(|x| x.0).collect::<Vec<_>>(),
                                preds[b.index()].iter().map(|x| x.0).collect::<Vec<_>>()
                            ),
                        );
                    }
                }
                for (ui, u) in inst.uses.iter().enumerate() {
                    let Some(v) = u.vreg() else { continue };
                    if v.index() >= n {
                        continue;
                    }
                    let Some((db, dk)) = def_at[v.index()] else {
                        self.at(b, k, format!("{v} is used but never defined"));
                        continue;
                    };
                    if !reachable {
                        continue;
                    }
                    let ok = if inst.is_phi() {
                        match inst.phi_blocks().get(ui) {
                            Some(&p) if p.index() < f.blocks.len() && info.is_reachable(p) => {
                                db == p || info.dominates(db, p)
                            }
                            _ => true,
                        }
                    } else if db == b {
                        dk < k
                    } else {
                        info.dominates(db, b)
                    };
                    if !ok {
                        self.at(
                            b,
                            k,
                            format!("{v} is used where its definition does not dominate"),
                        );
                    }
                }
            }
        }
        self.b_values_local();
    }

    /// ST231: every `B` vreg is defined and used in the same block.
    fn b_values_local(&mut self) {
        let f = self.f;
        if f.target != Target::St231 {
            return;
        }
        let mut home: Vec<Option<BlockId>> = vec![None; f.vregs.len()];
        for b in f.block_ids() {
            for inst in &f.block(b).insts {
                for v in inst.def_vregs() {
                    if v.index() < home.len() && f.class_of(v) == RegClass::B {
                        home[v.index()].get_or_insert(b);
                    }
                }
            }
        }
        for b in f.block_ids() {
            for (k, inst) in f.block(b).insts.iter().enumerate() {
                for v in inst.use_vregs().chain(inst.def_vregs()) {
                    if v.index() < home.len() && f.class_of(v) == RegClass::B {
                        if let Some(h) = home[v.index()] {
                            if h != b {
                                self.at(b, k, format!("B value {v} of {h} used in another block"));
                            }
                        }
                    }
                }
            }
        }
    }
}

fn imm_kind(imm: &Imm) -> ImmKinds {
    match imm {
        Imm::None => ImmKinds::NONE,
        Imm::Int(_) => ImmKinds::INT,
        Imm::Sym { .. } => ImmKinds::SYM,
        Imm::Block(_) => ImmKinds::BLOCK,
        Imm::Func(_) => ImmKinds::FUNC,
        Imm::Frame { .. } => ImmKinds::FRAME,
        Imm::Blocks(_) => ImmKinds::empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::parse::parse_function;

    const SSA_OK: &str = r#"mfunc @dot st231 {
  frame f0 size 40 align 4 local "buf"
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:r = add %0, #5
  %3:b = cmplt %2, %1
  br %3, b2
  goto b1
b1:
  %4:r = ldw %0, f0+4
  %5:r = copy %4 !copy
  %6:r, %7:r = parcopy %5, %4 !copy
  %8:r^$r16 = call %6^$r16, fn @g
  goto b2
b2:
  %9:r = phi [b0: %2], [b1: %8]
  .output %9^$r16
  return
}
"#;

    fn check(src: &str, form: Form) -> Vec<String> {
        let f = parse_function(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        verify_function(&f, form)
            .into_iter()
            .map(|e| e.to_string())
            .collect()
    }

    /// `src` with `from` replaced by `to` must give an error mentioning `needle`.
    fn expect(src: &str, from: &str, to: &str, form: Form, needle: &str) {
        assert!(src.contains(from), "{from}");
        let errs = check(&src.replacen(from, to, 1), form);
        assert!(
            errs.iter().any(|e| e.contains(needle)),
            "expected `{needle}` in {errs:#?}"
        );
    }

    #[test]
    fn well_formed_ssa_passes() {
        assert_eq!(check(SSA_OK, Form::Ssa), Vec::<String>::new());
    }

    #[test]
    fn block_structure() {
        let s = SSA_OK;
        expect(
            s,
            "  goto b1\n",
            "",
            Form::Ssa,
            "does not end with an unconditional",
        );
        expect(
            s,
            "  br %3, b2\n  goto b1\n",
            "  goto b1\n  br %3, b2\n",
            Form::Ssa,
            "before the block end",
        );
        expect(s, "br %3, b2", "br %3, b7", Form::Ssa, "missing block b7");
        expect(
            s,
            "  %9:r = phi [b0: %2], [b1: %8]\n  .output",
            "  .output %2^$r16\n  %9:r = phi [b0: %2], [b1: %8]\n  .output",
            Form::Ssa,
            "phi after",
        );
        expect(
            s,
            "  %4:r = ldw %0, f0+4\n",
            "  %4:r = ldw %0, f0+4\n  %0:r^$r16 = .input\n",
            Form::Ssa,
            "first instruction of the entry block",
        );
        expect(
            s,
            "  .output %9^$r16\n",
            "  .output %9^$r16\n  %10:r = copy %9\n",
            Form::Ssa,
            "right before the return",
        );
    }

    #[test]
    fn operands_classes_and_immediates() {
        let s = SSA_OK;
        expect(s, "add %0, #5", "add %0", Form::Ssa, "operand count");
        expect(
            s,
            "%2:r = add",
            "%2:b = add",
            Form::Ssa,
            "definition 0 has class b",
        );
        expect(s, "br %3, b2", "br %2, b2", Form::Ssa, "use 0 has class r");
        expect(s, "br %3, b2", "br %3, #4", Form::Ssa, "immediate");
        expect(
            s,
            "ldw %0, f0+4",
            "ldw %0, f3",
            Form::Ssa,
            "frame object f3 does not exist",
        );
        expect(
            s,
            "%8:r^$r16 = call",
            "%8:r^$b1 = call",
            Form::Ssa,
            "another class",
        );
        expect(
            s,
            "%5:r = copy %4",
            "%5:r = copy %3",
            Form::Ssa,
            "between classes",
        );
    }

    #[test]
    fn ssa_rules() {
        let s = SSA_OK;
        expect(
            s,
            "%5:r = copy %4",
            "%2:r = copy %4",
            Form::Ssa,
            "defined more than once",
        );
        expect(
            s,
            "%2:r = add %0, #5",
            "%2:r = add %4, #5",
            Form::Ssa,
            "does not dominate",
        );
        expect(
            s,
            "%2:r = add %0, #5",
            "%2:r = add %2, #5",
            Form::Ssa,
            "does not dominate",
        );
        expect(
            s,
            "[b0: %2], [b1: %8]",
            "[b0: %2]",
            Form::Ssa,
            "not the predecessors",
        );
        expect(
            s,
            "[b0: %2], [b1: %8]",
            "[b0: %2], [b0: %8]",
            Form::Ssa,
            "not the predecessors",
        );
        expect(
            s,
            "[b0: %2], [b1: %8]",
            "[b0: %8], [b1: %8]",
            Form::Ssa,
            "does not dominate",
        );
        expect(
            s,
            "%4:r = ldw %0, f0+4",
            "%4:r = slct %3, %0, %1",
            Form::Ssa,
            "B value %3 of b0 used in another block",
        );
        // The same B rule in allocation form.
        let alloc = s
            .replace("  %6:r, %7:r = parcopy %5, %4 !copy\n", "")
            .replace("%9:r = phi [b0: %2], [b1: %8]", "%9:r = copy %8");
        assert_eq!(check(&alloc, Form::Allocation), Vec::<String>::new());
        expect(
            &alloc,
            "%4:r = ldw %0, f0+4",
            "%4:r = slct %3, %0, %1",
            Form::Allocation,
            "B value",
        );
        // Allocation form forbids phis and parallel copies.
        let errs = check(s, Form::Allocation);
        assert!(
            errs.iter().any(|e| e.contains("Phi is not allowed")),
            "{errs:?}"
        );
        assert!(
            errs.iter().any(|e| e.contains("ParCopy is not allowed")),
            "{errs:?}"
        );
    }

    #[test]
    fn st120_tied_guards_and_pins() {
        let src = "mfunc @k st120 {
b0:
  %0:p^P0 = .input
  %1:g = LTA %0, %0
  %3:r, %4:p = %1? LDW!+i %0^%4, #1
  %5:r = MAKE #3
  %6:r = MORE %5^%6, lo(@x)
  G0? GOTO.f b0
  GOTO b1
b1:
  .output %6^R0
  RTS
}";
        assert_eq!(check(src, Form::Ssa), Vec::<String>::new());
        expect(src, "%0^%4", "%0", Form::Ssa, "not pinned to definition");
        expect(src, "%0^%4", "%0^%5", Form::Ssa, "not a definition here");
        expect(src, "%1? LDW", "%5? LDW", Form::Ssa, "guard has class r");
        expect(src, "G0? GOTO.f", "GOTO.f", Form::Ssa, "needs a guard");
        expect(
            src,
            "  GOTO b1",
            "  G1? GOTO b1\n  GOTO b1",
            Form::Ssa,
            "cannot be guarded",
        );
        expect(src, "%1:g = LTA", "G15 = LTA", Form::Ssa, "G15");
        expect(
            src,
            "%1:g = LTA %0, %0",
            "%1:g = LTA %0, %5",
            Form::Ssa,
            "use 1 has class r",
        );
        // allocation form: the tied use must be the definition's vreg itself
        expect(
            src,
            "%5^%6, lo(@x)",
            "%5^%6, lo(@x)",
            Form::Allocation,
            "not %6 itself",
        );
    }

    #[test]
    fn guarded_copies_only_on_st120() {
        let src = "mfunc @f st120 {\nb0:\n  %0:g = SETG\n  %1:r = MAKE #1\n  %2:r = %0? copy %1 !copy\n  RTS\n}";
        assert_eq!(check(src, Form::Allocation), Vec::<String>::new());
        expect(
            src,
            "%0? copy %1",
            "%1? copy %1",
            Form::Allocation,
            "not of class g",
        );
        expect(
            src,
            "%0? copy %1",
            "%0? parcopy %1",
            Form::Allocation,
            "not guarded",
        );
    }

    #[test]
    fn allocated_and_final_forms() {
        let src = "mfunc @f st231 {
  frame f0 size 4 align 4 spill \"s\"
b0:
  $r16^$r16 = .input
  $r8 = add $r16, #1
  stw $r12, $r8, f0 !spill_store
  $r16 = ldw $r12, f0 !spill_load
  .output $r16^$r16
  return
}";
        assert_eq!(check(src, Form::Allocated), Vec::<String>::new());
        expect(
            src,
            "$r8 = add",
            "%8:r = add",
            Form::Allocated,
            "virtual register %8",
        );
        expect(
            src,
            ".output $r16^$r16",
            ".output $r17^$r16",
            Form::Allocated,
            "not in its pinned register",
        );
        let errs = check(src, Form::Final);
        assert!(errs.iter().any(|e| e.contains("finalized")), "{errs:?}");
        assert!(
            errs.iter().any(|e| e.contains("unresolved frame offset")),
            "{errs:?}"
        );
        let fin = src
            .replace(
                "  frame f0 size 4 align 4 spill \"s\"\n",
                "  frame f0 size 4 align 4 spill \"s\"\n  layout size 8 offsets [0] finalized\n",
            )
            .replace("f0 !", "#0 !");
        assert_eq!(check(&fin, Form::Final), Vec::<String>::new());
        assert!(
            !check(&fin, Form::Ssa).is_empty(),
            "finalized before allocation"
        );
        // ST120 immediates must fit their field in final form.
        let st120 = "mfunc @f st120 {\n  layout size 0 offsets [] finalized\nb0:\n  R1 = ADD.i R1, #300\n  RTS\n}";
        let errs = check(st120, Form::Final);
        assert!(errs.iter().any(|e| e.contains("out of range")), "{errs:?}");
    }

    #[test]
    fn errors_name_function_block_and_instruction() {
        let errs = check(&SSA_OK.replace("add %0, #5", "add %0"), Form::Ssa);
        assert!(
            errs[0].starts_with("@dot b0[1] `%2:r = add %0`: operand count"),
            "{errs:?}"
        );
    }

    #[test]
    fn module_checks_callees_and_symbols() {
        let text = format!("global @x size 4 align 4 = zero\n{SSA_OK}");
        let m = crate::mir::parse::parse_module(&text).unwrap();
        let errs: Vec<String> = verify_module(&m, Form::Ssa)
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert!(
            errs.iter().any(|e| e.contains("unknown function @g")),
            "{errs:?}"
        );
        let text = text.replace("fn @g", "fn @dot");
        let m = crate::mir::parse::parse_module(&text).unwrap();
        assert!(verify_module(&m, Form::Ssa).is_empty());
    }
}
