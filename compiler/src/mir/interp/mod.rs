//! The machine-level IR interpreter: runs a [`Module`] in any of the four forms of
//! `docs/design.md` — SSA (phis, parallel copies, psis, pins), allocation form, allocated
//! form and final form — so that every back-end stage can be checked against the program's
//! result. Every target operation executes through the simulator's pure semantic functions
//! (`simulator::isa::st231::semantics`, `simulator::isa::st120::semantics::execute`); only
//! memory, branches, calls, returns and system calls are handled here.
//!
//! Semantics:
//! * values are 64-bit per register: ST231 `u32`, ST120 R 40-bit canonical `i64`, P `u32`,
//!   guards and `$b` 0/1; one physical register file per run (`$r0` reads 0, `G15` reads 1,
//!   writes to them are ignored); one vreg file per activation;
//! * phis read at block entry, all at once, the operand of the edge taken; a parallel copy
//!   reads all sources then writes; a psi takes the value of the last pair whose guard is
//!   true (no true guard: its definition keeps its value); a guarded ST120 operation (or
//!   guarded copy) whose guard is off writes nothing;
//! * pins: a use pinned `Phys(r)` writes its value into `r` before the operation, a
//!   definition pinned `Phys(r)` also writes `r`; `.input` definitions read their pinned
//!   registers; `.output` uses write theirs;
//! * calls transfer to the callee (recursion allowed, depth capped). After the return the
//!   call's pinned results are read, then every call-clobbered register
//!   (`mir::target::call_clobbers`) is **poisoned**: reading it before a write traps as
//!   undefined, which catches ABI bugs. Callee-saved registers: a callee whose frame is not
//!   finalized gets them restored at its return (the frame pass will add those saves); a
//!   finalized callee must preserve them itself, and the interpreter **checks** that it did
//!   (ST120 data registers compared on their low 32 bits, as the frame pass saves words),
//!   and that it returns through the return address it was given in the link register;
//! * frames: a non-finalized function gets a provisional frame below the caller's SP
//!   ([`prepare::provisional_layout`]); SP is moved for the callee and restored at its
//!   return; `Imm::Frame` becomes the object's offset in the operation's units. A finalized
//!   function's own prologue moves SP;
//! * undefined values: copies, phis, parallel copies, psis, `.input`/`.output` and
//!   operations flagged `COPY`/`SPILL_*`/`FRAME` carry "undefined" along (a store of an
//!   undefined value by spill or frame code is skipped); any other operation reading an
//!   undefined register traps;
//! * memory: [`simulator::machine::Memory`] (bounded, little-endian, alignment checked,
//!   addresses below `0x1000` unmapped); globals laid out from `0x1000` in module order with
//!   their initial bytes and relocations; functions get fake addresses from [`FUNC_BASE`];
//!   SP starts as the simulator's (ST231 top − 16, ST120 top), the link register as
//!   `HALT_ADDRESS`;
//! * system calls (ASSUMPTION, the project convention of `simulator::machine::output`:
//!   ST231 `syscall n` with `$r16`/`$r17`, ST120 `TRAP n` with `R0`/`P0`) are the
//!   simulator's `machine::syscall`: 1 exit, 2 print_int, 3 print_char, 4 write.
//!
//! Returning from the entry function ends the run with the result register (ST231 `$r16`,
//! ST120 `R0`; 0 if it was never written) as the exit code. Every abnormal stop is a [`Trap`]
//! naming the function, block, instruction (printed) and reason. Step cap: 100 M by default.
//!
//! Speed: functions are pre-resolved once ([`prepare`]); the run loop allocates nothing
//! per instruction (vreg files live on one growing stack). Complexity: O(steps).

pub mod prepare;

use crate::mir::print::inst_to_string;
use crate::mir::target::reg_name;
use crate::mir::{BlockId, InstFlags, Module, PReg, RegClass};
use prepare::{phys_index, Ctl120, Kind, Loc, PFunc, POp, Program, NUM_PHYS};
use simulator::isa::{st120, st231, Target};
use simulator::machine::{self, Memory, SyscallOutcome, HALT_ADDRESS};
use std::fmt;

/// Fake address of function 0; function `i` is at `FUNC_BASE + FUNC_STRIDE * i`.
pub const FUNC_BASE: u32 = 0xF000_0000;
pub const FUNC_STRIDE: u32 = 16;
/// Return addresses handed to callees in the link register: `RETURN_BASE + 4 * depth`.
const RETURN_BASE: u32 = 0xFF00_0000;

