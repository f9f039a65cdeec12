//! Differential test: random straight-line ST120 programs (every non-control opcode, 1 or 2
//! operations per group, random guards, loads and stores into a buffer) run on the
//! simulator and on a reference interpreter built only on `semantics::execute` (reads of a
//! group before its writes, loads before stores). Final registers, memory and traps must
//! agree.

use proptest::prelude::*;
use simulator::asm::assemble;
use simulator::isa::st120::encoding::decode;
use simulator::isa::st120::issue::check_group;
use simulator::isa::st120::opcode::{Inst, OpProps, Opcode, Operand};
use simulator::isa::st120::semantics::{execute, DataMemory, ExecIn};
use simulator::isa::st120::{Reg, RegClass};
use simulator::machine::{RunOptions, CODE_BASE, HALT_ADDRESS};
use simulator::object::Object;
use simulator::sim::st120::Machine;
use simulator::Target;

const MEM: u32 = 1 << 16;

/// Reference machine state.
#[derive(Clone)]
struct State {
    r: [i64; 16],
    p: [u32; 16],
    g: [bool; 16],
}

struct RefMem {
    bytes: Vec<u8>,
    writable_from: u32,
    pending: Vec<(u32, u8, u32)>,
}

impl RefMem {
    fn check(&self, addr: u32, size: u8) -> Result<usize, String> {
        if !addr.is_multiple_of(u32::from(size)) {
            return Err(format!("misaligned {addr:#x}"));
        }
        if addr < CODE_BASE || u64::from(addr) + u64::from(size) > u64::from(MEM) {
            return Err(format!("bad address {addr:#x}"));
        }
        Ok(addr as usize)
    }
}

impl DataMemory for RefMem {
    type Error = String;
    fn load(&mut self, addr: u32, size: u8) -> Result<u32, String> {
        let a = self.check(addr, size)?;
        Ok((0..usize::from(size))
            .rev()
            .fold(0, |v, i| (v << 8) | u32::from(self.bytes[a + i])))
    }
    fn store(&mut self, addr: u32, size: u8, v: u32) -> Result<(), String> {
        self.check(addr, size)?;
        if addr < self.writable_from {
            return Err(format!("store into code {addr:#x}"));
        }
        self.pending.push((addr, size, v));
        Ok(())
    }
}

fn read(st: &State, r: Reg) -> i64 {
    match r.class {
        RegClass::R => st.r[usize::from(r.num)],
        RegClass::P => i64::from(st.p[usize::from(r.num)]),
        RegClass::G => i64::from(st.g[usize::from(r.num)]),
    }
}

fn write(st: &mut State, class: RegClass, n: u8, v: i64) {
    match class {
        RegClass::R => st.r[usize::from(n)] = v,
        RegClass::P => st.p[usize::from(n)] = v as u32,
        RegClass::G => st.g[usize::from(n)] = v != 0,
    }
}

