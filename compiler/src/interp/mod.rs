//! Reference interpreter for the mid-level IR.
//!
//! It executes a [`Module`] at any stage of the pipeline — before SSA (registers assigned
//! several times), in SSA (phis evaluated in parallel on block entry, reading the values of the
//! edge taken), and after every optimisation — so any pass can be checked against the source
//! program's behaviour.
//!
//! Guarantees: memory is bounded and checked (a bad address is a [`Trap`], never a host panic);
//! the number of executed instructions is bounded by a step limit; calls use an explicit frame
//! stack (deep guest recursion cannot overflow the host stack) with a depth limit; reading a
//! register that was never written traps (copies and phis merely propagate "undefined", as an
//! SSA program may legitimately carry an undefined value along a path that never uses it).
//!
//! Memory map (same conventions as the simulator's loader): addresses below `0x1000` are
//! unmapped; globals are laid out from `0x1000` in module order with their alignment; the stack
//! starts at the top of memory and grows down; functions get fake, non-dereferenceable
//! addresses from `FUNC_BASE`.

pub mod builtins;
mod memory;

use crate::ir::*;
use memory::Memory;
use std::collections::HashMap;
use std::fmt;

/// First address of data memory.
pub const DATA_BASE: u32 = 0x1000;
/// Fake addresses of functions (never dereferenceable).
pub const FUNC_BASE: u32 = 0xF000_0000;

/// Limits and sizes for one run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Maximum number of executed instructions (terminators included).
    pub max_steps: u64,
    /// Size of guest memory in bytes.
    pub mem_size: u32,
    /// Maximum call depth.
    pub max_depth: usize,
    /// Maximum number of output bytes kept (a runaway printer is stopped by a trap).
    pub max_output: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_steps: 2_000_000_000,
            mem_size: 16 << 20,
            max_depth: 100_000,
            max_output: 64 << 20,
        }
    }
}

/// Why a run stopped abnormally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrapKind {
    BadAddress { addr: u32, size: u32 },
    DivisionByZero,
    UndefinedValue(Value),
    StepLimit(u64),
    CallDepth(usize),
    UnknownFunction(String),
    BadCall(String),
    Unreachable,
    StackOverflow,
    OutputLimit,
    Abort,
    Builtin(String),
}

/// A trap with the place where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trap {
    pub kind: TrapKind,
    pub function: String,
    pub block: BlockId,
    /// Index of the instruction in the block (`insts.len()` for the terminator).
    pub inst: usize,
    pub steps: u64,
}

impl fmt::Display for TrapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrapKind::BadAddress { addr, size } => {
                write!(f, "bad memory access of {size} byte(s) at {addr:#010x}")
            }
            TrapKind::DivisionByZero => write!(f, "division by zero"),
            TrapKind::UndefinedValue(v) => write!(f, "use of undefined value {v}"),
            TrapKind::StepLimit(n) => write!(f, "step limit of {n} instructions exhausted"),
            TrapKind::CallDepth(n) => write!(f, "call depth limit of {n} exceeded"),
            TrapKind::UnknownFunction(s) => write!(f, "call to undefined function `{s}`"),
            TrapKind::BadCall(s) => write!(f, "bad call: {s}"),
            TrapKind::Unreachable => write!(f, "reached `unreachable`"),
            TrapKind::StackOverflow => write!(f, "stack overflow (guest stack exhausted)"),
            TrapKind::OutputLimit => write!(f, "output limit exceeded"),
            TrapKind::Abort => write!(f, "abort() called"),
            TrapKind::Builtin(s) => write!(f, "{s}"),
        }
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "trap in @{} at {} inst {} after {} steps: {}",
            self.function, self.block, self.inst, self.steps, self.kind
        )
    }
}

/// Result of a run: what the program printed and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub output: Vec<u8>,
    /// `main`'s return value, or the argument of `exit`.
    pub exit_code: i32,
    pub steps: u64,
    pub trap: Option<Trap>,
}

impl Outcome {
    pub fn output_string(&self) -> String {
        String::from_utf8_lossy(&self.output).into_owned()
    }
}