/// Limits of one run.
#[derive(Clone, Debug)]
pub struct InterpOptions {
    /// Executed instructions (phis included) before [`TrapKind::StepLimit`].
    pub max_steps: u64,
    /// Guest memory size in bytes.
    pub mem_size: u32,
    /// Deepest call nesting.
    pub max_depth: usize,
    /// Most output bytes.
    pub max_output: usize,
}

impl Default for InterpOptions {
    fn default() -> InterpOptions {
        InterpOptions {
            max_steps: 100_000_000,
            mem_size: machine::DEFAULT_MEM_SIZE,
            max_depth: 100_000,
            max_output: 64 << 20,
        }
    }
}

/// A completed run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub exit_code: i32,
    pub output: Vec<u8>,
    /// Instructions executed (phis included).
    pub steps: u64,
}

/// Why a run stopped abnormally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrapKind {
    /// A memory fault or system-call error, as the simulator reports it (bad address,
    /// misaligned access, unknown system call, output limit).
    Machine(machine::TrapKind),
    /// A register read before any write (or after a call clobbered it).
    Undefined(String),
    StepLimit(u64),
    CallDepth(usize),
    /// SP went below the end of the global data.
    StackOverflow,
    /// The entry function does not exist.
    NoEntry(String),
    /// An operation the interpreter cannot execute (unknown callee or symbol, bad branch,
    /// bad frame offset, unsupported operation ...).
    Bad(String),
    /// A finalized function did not preserve a callee-saved register.
    CalleeSaved {
        reg: String,
        callee: String,
    },
    /// A finalized function returned with a wrong return address in the link register.
    BadReturn {
        found: Option<u32>,
        expected: u32,
    },
}

impl fmt::Display for TrapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrapKind::Machine(k) => write!(f, "{k}"),
            TrapKind::Undefined(r) => write!(f, "read of undefined register {r}"),
            TrapKind::StepLimit(n) => write!(f, "step limit of {n} instructions reached"),
            TrapKind::CallDepth(n) => write!(f, "call depth limit of {n} exceeded"),
            TrapKind::StackOverflow => write!(f, "stack overflow into the global data"),
            TrapKind::NoEntry(n) => write!(f, "no function @{n} to start from"),
            TrapKind::Bad(why) => f.write_str(why),
            TrapKind::CalleeSaved { reg, callee } => {
                write!(f, "callee-saved register {reg} not preserved by @{callee}")
            }
            TrapKind::BadReturn { found, expected } => match found {
                Some(a) => write!(
                    f,
                    "return through link register value {a:#010x}, expected {expected:#010x}"
                ),
                None => write!(f, "return through an undefined link register"),
            },
        }
    }
}

/// A trap with its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trap {
    pub kind: TrapKind,
    pub function: String,
    pub block: BlockId,
    /// Index of the instruction in its block.
    pub inst: usize,
    /// The printed instruction.
    pub text: String,
    /// Instructions executed before the trap.
    pub steps: u64,
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "trap in @{} {}[{}] `{}`: {} (after {} steps)",
            self.function, self.block, self.inst, self.text, self.kind, self.steps
        )
    }
}

impl std::error::Error for Trap {}

/// Runs `m` from function `entry`.
pub fn run_module(m: &Module, entry: &str, opts: &InterpOptions) -> Result<Outcome, Trap> {
    let prog = prepare::prepare(m);
    let Some(&ei) = prog.func_index.get(entry) else {
        return Err(Trap {
            kind: TrapKind::NoEntry(entry.to_string()),
            function: entry.to_string(),
            block: BlockId(0),
            inst: 0,
            text: String::new(),
            steps: 0,
        });
    };
    let mut mach = Machine::new(m, &prog, opts).map_err(|k| Trap {
        kind: k,
        function: entry.to_string(),
        block: BlockId(0),
        inst: 0,
        text: String::new(),
        steps: 0,
    })?;
    let code = mach
        .run(ei)
        .map_err(|(k, func, pc)| mach.locate(k, func, pc))?;
    Ok(Outcome {
        exit_code: code,
        output: std::mem::take(&mut mach.output),
        steps: mach.steps,
    })
}