/// Run the object's straight-line code up to its final RTS; `Err` = the address of the
/// trapping group.
fn reference(obj: &Object) -> (State, RefMem, Result<(), u32>) {
    let mut st = State {
        r: [0; 16],
        p: [0; 16],
        g: [false; 16],
    };
    st.g[15] = true;
    st.p[15] = MEM & !7;
    st.p[11] = HALT_ADDRESS;
    let mut mem = RefMem {
        bytes: vec![0; MEM as usize],
        writable_from: CODE_BASE + obj.code.len() as u32,
        pending: vec![],
    };
    mem.bytes[0x1000..0x1000 + obj.code.len()].copy_from_slice(&obj.code);
    let db = obj.data_base as usize;
    mem.bytes[db..db + obj.data.len()].copy_from_slice(&obj.data);
    let words: Vec<u32> = obj
        .code
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut i = 0;
    while i < words.len() {
        let mut group = Vec::new();
        loop {
            let (inst, stop) = decode(words[i]).unwrap();
            group.push((CODE_BASE + 4 * i as u32, inst));
            i += 1;
            if stop {
                break;
            }
        }
        if group[0].1.opcode == Opcode::Rts {
            return (st, mem, Ok(()));
        }
        let old = st.clone();
        let mut writes = Vec::new();
        for (pc, inst) in &group {
            let info = inst.opcode.info();
            let mut regs = [0i64; 4];
            for (k, (op, n)) in inst.reg_operands(&info).enumerate() {
                if let Operand::Use(c) | Operand::Tied(c) = op {
                    regs[k] = read(&old, Reg { class: c, num: n });
                }
            }
            let input = ExecIn {
                regs,
                guard: old.g[usize::from(inst.guard)],
                p3: old.p[3],
                p11: old.p[11],
                pc: *pc,
                next_group: 0,
            };
            match execute(inst, &input, &mut mem) {
                Ok(out) => {
                    let ops: Vec<(Operand, u8)> = inst.reg_operands(&info).collect();
                    for (k, (op, n)) in ops.iter().enumerate() {
                        if out.written & (1 << k) != 0 {
                            if let Operand::Def(c) | Operand::Tied(c) = op {
                                writes.push((*c, *n, out.writes[k]));
                            }
                        }
                    }
                }
                // Report the group: which of two faulting operations of one group traps
                // first is not part of the model.
                Err(_) => return (st, mem, Err(group[0].0)),
            }
        }
        for (c, n, v) in writes {
            write(&mut st, c, n, v);
        }
        for (addr, size, v) in std::mem::take(&mut mem.pending) {
            for k in 0..u32::from(size) {
                mem.bytes[(addr + k) as usize] = (v >> (8 * k)) as u8;
            }
        }
    }
    (st, mem, Err(0))
}

/// Random operation `i` of the body, as assembly text.
fn body_op(op: Opcode, raw: [u8; 4], imm: u32, guard: u8) -> Option<String> {
    let info = op.info();
    if info.props.intersects(OpProps::CONTROL | OpProps::SYSCALL) || op == Opcode::Nop {
        return None;
    }
    let mut inst = Inst::new(op, &[], 0);
    let mut k = 0;
    for o in info.operands() {
        if let Operand::Def(c) | Operand::Use(c) | Operand::Tied(c) = o {
            let mut n = raw[k] & 15;
            // Keep the link register (for the final RTS) and G15 untouched; memory bases are
            // P0..P3, register offsets P4/P5, and other P writes go to P6..P10, P12..P14.
            if *c == RegClass::P {
                n = match (info.mem.is_some(), k) {
                    (true, _)
                        if matches!(o, Operand::Tied(_))
                            || (k == 1 && matches!(op, Opcode::Load(..)))
                            || (k == 0 && matches!(op, Opcode::Store(..))) =>
                    {
                        n % 4
                    }
                    (true, _)
                        if info.mem.is_some_and(|m| m.mode.is_reg_offset())
                            && ((matches!(op, Opcode::Load(..)) && k == 2)
                                || (matches!(op, Opcode::Store(..)) && k == 1)) =>
                    {
                        4 + n % 2
                    }
                    _ if !matches!(o, Operand::Use(_)) => {
                        [6, 7, 8, 9, 10, 12, 13, 14][usize::from(n % 8)]
                    }
                    _ => n,
                };
            }
            if *c == RegClass::G && !matches!(o, Operand::Use(_)) && n == 15 {
                n = 14;
            }
            inst.regs[k] = n;
            k += 1;
        }
    }
    if let Some(i) = info.imm() {
        let (lo, hi) = i.range();
        inst.imm = (lo + i64::from(imm) % (hi - lo + 1)) as i32;
        if info.mem.is_some() {
            inst.imm %= 8; // stay near the buffer
        }
    }
    inst.guard = if guard < 10 { 15 } else { guard % 16 };
    Some(simulator::asm::st120::format_inst(&inst, 0, &|_| None))
}