/// Errors found before execution starts (the module cannot be run at all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    NoFunction(String),
    UnknownSymbol { global: String, symbol: String },
    DataTooLarge,
    DuplicateSymbol(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NoFunction(n) => write!(f, "no function `{n}` to run"),
            LoadError::UnknownSymbol { global, symbol } => {
                write!(f, "global `{global}` refers to unknown symbol `{symbol}`")
            }
            LoadError::DataTooLarge => write!(f, "globals do not fit in guest memory"),
            LoadError::DuplicateSymbol(s) => write!(f, "symbol `{s}` defined twice"),
        }
    }
}

impl std::error::Error for LoadError {}

/// Runs `entry` (normally `main`) with no arguments.
pub fn run(module: &Module, entry: &str, opts: &Options) -> Result<Outcome, LoadError> {
    let mut m = Machine::load(module, opts)?;
    let f = *m
        .func_index
        .get(entry)
        .ok_or_else(|| LoadError::NoFunction(entry.to_string()))?;
    Ok(m.execute(f, &[]))
}

/// One activation record.
struct Frame {
    func: usize,
    block: BlockId,
    ip: usize,
    regs: Vec<i32>,
    defined: Vec<bool>,
    /// Stack pointer to restore on return.
    saved_sp: u32,
    slot_addrs: Vec<u32>,
}

struct Machine<'m> {
    module: &'m Module,
    opts: Options,
    mem: Memory,
    func_index: HashMap<&'m str, usize>,
    symbols: HashMap<&'m str, u32>,
    sp: u32,
    stack_limit: u32,
    output: Vec<u8>,
    steps: u64,
    phi_scratch: Vec<(Value, i32, bool)>,
}

impl<'m> Machine<'m> {
    fn load(module: &'m Module, opts: &Options) -> Result<Self, LoadError> {
        let mut symbols = HashMap::new();
        let mut func_index = HashMap::new();
        for (k, f) in module.functions.iter().enumerate() {
            if func_index.insert(f.name.as_str(), k).is_some() {
                return Err(LoadError::DuplicateSymbol(f.name.clone()));
            }
            symbols.insert(f.name.as_str(), FUNC_BASE + 16 * k as u32);
        }
        let mut addr = DATA_BASE as u64;
        for g in &module.globals {
            let align = g.align.max(1) as u64;
            addr = addr.div_ceil(align) * align;
            if symbols.insert(g.name.as_str(), addr as u32).is_some() {
                return Err(LoadError::DuplicateSymbol(g.name.clone()));
            }
            addr += g.size as u64;
        }
        // Keep at least 64 KiB of stack.
        if addr + (64 << 10) > opts.mem_size as u64 {
            return Err(LoadError::DataTooLarge);
        }
        let mut mem = Memory::new(opts.mem_size);
        for g in &module.globals {
            let base = symbols[g.name.as_str()];
            mem.write_bytes(base, &g.init);
            for r in &g.relocs {
                let target =
                    *symbols
                        .get(r.symbol.as_str())
                        .ok_or_else(|| LoadError::UnknownSymbol {
                            global: g.name.clone(),
                            symbol: r.symbol.clone(),
                        })?;
                mem.write_bytes(
                    base + r.offset,
                    &target.wrapping_add(r.addend as u32).to_le_bytes(),
                );
            }
        }
        let data_end = addr as u32;
        Ok(Machine {
            module,
            opts: opts.clone(),
            mem,
            func_index,
            symbols,
            sp: opts.mem_size & !7,
            stack_limit: data_end.div_ceil(16) * 16 + 16,
            output: Vec::new(),
            steps: 0,
            phi_scratch: Vec::new(),
        })
    }

    /// Creates a frame for `func` with `args`, allocating its stack slots.
    fn new_frame(&mut self, func: usize, args: &[i32]) -> Result<Frame, TrapKind> {
        let f = &self.module.functions[func];
        if args.len() != f.params.len() {
            return Err(TrapKind::BadCall(format!(
                "@{} takes {} argument(s), got {}",
                f.name,
                f.params.len(),
                args.len()
            )));
        }
        let saved_sp = self.sp;
        let mut sp = self.sp as u64;
        let mut slot_addrs = Vec::with_capacity(f.slots.len());
        for s in &f.slots {
            sp = sp.saturating_sub(s.size as u64);
            sp &= !(s.align.max(1) as u64 - 1);
            slot_addrs.push(sp as u32);
        }
        sp &= !7;
        if sp < self.stack_limit as u64 {
            return Err(TrapKind::StackOverflow);
        }
        self.sp = sp as u32;
        let n = f.num_values();
        let mut frame = Frame {
            func,
            block: BlockId::ENTRY,
            ip: 0,
            regs: vec![0; n],
            defined: vec![false; n],
            saved_sp,
            slot_addrs,
        };
        for (p, &a) in f.params.iter().zip(args) {
            frame.regs[p.index()] = a;
            frame.defined[p.index()] = true;
        }
        Ok(frame)
    }