/// An activation waiting for its callee to return.
struct Act {
    func: u32,
    /// Position of the call instruction.
    call_pc: u32,
    block: u32,
    base: u32,
    /// SP to restore when the callee returns (callee frame not finalized).
    sp_restore: Option<i64>,
    /// Start of the callee-saved snapshot in `Machine::saved`.
    saved_at: u32,
    /// Return address given to the callee.
    cookie: u32,
}

/// Register files: the physical file of the run and the stack of vreg files.
struct Regs {
    phys: [i64; NUM_PHYS],
    pdef: [bool; NUM_PHYS],
    pconst: [bool; NUM_PHYS],
    /// Vreg values with their "defined" bit, one slice per activation.
    vals: Vec<(i64, bool)>,
}

impl Regs {
    #[inline(always)]
    fn get(&self, base: u32, op: &POp) -> (i64, bool) {
        match op.loc {
            Loc::V(i) => {
                let i = (base + i) as usize;
                self.vals[i]
            }
            Loc::P(r) => (self.phys[r as usize], self.pdef[r as usize]),
        }
    }
    #[inline(always)]
    fn set_phys(&mut self, r: u8, v: i64, d: bool) {
        let r = r as usize;
        if !self.pconst[r] {
            self.phys[r] = v;
            self.pdef[r] = d;
        }
    }
    /// Writes a definition (and its pinned register).
    #[inline(always)]
    fn set(&mut self, base: u32, op: &POp, v: i64, d: bool) {
        match op.loc {
            Loc::V(i) => {
                let i = (base + i) as usize;
                self.vals[i] = (v, d);
            }
            Loc::P(r) => self.set_phys(r, v, d),
        }
        if let Some(p) = op.pin {
            self.set_phys(p, v, d);
        }
    }
}

/// An error inside the run loop: kind, function index, position.
type Fault = (TrapKind, u32, u32);

struct Machine<'a> {
    m: &'a Module,
    prog: &'a Program,
    opts: &'a InterpOptions,
    mem: Memory,
    regs: Regs,
    stack: Vec<Act>,
    saved: Vec<(i64, bool)>,
    scratch: Vec<(i64, bool)>,
    output: Vec<u8>,
    steps: u64,
}

/// Adapts the simulator's memory to the ST120 semantics' `DataMemory`.
struct Mem<'a>(&'a mut Memory);

impl st120::semantics::DataMemory for Mem<'_> {
    type Error = machine::TrapKind;
    #[inline(always)]
    fn load(&mut self, addr: u32, size: u8) -> Result<u32, machine::TrapKind> {
        match size {
            1 => self.0.load8(addr),
            2 => self.0.load16(addr),
            _ => self.0.load32(addr),
        }
    }
    #[inline(always)]
    fn store(&mut self, addr: u32, size: u8, v: u32) -> Result<(), machine::TrapKind> {
        match size {
            1 => self.0.store8(addr, v),
            2 => self.0.store16(addr, v),
            _ => self.0.store32(addr, v),
        }
    }
}

/// What an executed instruction does to the control flow.
enum Next {
    Fall,
    Jump(u32),
    Call(u32),
    Return,
    Exit(i32),
}

impl<'a> Machine<'a> {
    fn new(m: &'a Module, prog: &'a Program, opts: &'a InterpOptions) -> Result<Self, TrapKind> {
        if opts.mem_size > machine::memory::MAX_MEM_SIZE {
            return Err(TrapKind::Bad(format!(
                "memory size {:#x} above the {:#x}-byte limit",
                opts.mem_size,
                machine::memory::MAX_MEM_SIZE
            )));
        }
        let mut mem = Memory::new(opts.mem_size);
        if u64::from(prog.data_end) > u64::from(opts.mem_size) {
            return Err(TrapKind::Bad(format!(
                "globals end at {:#x}, beyond the {:#x}-byte memory",
                prog.data_end, opts.mem_size
            )));
        }
        for (addr, bytes) in &prog.data {
            for (k, &b) in bytes.iter().enumerate() {
                mem.store8(addr + k as u32, u32::from(b))
                    .map_err(TrapKind::Machine)?;
            }
        }
        let mut regs = Regs {
            phys: [0; NUM_PHYS],
            pdef: [false; NUM_PHYS],
            pconst: [false; NUM_PHYS],
            vals: Vec::new(),
        };
        for &(r, v) in &prog.constant_regs {
            regs.phys[r as usize] = v;
            regs.pdef[r as usize] = true;
            regs.pconst[r as usize] = true;
        }
        // ASSUMPTION (same start-up as the simulators): SP at the top of memory aligned to 8,
        // minus the 16-byte scratch area on ST231; the link register holds HALT_ADDRESS.
        let top = i64::from(mem.initial_sp());
        let sp = match prog.target {
            Target::St231 => top - i64::from(st231::STACK_ARG_OFFSET),
            Target::St120 => top,
        };
        regs.set_phys(prog.sp, sp, true);
        regs.set_phys(prog.link, i64::from(HALT_ADDRESS), true);
        Ok(Machine {
            m,
            prog,
            opts,
            mem,
            regs,
            stack: Vec::new(),
            saved: Vec::new(),
            scratch: Vec::new(),
            output: Vec::new(),
            steps: 0,
        })
    }

