//! ST120 round trip (property test): random valid operations, grouped by the issue rules,
//! are encoded, decoded, printed as assembly, assembled again, and must give the same words
//! and the same operations.

use proptest::prelude::*;
use simulator::asm::st120::{assemble, format_inst};
use simulator::isa::st120::encoding::{decode, encode};
use simulator::isa::st120::issue::check_group;
use simulator::isa::st120::opcode::{Inst, OpProps, Opcode, Operand};
use simulator::isa::st120::RegClass;

/// A valid instance of `op` from random numbers.
fn make_inst(op: Opcode, regs: [u8; 4], imm: i64, guard: u8) -> Inst {
    let info = op.info();
    let mut r = [0u8; 4];
    let mut k = 0;
    for o in info.operands() {
        if let Operand::Def(c) | Operand::Use(c) | Operand::Tied(c) = o {
            let mut n = regs[k] & 15;
            if *c == RegClass::G && matches!(o, Operand::Def(_) | Operand::Tied(_)) && n == 15 {
                n = 14;
            }
            r[k] = n;
            k += 1;
        }
    }
    let imm = match info.imm() {
        Some(i) => {
            let (lo, hi) = i.range();
            (lo + imm.rem_euclid(hi - lo + 1)) as i32
        }
        None if info.has_target() => (imm % (1 << 19)) as i32,
        None => 0,
    };
    let guard = if info.props.contains(OpProps::UNGUARDED) {
        15
    } else {
        guard & 15
    };
    Inst {
        opcode: op,
        guard,
        regs: r,
        imm,
    }
}

fn arb_inst() -> impl Strategy<Value = Inst> {
    let all = Opcode::all();
    (0..all.len(), any::<[u8; 4]>(), any::<i64>(), 0u8..16)
        .prop_map(move |(i, regs, imm, g)| make_inst(all[i], regs, imm, g))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn assemble_encode_decode_print_assemble(insts in prop::collection::vec(arb_inst(), 1..24)) {
        // Group greedily: two operations share a group when the issue rules allow it.
        let mut groups: Vec<Vec<Inst>> = Vec::new();
        for i in insts {
            match groups.last_mut() {
                Some(g) if g.len() == 1 && check_group(&[g[0], i]).is_ok() => g.push(i),
                _ => groups.push(vec![i]),
            }
        }
        let mut words = Vec::new();
        let mut text = String::new();
        let mut pc = 0x1000u32;
        for g in &groups {
            prop_assert!(check_group(g).is_ok());
            for (k, inst) in g.iter().enumerate() {
                let stop = k + 1 == g.len();
                let w = encode(inst, stop).unwrap();
                prop_assert_eq!(decode(w).unwrap(), (*inst, stop));
                let (back, _) = decode(w).unwrap();
                text.push_str(&format_inst(&back, pc, &|_| None));
                text.push_str(if stop { " ;;\n" } else { "\n" });
                words.push(w);
                pc += 4;
            }
        }
        let obj = assemble(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let again: Vec<u32> = obj
            .code
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        prop_assert_eq!(again, words, "{}", text);
    }
}