    fn execute(&mut self, entry: usize, args: &[i32]) -> Outcome {
        let mut stack: Vec<Frame> = Vec::new();
        let result = match self.new_frame(entry, args) {
            Ok(f) => {
                stack.push(f);
                self.run_frames(&mut stack)
            }
            Err(kind) => Err(kind),
        };
        match result {
            Ok(code) => Outcome {
                output: std::mem::take(&mut self.output),
                exit_code: code,
                steps: self.steps,
                trap: None,
            },
            Err(kind) => {
                let (function, block, inst) = match stack.last() {
                    Some(fr) => (self.module.functions[fr.func].name.clone(), fr.block, fr.ip),
                    None => (self.module.functions[entry].name.clone(), BlockId::ENTRY, 0),
                };
                Outcome {
                    output: std::mem::take(&mut self.output),
                    exit_code: -1,
                    steps: self.steps,
                    trap: Some(Trap {
                        kind,
                        function,
                        block,
                        inst,
                        steps: self.steps,
                    }),
                }
            }
        }
    }

    /// The main loop: runs until the outermost frame returns.
    fn run_frames(&mut self, stack: &mut Vec<Frame>) -> Result<i32, TrapKind> {
        let module = self.module;
        loop {
            let frame = stack.last_mut().expect("a frame is active");
            let func = &module.functions[frame.func];
            let block = func.block(frame.block);
            self.steps += 1;
            if self.steps > self.opts.max_steps {
                return Err(TrapKind::StepLimit(self.opts.max_steps));
            }
            if frame.ip < block.insts.len() {
                let inst = &block.insts[frame.ip];
                if let Op::Call { callee, args } = &inst.op {
                    let argv = args
                        .iter()
                        .map(|&a| read(frame, a))
                        .collect::<Result<Vec<i32>, _>>()?;
                    if let Some(&target) = self.func_index.get(callee.as_str()) {
                        if stack.len() >= self.opts.max_depth {
                            return Err(TrapKind::CallDepth(self.opts.max_depth));
                        }
                        let new = self.new_frame(target, &argv)?;
                        stack.push(new);
                        continue;
                    }
                    let dst = inst.dst;
                    match builtins::call(self, callee, &argv)? {
                        builtins::Effect::Return(r) => {
                            if let Some(d) = dst {
                                write(frame, d, r);
                            }
                            frame.ip += 1;
                        }
                        builtins::Effect::Exit(code) => return Ok(code),
                    }
                    continue;
                }
                self.exec_inst(frame, inst)?;
                frame.ip += 1;
                continue;
            }
            match &block.term {
                Terminator::Jump(t) => self.enter_block(stack, *t)?,
                Terminator::Branch { cond, then_, else_ } => {
                    let c = read(frame, *cond)?;
                    let t = if c != 0 { *then_ } else { *else_ };
                    self.enter_block(stack, t)?
                }
                Terminator::Unreachable => return Err(TrapKind::Unreachable),
                Terminator::Return(v) => {
                    let r = match v {
                        Some(v) => Some(read(frame, *v)?),
                        None => None,
                    };
                    let done = stack.pop().expect("frame");
                    self.sp = done.saved_sp;
                    match stack.last_mut() {
                        None => return Ok(r.unwrap_or(0)),
                        Some(caller) => {
                            let cf = &module.functions[caller.func];
                            let call = &cf.block(caller.block).insts[caller.ip];
                            if let Some(d) = call.dst {
                                let r = r.ok_or_else(|| {
                                    TrapKind::BadCall(format!(
                                        "@{} returned no value to @{}",
                                        module.functions[done.func].name, cf.name
                                    ))
                                })?;
                                write(caller, d, r);
                            }
                            caller.ip += 1;
                        }
                    }
                }
            }
        }
    }