    /// Turns a fault into a located trap.
    fn locate(&self, kind: TrapKind, func: u32, pc: u32) -> Trap {
        let pf = &self.prog.funcs[func as usize];
        let b = pf.block_of(pc);
        let k = (pc - pf.block_start[b]) as usize;
        let f = &self.m.functions[func as usize];
        let text = f
            .blocks
            .get(b)
            .and_then(|bl| bl.insts.get(k))
            .map(|i| inst_to_string(f, i))
            .unwrap_or_default();
        Trap {
            kind,
            function: pf.name.clone(),
            block: BlockId(b as u32),
            inst: k,
            text,
            steps: self.steps,
        }
    }

    /// Name of an operand's register for messages.
    fn op_name(&self, op: &POp) -> String {
        match op.loc {
            Loc::V(i) => format!("%{i}"),
            Loc::P(r) => self.phys_name(r),
        }
    }

    fn phys_name(&self, r: u8) -> String {
        let (class, num) = match r {
            0..=63 => (RegClass::R, r),
            64..=71 => (RegClass::B, r - 64),
            72..=87 => (RegClass::P, r - 72),
            _ => (RegClass::G, r - 88),
        };
        reg_name(self.prog.target, PReg::new(class, num))
    }

    /// Allocates the vreg file and frame of function `fi`; returns the new vreg base.
    fn enter(&mut self, fi: u32) -> Result<(u32, Option<i64>), TrapKind> {
        let pf = &self.prog.funcs[fi as usize];
        let base = self.regs.vals.len() as u32;
        let n = (base + pf.num_vregs) as usize;
        self.regs.vals.resize(n, (0, false));
        let mut sp_restore = None;
        if !pf.finalized {
            let sp_reg = self.prog.sp as usize;
            if !self.regs.pdef[sp_reg] {
                return Err(TrapKind::Undefined(self.phys_name(self.prog.sp)));
            }
            let sp = self.regs.phys[sp_reg];
            let new_sp = sp - i64::from(pf.frame_size);
            if new_sp < i64::from(self.prog.data_end) {
                return Err(TrapKind::StackOverflow);
            }
            sp_restore = Some(sp);
            self.regs.set_phys(self.prog.sp, new_sp, true);
        }
        Ok((base, sp_restore))
    }

    /// Evaluates the phis of block `b` entered from block `from` (all reads, then all writes).
    fn enter_block(
        &mut self,
        pf: &PFunc,
        base: u32,
        b: u32,
        from: Option<u32>,
    ) -> Result<u32, (TrapKind, u32)> {
        let start = pf.block_start[b as usize];
        let body = pf.block_body[b as usize];
        if start == body {
            return Ok(body);
        }
        let Some(from) = from else {
            return Err((TrapKind::Bad("phi in the entry block".into()), start));
        };
        self.scratch.clear();
        for pc in start..body {
            let inst = &pf.insts[pc as usize];
            let preds = &pf.phi_preds[inst.phi_preds.0 as usize..inst.phi_preds.1 as usize];
            let Some(k) = preds.iter().position(|&p| p == from) else {
                return Err((
                    TrapKind::Bad(format!("phi has no operand for the edge from b{from}")),
                    pc,
                ));
            };
            let op = &pf.ops[(inst.uses.0 + k as u32) as usize];
            let v = self.regs.get(base, op);
            self.scratch.push(v);
        }
        for (k, pc) in (start..body).enumerate() {
            let inst = &pf.insts[pc as usize];
            let (v, d) = self.scratch[k];
            if inst.defs.1 > inst.defs.0 {
                let op = pf.ops[inst.defs.0 as usize];
                self.regs.set(base, &op, v, d);
            }
        }
        self.steps += u64::from(body - start);
        Ok(body)
    }