fn program(body: &[(usize, [u8; 4], u32, u8)]) -> String {
    let all: Vec<Opcode> = Opcode::all();
    let mut s = String::from(".data\nbuf: .space 4096\n.text\nmain:\n");
    // Prologue: distinct register values, bases in the middle of the buffer, small offsets.
    for n in 0..16u32 {
        let v = n.wrapping_mul(0x9E37_79B9) ^ 0x5A5A;
        s += &format!(
            " MAKE R{n}, {} ;;\n MORE R{n}, {} ;;\n",
            (v >> 16) as u16 as i16,
            v & 0xFFFF
        );
    }
    for n in 0..4 {
        s += &format!(" MAKEA P{n}, %hi(buf + 2048) ;;\n MOREA P{n}, %lo(buf + 2048) ;;\n");
    }
    s += " MAKEA P4, 1 ;;\n MAKEA P5, 2 ;;\n MAKEA P6, -3 ;;\n";
    for g in 0..15 {
        s += &format!(" {} G{g} ;;\n", if g % 3 == 0 { "CLRG" } else { "SETG" });
    }
    let mut open: Vec<Inst> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    for &(i, raw, imm, guard) in body {
        let Some(text) = body_op(all[i % all.len()], raw, imm, guard) else {
            continue;
        };
        let inst = assemble(&format!("{text} ;;\n"), Some(Target::St120))
            .ok()
            .and_then(|o| {
                decode(u32::from_le_bytes([
                    o.code[0], o.code[1], o.code[2], o.code[3],
                ]))
                .ok()
            });
        let Some((inst, _)) = inst else { continue };
        if open.len() == 1 && check_group(&[open[0], inst]).is_ok() && raw[3] & 1 == 1 {
            open.push(inst);
            texts.push(text);
            s += &format!(" {} \n {} ;;\n", texts[0], texts[1]);
            open.clear();
            texts.clear();
        } else {
            if let Some(t) = texts.first() {
                s += &format!(" {t} ;;\n");
            }
            open = vec![inst];
            texts = vec![text];
        }
    }
    if let Some(t) = texts.first() {
        s += &format!(" {t} ;;\n");
    }
    s + " RTS ;;\n"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn simulator_matches_reference(body in prop::collection::vec((any::<usize>(), any::<[u8; 4]>(), any::<u32>(), 0u8..24), 1..40)) {
        let src = program(&body);
        let obj = assemble(&src, Some(Target::St120)).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let opts = RunOptions { mem_size: MEM, max_cycles: 1_000_000, ..RunOptions::default() };
        let mut m = Machine::load(&obj, &opts).unwrap();
        let rep = m.run::<false>(&mut std::io::sink());
        let (st, mem, res) = reference(&obj);
        match res {
            Ok(()) => prop_assert!(rep.trap.is_none(), "sim trapped {:?}\n{}", rep.trap, src),
            Err(pc) => {
                // The state after a trap is not part of the model (the run is over): only the
                // place must agree.
                let t = rep.trap.clone();
                prop_assert!(t.as_ref().is_some_and(|t| t.pc == pc || t.pc == pc + 4), "reference trapped in the group at {:#x}, sim {:?}\n{}", pc, t, src);
                // The faulting group does not issue: the counters end at its issue cycle.
                prop_assert_eq!(rep.totals.cycles, t.as_ref().map_or(0, |t| t.cycle), "{}", src);
                return Ok(());
            }
        }
        for n in 0..16 {
            prop_assert_eq!(m.r(n), st.r[n], "R{}\n{}", n, src);
            prop_assert_eq!(m.p(n), st.p[n], "P{}\n{}", n, src);
            prop_assert_eq!(m.g(n), st.g[n], "G{}\n{}", n, src);
        }
        let buf = obj.symbol("buf").unwrap().addr;
        for a in (buf..buf + 4096).step_by(4) {
            let want = u32::from_le_bytes(mem.bytes[a as usize..a as usize + 4].try_into().unwrap());
            prop_assert_eq!(m.memory().load32(a).unwrap(), want, "mem {:#x}\n{}", a, src);
        }
    }
}