    /// Takes the edge from the current block to `target`: evaluates the target's phis in
    /// parallel (all read before any is written), then continues after them.
    fn enter_block(&mut self, stack: &mut [Frame], target: BlockId) -> Result<(), TrapKind> {
        let frame = stack.last_mut().expect("frame");
        let func = &self.module.functions[frame.func];
        let from = frame.block;
        let block = func.block(target);
        let mut scratch = std::mem::take(&mut self.phi_scratch);
        scratch.clear();
        let mut n = 0;
        for inst in &block.insts {
            let Op::Phi(args) = &inst.op else { break };
            n += 1;
            let Some(&(_, v)) = args.iter().find(|(b, _)| *b == from) else {
                frame.ip = n - 1;
                frame.block = target;
                return Err(TrapKind::BadCall(format!(
                    "phi in {target} has no argument for predecessor {from}"
                )));
            };
            if let Some(d) = inst.dst {
                scratch.push((d, frame.regs[v.index()], frame.defined[v.index()]));
            }
        }
        for &(d, val, def) in &scratch {
            frame.regs[d.index()] = val;
            frame.defined[d.index()] = def;
        }
        self.phi_scratch = scratch;
        frame.block = target;
        frame.ip = n;
        Ok(())
    }

    fn exec_inst(&mut self, frame: &mut Frame, inst: &Inst) -> Result<(), TrapKind> {
        let result = match &inst.op {
            Op::Const(c) => *c,
            Op::Copy(a) => {
                // Copies propagate undefined values (out-of-SSA copies of phi arguments).
                if let Some(d) = inst.dst {
                    frame.regs[d.index()] = frame.regs[a.index()];
                    frame.defined[d.index()] = frame.defined[a.index()];
                }
                return Ok(());
            }
            Op::Bin(op, a, b) => {
                let (x, y) = (read(frame, *a)?, read(frame, *b)?);
                op.eval(x, y).ok_or(TrapKind::DivisionByZero)?
            }
            Op::Un(op, a) => op.eval(read(frame, *a)?),
            Op::Cmp(op, a, b) => op.eval(read(frame, *a)?, read(frame, *b)?) as i32,
            Op::Select(c, a, b) => {
                let chosen = if read(frame, *c)? != 0 { *a } else { *b };
                if let Some(d) = inst.dst {
                    frame.regs[d.index()] = frame.regs[chosen.index()];
                    frame.defined[d.index()] = frame.defined[chosen.index()];
                }
                return Ok(());
            }
            Op::SymAddr(s, off) => {
                let base = *self
                    .symbols
                    .get(s.as_str())
                    .ok_or_else(|| TrapKind::UnknownFunction(s.clone()))?;
                base.wrapping_add(*off as u32) as i32
            }
            Op::SlotAddr(s) => *frame
                .slot_addrs
                .get(s.index())
                .ok_or_else(|| TrapKind::BadCall(format!("no stack slot {s}")))?
                as i32,
            Op::Load { ty, addr, .. } => {
                let a = read(frame, *addr)? as u32;
                self.mem.load(a, *ty)?
            }
            Op::Store {
                ty, addr, value, ..
            } => {
                let a = read(frame, *addr)? as u32;
                let v = read(frame, *value)?;
                return self.mem.store(a, *ty, v);
            }
            Op::Phi(_) => {
                return Err(TrapKind::BadCall(
                    "phi after the head of its block".to_string(),
                ))
            }
            Op::Call { .. } => unreachable!("calls are handled by the main loop"),
        };
        if let Some(d) = inst.dst {
            write(frame, d, result);
        }
        Ok(())
    }
}

#[inline]
fn read(frame: &Frame, v: Value) -> Result<i32, TrapKind> {
    let k = v.index();
    if frame.defined[k] {
        Ok(frame.regs[k])
    } else {
        Err(TrapKind::UndefinedValue(v))
    }
}

#[inline]
fn write(frame: &mut Frame, v: Value, x: i32) {
    frame.regs[v.index()] = x;
    frame.defined[v.index()] = true;
}

#[cfg(test)]
mod tests;