    /// The run loop. Returns the exit code or a fault with its place.
    fn run(&mut self, entry: u32) -> Result<i32, Fault> {
        let prog = self.prog;
        let mut fi = entry;
        let (mut base, mut sp_restore) = self.enter(fi).map_err(|k| (k, fi, 0))?;
        let mut cookie = HALT_ADDRESS;
        let mut pf = &prog.funcs[fi as usize];
        let mut block = 0u32;
        let mut pc = self
            .enter_block(pf, base, 0, None)
            .map_err(|(k, p)| (k, fi, p))?;
        let mut block_end = pf.block_start[1];
        let max_steps = self.opts.max_steps;
        loop {
            if pc >= block_end {
                return Err((
                    TrapKind::Bad(format!(
                        "fell off the end of b{block} (no control operation)"
                    )),
                    fi,
                    block_end.saturating_sub(1),
                ));
            }
            self.steps += 1;
            if self.steps > max_steps {
                return Err((TrapKind::StepLimit(max_steps), fi, pc));
            }
            let inst = &pf.insts[pc as usize];
            let next = self.step(pf, base, inst).map_err(|k| (k, fi, pc))?;
            match next {
                Next::Fall => pc += 1,
                Next::Jump(b) => {
                    pc = self
                        .enter_block(pf, base, b, Some(block))
                        .map_err(|(k, p)| (k, fi, p))?;
                    block = b;
                    block_end = pf.block_start[b as usize + 1];
                }
                Next::Call(ci) => {
                    if self.stack.len() >= self.opts.max_depth {
                        return Err((TrapKind::CallDepth(self.opts.max_depth), fi, pc));
                    }
                    let callee_cookie = RETURN_BASE.wrapping_add(4 * self.stack.len() as u32);
                    let saved_at = self.saved.len() as u32;
                    for &r in &prog.callee_saved {
                        self.saved
                            .push((self.regs.phys[r as usize], self.regs.pdef[r as usize]));
                    }
                    self.regs
                        .set_phys(prog.link, i64::from(callee_cookie), true);
                    self.stack.push(Act {
                        func: fi,
                        call_pc: pc,
                        block,
                        base,
                        sp_restore,
                        saved_at,
                        cookie,
                    });
                    fi = ci;
                    pf = &prog.funcs[fi as usize];
                    cookie = callee_cookie;
                    (base, sp_restore) = self.enter(fi).map_err(|k| (k, fi, 0))?;
                    block = 0;
                    pc = self
                        .enter_block(pf, base, 0, None)
                        .map_err(|(k, p)| (k, fi, p))?;
                    block_end = pf.block_start[1];
                }
                Next::Return => {
                    if pf.finalized {
                        let link = prog.link as usize;
                        let found = self.regs.pdef[link].then_some(self.regs.phys[link] as u32);
                        if found != Some(cookie) {
                            return Err((
                                TrapKind::BadReturn {
                                    found,
                                    expected: cookie,
                                },
                                fi,
                                pc,
                            ));
                        }
                    }
                    if let Some(sp) = sp_restore {
                        self.regs.set_phys(prog.sp, sp, true);
                    }
                    let Some(act) = self.stack.pop() else {
                        let r = prog.result as usize;
                        let code = if self.regs.pdef[r] {
                            self.regs.phys[r] as i32
                        } else {
                            0
                        };
                        return Ok(code);
                    };
                    self.callee_saved_on_return(pf, act.saved_at)
                        .map_err(|k| (k, fi, pc))?;
                    self.regs.vals.truncate(base as usize);
                    fi = act.func;
                    pf = &prog.funcs[fi as usize];
                    base = act.base;
                    sp_restore = act.sp_restore;
                    cookie = act.cookie;
                    block = act.block;
                    block_end = pf.block_start[block as usize + 1];
                    pc = act.call_pc;
                    self.finish_call(pf, base, pc);
                    pc += 1;
                }
                Next::Exit(code) => return Ok(code),
            }
        }
    }

    /// Callee-saved registers when `callee` returns: restored for a callee whose frame the
    /// interpreter manages, checked for a finalized one.
    fn callee_saved_on_return(&mut self, callee: &PFunc, saved_at: u32) -> Result<(), TrapKind> {
        let prog = self.prog;
        let at = saved_at as usize;
        for (k, &r) in prog.callee_saved.iter().enumerate() {
            let (v, d) = self.saved[at + k];
            let ri = r as usize;
            if !callee.finalized {
                self.regs.set_phys(r, v, d);
            } else if d {
                let same = if prog.target == Target::St120 && r < 64 {
                    // ASSUMPTION (frame pass): ST120 data registers are saved as words.
                    self.regs.phys[ri] as i32 == v as i32
                } else {
                    self.regs.phys[ri] == v
                };
                if !self.regs.pdef[ri] || !same {
                    return Err(TrapKind::CalleeSaved {
                        reg: self.phys_name(r),
                        callee: callee.name.clone(),
                    });
                }
            }
        }
        self.saved.truncate(at);
        Ok(())
    }

    /// After a call returned: read the pinned results, poison the clobbered registers, write
    /// the results.
    fn finish_call(&mut self, pf: &PFunc, base: u32, call_pc: u32) {
        let inst = &pf.insts[call_pc as usize];
        self.scratch.clear();
        for op in &pf.ops[inst.defs.0 as usize..inst.defs.1 as usize] {
            let v = match (op.pin, op.loc) {
                (Some(p), _) | (None, Loc::P(p)) => {
                    (self.regs.phys[p as usize], self.regs.pdef[p as usize])
                }
                (None, Loc::V(_)) => (0, false),
            };
            self.scratch.push(v);
        }
        for &r in &self.prog.clobbers {
            if !self.regs.pconst[r as usize] {
                self.regs.pdef[r as usize] = false;
            }
        }
        for (k, op) in pf.ops[inst.defs.0 as usize..inst.defs.1 as usize]
            .iter()
            .enumerate()
        {
            let (v, d) = self.scratch[k];
            self.regs.set(base, op, v, d);
        }
    }

    /// Writes the first definition, if any.
    #[inline(always)]
    fn def0(&mut self, base: u32, defs: &[POp], v: i64) {
        if let Some(d) = defs.first() {
            self.regs.set(base, d, v, true);
        }
    }

    /// Reads a use that a target operation needs defined.
    #[inline(always)]
    fn need(&self, base: u32, op: &POp) -> Result<i64, TrapKind> {
        let (v, d) = self.regs.get(base, op);
        if d {
            Ok(v)
        } else {
            Err(TrapKind::Undefined(self.op_name(op)))
        }
    }

    /// Executes one instruction (not a leading phi).
    #[inline(always)]
    fn step(&mut self, pf: &PFunc, base: u32, inst: &prepare::PInst) -> Result<Next, TrapKind> {
        let uses = &pf.ops[inst.uses.0 as usize..inst.uses.1 as usize];
        let defs = &pf.ops[inst.defs.0 as usize..inst.defs.1 as usize];
        if inst.pinned_uses {
            for op in uses {
                if let Some(p) = op.pin {
                    let (v, d) = self.regs.get(base, op);
                    self.regs.set_phys(p, v, d);
                }
            }
        }
        let lenient = inst.flags.intersects(
            InstFlags::COPY | InstFlags::SPILL_LOAD | InstFlags::SPILL_STORE | InstFlags::FRAME,
        );
        if lenient && !matches!(inst.kind, Kind::Copy | Kind::ParCopy | Kind::Phi) {
            // Spill, frame and copy operations carry undefined values instead of trapping.
            let undefined = uses.iter().any(|u| !self.regs.get(base, u).1);
            if undefined && !matches!(inst.kind, Kind::Op120(ref o) if o.ctl != Ctl120::None) {
                if !matches!(inst.kind, Kind::Store231(_)) {
                    for d in defs {
                        self.regs.set(base, d, 0, false);
                    }
                }
                return Ok(Next::Fall);
            }
        }
        match &inst.kind {
            Kind::Bin231(o) => {
                let a = self.need(base, first(uses)?)?;
                let b = match uses.get(1) {
                    Some(op) => self.need(base, op)?,
                    None => inst.imm,
                };
                let r = st231::semantics::binary(*o, a as u32, b as u32);
                self.def0(base, defs, i64::from(r));
                Ok(Next::Fall)
            }
            Kind::Alu231(o) => {
                let o = *o;
                let val = |k: usize| -> Result<i64, TrapKind> {
                    match uses.get(k) {
                        Some(op) => self.need(base, op),
                        None => Ok(inst.imm),
                    }
                };
                let (a, b, c) = match o.info().format {
                    st231::Format::Monadic => (val(0)?, 0, false),
                    _ => (val(1)?, val(2)?, val(0)? != 0),
                };
                let Some((r, carry)) = st231::semantics::execute(o, a as u32, b as u32, c) else {
                    return Err(TrapKind::Bad("not an ALU operation".into()));
                };
                self.def0(base, defs, i64::from(r));
                if let Some(d) = defs.get(1) {
                    self.regs.set(base, d, i64::from(carry), true);
                }
                Ok(Next::Fall)
            }
            Kind::Load231(o) => {
                let base_v = self.need(base, first(uses)?)?;
                let addr = st231::semantics::address(base_v as u32, inst.imm as i32);
                let raw = match o.info().mem_width {
                    1 => self.mem.load8(addr),
                    2 => self.mem.load16(addr),
                    _ => self.mem.load32(addr),
                }
                .map_err(TrapKind::Machine)?;
                let v = st231::semantics::load_extend(*o, raw);
                if let Some(d) = defs.first() {
                    self.regs.set(base, d, i64::from(v), true);
                }
                Ok(Next::Fall)
            }
            Kind::Store231(w) => {
                let base_v = self.need(base, first(uses)?)?;
                let v = self.need(base, uses.get(1).ok_or_else(operands)?)? as u32;
                let addr = st231::semantics::address(base_v as u32, inst.imm as i32);
                match w {
                    1 => self.mem.store8(addr, v),
                    2 => self.mem.store16(addr, v),
                    _ => self.mem.store32(addr, v),
                }
                .map_err(TrapKind::Machine)?;
                Ok(Next::Fall)
            }
            Kind::Nop => Ok(Next::Fall),
            Kind::Br231 { on_true, target } => {
                let c = self.need(base, first(uses)?)? != 0;
                Ok(
                    if st231::semantics::branch_taken(
                        if *on_true {
                            st231::Opcode::Br
                        } else {
                            st231::Opcode::Brf
                        },
                        c,
                    ) {
                        Next::Jump(*target)
                    } else {
                        Next::Fall
                    },
                )
            }
            Kind::Jump(b) => Ok(Next::Jump(*b)),
            Kind::Call(ci) => Ok(Next::Call(*ci)),
            Kind::Icall231 => {
                let link = self.prog.link;
                let a = self.need(
                    base,
                    &POp {
                        loc: Loc::P(link),
                        pin: None,
                    },
                )?;
                self.indirect_callee(a as u32).map(Next::Call)
            }
            Kind::Return => Ok(Next::Return),
            Kind::Syscall231(n) => {
                let r16 = phys_index(PReg::new(RegClass::R, 16));
                let r17 = phys_index(PReg::new(RegClass::R, 17));
                let arg = self.need(
                    base,
                    &POp {
                        loc: Loc::P(r16),
                        pin: None,
                    },
                )? as u32;
                let len = if *n == machine::output::SYS_WRITE {
                    self.need(
                        base,
                        &POp {
                            loc: Loc::P(r17),
                            pin: None,
                        },
                    )? as u32
                } else {
                    0
                };
                self.syscall(*n, arg, arg, len)
            }
            Kind::Op120(op) => self.op120(base, inst, op, uses, defs),
            Kind::Phi => Err(TrapKind::Bad("phi after the start of its block".into())),
            Kind::Copy | Kind::ParCopy => {
                // A guarded (ST120) copy: the guard is the last use.
                let mut uses = uses;
                if inst.flags.contains(InstFlags::GUARDED) {
                    let (g, rest) = uses.split_last().ok_or_else(operands)?;
                    if self.need(base, g)? == 0 {
                        return Ok(Next::Fall);
                    }
                    uses = rest;
                }
                self.scratch.clear();
                for u in uses {
                    let v = self.regs.get(base, u);
                    self.scratch.push(v);
                }
                for (k, d) in defs.iter().enumerate() {
                    let (v, dd) = self.scratch.get(k).copied().unwrap_or((0, false));
                    self.regs.set(base, d, v, dd);
                }
                Ok(Next::Fall)
            }
            Kind::Psi => {
                let mut chosen = None;
                for pair in uses.chunks(2) {
                    let g = self.need(base, &pair[0])?;
                    if g != 0 {
                        chosen = pair.get(1);
                    }
                }
                if let (Some(v), Some(d)) = (chosen, defs.first()) {
                    let (x, dd) = self.regs.get(base, v);
                    self.regs.set(base, d, x, dd);
                }
                Ok(Next::Fall)
            }
            Kind::Input => {
                for d in defs {
                    if let Some(p) = d.pin {
                        let (v, dd) = (self.regs.phys[p as usize], self.regs.pdef[p as usize]);
                        self.regs.set(base, d, v, dd);
                    }
                }
                Ok(Next::Fall)
            }
            // Pinned uses were written above.
            Kind::Output => Ok(Next::Fall),
            Kind::Bad(why) => Err(TrapKind::Bad(why.clone())),
        }
    }

    fn indirect_callee(&self, addr: u32) -> Result<u32, TrapKind> {
        let off = addr.wrapping_sub(FUNC_BASE);
        let i = off / FUNC_STRIDE;
        if off.is_multiple_of(FUNC_STRIDE) && (i as usize) < self.prog.funcs.len() {
            Ok(i)
        } else {
            Err(TrapKind::Bad(format!(
                "indirect call to {addr:#010x}, not a function"
            )))
        }
    }

    fn syscall(&mut self, n: u32, arg: u32, ptr: u32, len: u32) -> Result<Next, TrapKind> {
        match machine::syscall(
            n,
            arg,
            ptr,
            len,
            &self.mem,
            &mut self.output,
            self.opts.max_output,
        )
        .map_err(TrapKind::Machine)?
        {
            SyscallOutcome::Continue => Ok(Next::Fall),
            SyscallOutcome::Exit(code) => Ok(Next::Exit(code)),
        }
    }

    fn op120(
        &mut self,
        base: u32,
        inst: &prepare::PInst,
        op: &prepare::Op120,
        uses: &[POp],
        defs: &[POp],
    ) -> Result<Next, TrapKind> {
        let guarded = inst.flags.contains(InstFlags::GUARDED);
        let g = if guarded {
            self.need(base, uses.last().ok_or_else(operands)?)? != 0
        } else {
            true
        };
        if g == op.on_false {
            return Ok(Next::Fall);
        }
        let mut regs = [0i64; 4];
        for (reg, slot) in regs.iter_mut().zip(&op.slot_use[..op.nslots as usize]) {
            if let Some(u) = slot {
                *reg = self.need(base, &uses[*u as usize])?;
            }
        }
        let p3 = self.regs.phys[phys_index(PReg::new(RegClass::P, st120::JUMP_TARGET)) as usize];
        let p11 = self.regs.phys[self.prog.link as usize];
        let input = st120::semantics::ExecIn {
            regs,
            guard: !op.on_false,
            p3: p3 as u32,
            p11: p11 as u32,
            pc: 0,
            next_group: 0,
        };
        let out = st120::semantics::execute(&op.inst, &input, &mut Mem(&mut self.mem))
            .map_err(TrapKind::Machine)?;
        for s in 0..op.nslots as usize {
            if out.written & (1 << s) != 0 {
                if let Some(d) = op.slot_def[s] {
                    self.regs.set(base, &defs[d as usize], out.writes[s], true);
                }
            }
        }
        match op.ctl {
            Ctl120::None => Ok(Next::Fall),
            Ctl120::Jump(b) => Ok(Next::Jump(b)),
            Ctl120::Call(c) => Ok(Next::Call(c)),
            Ctl120::Link => {
                let pi = phys_index(PReg::new(RegClass::P, st120::JUMP_TARGET));
                let a = self.need(
                    base,
                    &POp {
                        loc: Loc::P(pi),
                        pin: None,
                    },
                )?;
                self.indirect_callee(a as u32).map(Next::Call)
            }
            Ctl120::Return => Ok(Next::Return),
            Ctl120::Syscall => {
                let r0 = phys_index(PReg::new(RegClass::R, 0));
                let p0 = phys_index(PReg::new(RegClass::P, 0));
                let n = u32::from(op.inst.imm as u8);
                let arg = self.need(
                    base,
                    &POp {
                        loc: Loc::P(r0),
                        pin: None,
                    },
                )? as u32;
                let ptr = if n == machine::output::SYS_WRITE {
                    self.need(
                        base,
                        &POp {
                            loc: Loc::P(p0),
                            pin: None,
                        },
                    )? as u32
                } else {
                    0
                };
                self.syscall(n, arg, ptr, arg)
            }
        }
    }
}

fn operands() -> TrapKind {
    TrapKind::Bad("missing operand".into())
}

fn first(uses: &[POp]) -> Result<&POp, TrapKind> {
    uses.first().ok_or_else(operands)
}

#[cfg(test)]
mod tests;
