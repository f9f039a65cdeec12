//! Property tests for the ST231 target:
//! * round trip: random valid operation -> text -> assemble -> encode -> decode -> the same
//!   operation, and re-printing and re-assembling gives the same words;
//! * the simulator computes what `isa::st231::semantics` says for random operands (checks the
//!   decode/lowering path: operand order, immediates, `$b` destinations);
//! * robustness: random words as code and corrupted objects never make the host panic.

use proptest::prelude::*;
use simulator::asm::st231::{assemble, format_op};
use simulator::isa::st231::encoding::{decode_bundle, encode_bundle, STOP};
use simulator::isa::st231::semantics;
use simulator::isa::st231::{Dest, Format, Op, OpProps, Opcode, Src};
use simulator::isa::Target;
use simulator::machine::{RunOptions, CODE_BASE};
use simulator::object::{Annotation, Object, OpFlags, Symbol, SymbolKind};
use simulator::sim::run;

fn gpr() -> impl Strategy<Value = u8> {
    0u8..64
}

fn any_imm() -> impl Strategy<Value = i32> {
    prop_oneof![-256i32..256, any::<i32>()]
}

/// A random valid operation (alone in a bundle at 0x1000).
fn op_strategy() -> impl Strategy<Value = Op> {
    (
        0..Opcode::ALL.len(),
        gpr(),
        gpr(),
        gpr(),
        0u8..8,
        0u8..8,
        any_imm(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(k, d, s1, s2, b, bd, imm, use_imm, to_b)| {
            let opc = Opcode::ALL[k];
            let props = opc.props();
            let d = if props.contains(OpProps::NOLINK) && d == 63 {
                62
            } else {
                d
            };
            let src2 = if use_imm { Src::Imm(imm) } else { Src::R(s2) };
            match opc.info().format {
                Format::Binary => {
                    let dest = if to_b && props.contains(OpProps::COMPARE) {
                        Dest::B(bd)
                    } else {
                        Dest::R(d)
                    };
                    let op = Op::binary(opc, dest, s1, src2);
                    // add $r0 = $r0, $r0 is the nop encoding.
                    if op == Op::binary(Opcode::Add, Dest::R(0), 0, Src::R(0)) {
                        Op::nop()
                    } else {
                        op
                    }
                }
                Format::Monadic => Op::monadic(opc, d, s1),
                Format::Select => Op::select(opc, d, b, s1, src2),
                Format::Carry => Op::carry(opc, d, bd, b, s1, s2),
                Format::Load => Op::load(opc, d, s1, imm),
                Format::Store => Op::store(opc, s1, imm, s2),
                Format::Prefetch => Op::prefetch(s1, imm),
                Format::Branch => {
                    Op::branch(opc, b, ((imm as i64).rem_euclid(1 << 22) as i32 - 1024) * 4)
                }
                Format::Jump => Op::jump(opc, ((imm as i64).rem_euclid(1 << 22) as i32 - 1024) * 4),
                Format::Indirect => Op::jump(opc, 0),
                Format::Syscall => Op::syscall((imm as u32) & 0x1F_FFFF),
                Format::Nop => Op::nop(),
            }
        })
}

fn words(o: &Object) -> Vec<u32> {
    o.code
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The operations of the bundle at the start of `w`, nops left out.
fn real_ops(w: &[u32]) -> Vec<Op> {
    decode_bundle(w)
        .unwrap()
        .ops
        .into_iter()
        .map(|(o, _)| o)
        .filter(|o| o.opc != Opcode::Nop)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn assemble_encode_decode_print_round_trip(op in op_strategy()) {
        let text = format_op(&op, CODE_BASE);
        let obj = assemble(&format!("{text} ;;\n")).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        let w = words(&obj);
        let expected = encode_bundle(&[op], CODE_BASE).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&w, &expected.words, "{}", text);
        let ops = real_ops(&w);
        let want: Vec<Op> = if op.opc == Opcode::Nop { vec![] } else { vec![op] };
        prop_assert_eq!(&ops, &want, "{}", text);
        // Print the decoded operations again and re-assemble: the same words.
        let again: Vec<String> = decode_bundle(&w).unwrap().ops.iter().map(|(o, _)| format_op(o, CODE_BASE)).collect();
        let obj2 = assemble(&format!("{} ;;\n", again.join("\n"))).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(words(&obj2), w);
    }

    #[test]
    fn simulator_matches_semantics(k in 0..Opcode::ALL.len(), a in any::<u32>(), b in any::<u32>(),
                                   imm in any_imm(), use_imm in any::<bool>(), to_b in any::<bool>(), cin in any::<bool>()) {
        let opc = Opcode::ALL[k];
        let info = opc.info();
        let src2 = if use_imm { Src::Imm(imm) } else { Src::R(2) };
        let bval = if use_imm { imm as u32 } else { b };
        let (op, expected) = match info.format {
            Format::Binary => {
                let to_b = to_b && info.props.contains(OpProps::COMPARE);
                let dest = if to_b { Dest::B(1) } else { Dest::R(3) };
                (Op::binary(opc, dest, 1, src2), semantics::binary(opc, a, bval))
            }
            Format::Monadic => (Op::monadic(opc, 3, 1), semantics::monadic(opc, a)),
            Format::Select => (Op::select(opc, 3, 2, 1, src2), semantics::select(opc, cin, a, bval)),
            Format::Carry => {
                let (r, c) = semantics::execute(opc, a, b, cin).unwrap();
                // Result in r3, carry into $b1, combined below as r3 ^ (carry << 0) checked apart.
                (Op::carry(opc, 3, 1, 2, 1, 2), r ^ u32::from(c))
            }
            _ => return Ok(()),
        };
        let dest_is_b = op.dest == Dest::B(1);
        let tail = match info.format {
            Format::Carry => "mfb $r4 = $b1 ;;\n xor $r16 = $r3, $r4 ;;",
            _ if dest_is_b => "mfb $r16 = $b1 ;;",
            _ => "mov $r16 = $r3 ;;",
        };
        let src = format!(
            "main:\n mov $r1 = {}\n mov $r2 = {} ;;\n mov $r5 = {} ;;\n mtb $b2 = $r5 ;;\n {} ;;\n {}\n return $r63 ;;\n",
            a as i32, b as i32, cin as u32, format_op(&op, CODE_BASE), tail
        );
        let obj = assemble(&src).map_err(|e| TestCaseError::fail(format!("{src}: {e}")))?;
        let r = run(&obj, &RunOptions::default());
        prop_assert!(r.trap.is_none(), "{:?}", r.trap);
        prop_assert_eq!(r.exit_code as u32, expected, "{}", src);
    }

    #[test]
    fn random_words_as_code_never_panic(code in proptest::collection::vec(any::<u32>(), 1..48),
                                        stops in proptest::collection::vec(any::<bool>(), 48)) {
        // Bias towards decodable bundles: clear the reserved bit of most words and set stop
        // bits at random.
        let mut obj = Object::new(Target::St231);
        for (i, w) in code.iter().enumerate() {
            let mut w = *w & !(1 << 30);
            if stops[i] { w |= STOP } else { w &= !STOP }
            obj.code.extend_from_slice(&w.to_le_bytes());
        }
        obj.data_base = CODE_BASE + obj.code.len() as u32;
        obj.symbols.push(Symbol { name: "main".into(), kind: SymbolKind::Function, addr: CODE_BASE, size: 0 });
        let opts = RunOptions { max_cycles: 20_000, max_call_depth: 64, mem_size: 1 << 20, ..RunOptions::default() };
        let r = run(&obj, &opts);
        prop_assert!(r.trap.is_some() || r.totals.cycles <= 20_000);
        // A trap stops the clock at its cycle: the totals count up to it.
        if let Some(t) = &r.trap {
            prop_assert_eq!(r.totals.cycles, t.cycle);
        }
        let _ = simulator::asm::disassemble(&obj);
    }

    #[test]
    fn valid_ops_as_code_never_panic(ops in proptest::collection::vec(op_strategy(), 1..40)) {
        // Streams of valid operations, one per bundle, run from the start.
        let mut obj = Object::new(Target::St231);
        for op in &ops {
            let addr = CODE_BASE + obj.code.len() as u32;
            if let Ok(b) = encode_bundle(&[*op], addr) {
                for w in b.words { obj.code.extend_from_slice(&w.to_le_bytes()); }
            }
        }
        if obj.code.is_empty() { return Ok(()); }
        obj.data_base = CODE_BASE + obj.code.len() as u32;
        obj.annotations.push(Annotation { addr: CODE_BASE, flags: OpFlags::COPY });
        let opts = RunOptions { max_cycles: 20_000, max_call_depth: 64, mem_size: 1 << 20, ..RunOptions::default() };
        let _ = run(&obj, &opts);
    }

    #[test]
    fn corrupted_objects_never_panic(flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
                                     cut in any::<usize>(), fix_checksum in any::<bool>()) {
        let src = "main:\n mov $r1 = tab ;;\n ldw $r16 = 0[$r1] ;;\n call f ;;\n return $r63 ;;\nf: return $r63 ;;\n.data\ntab: .word 7\n";
        let mut bytes = assemble(src).unwrap().to_bytes();
        for (pos, val) in flips {
            let n = bytes.len();
            bytes[pos % n] ^= val;
        }
        if fix_checksum {
            // Recompute the checksum so that the structural checks are exercised too.
            let body = bytes.len() - 4;
            let mut h: u32 = 0x811c_9dc5;
            for &b in &bytes[..body] { h ^= u32::from(b); h = h.wrapping_mul(0x0100_0193); }
            bytes[body..].copy_from_slice(&h.to_le_bytes());
        }
        let cut = cut % (bytes.len() + 1);
        for candidate in [&bytes[..], &bytes[..cut]] {
            if let Ok(obj) = Object::from_bytes(candidate) {
                let opts = RunOptions { max_cycles: 10_000, mem_size: 1 << 20, ..RunOptions::default() };
                let _ = run(&obj, &opts);
                let _ = simulator::asm::disassemble(&obj);
            }
        }
    }
}

#[test]
fn illegal_encoding_traps_when_executed() {
    let mut obj = Object::new(Target::St231);
    // nop ;; then a word with the reserved bit set.
    for w in [STOP, 0x4000_0000 | STOP] {
        obj.code.extend_from_slice(&w.to_le_bytes());
    }
    obj.data_base = CODE_BASE + 8;
    let r = run(&obj, &RunOptions::default());
    let t = r.trap.expect("trap");
    assert_eq!(
        t.to_string(),
        "trap: illegal encoding 0xc0000000 at pc 0x00001004 (no function), cycle 1"
    );
    // The same word in a bundle that is never executed does no harm.
    let src = "main:\n mov $r16 = 4 ;;\n return $r63 ;;\n";
    let mut ok = assemble(src).unwrap();
    ok.code
        .extend_from_slice(&(0x4000_0000u32 | STOP).to_le_bytes());
    ok.data_base += 16;
    assert_eq!(run(&ok, &RunOptions::default()).exit_code, 4);
}

#[test]
fn illegal_bundle_traps() {
    // Two loads in one bundle (one memory unit).
    let enc = |d| {
        simulator::isa::st231::encoding::encode_op(&Op::load(Opcode::Ldw, d, 12, -8))
            .unwrap()
            .0
    };
    let mut obj = Object::new(Target::St231);
    for w in [enc(1), enc(2) | STOP] {
        obj.code.extend_from_slice(&w.to_le_bytes());
    }
    obj.data_base = CODE_BASE + 8;
    let t = run(&obj, &RunOptions::default()).trap.expect("trap");
    assert!(
        t.to_string().contains("more than one memory operation"),
        "{t}"
    );
}

#[test]
fn dismissible_load_does_not_trap() {
    let r = run(
        &assemble("main:\n ldw.d $r16 = 0[$r0] ;;\n return $r63 ;;\n").unwrap(),
        &RunOptions::default(),
    );
    assert_eq!((r.trap, r.exit_code), (None, 0));
    let r = run(
        &assemble("main:\n ldw $r16 = 0[$r0] ;;\n return $r63 ;;\n").unwrap(),
        &RunOptions::default(),
    );
    assert!(r.trap.is_some());
}

#[test]
fn multiplies_sit_in_odd_lanes() {
    let obj = assemble("main:\n mul32 $r1 = $r2, $r3\n mulll $r4 = $r5, $r6\n add $r7 = $r0, 1 ;;\n mul64h $r8 = $r1, $r1 ;;\n return $r63 ;;\n").unwrap();
    let w = words(&obj);
    let mut i = 0;
    while i < w.len() {
        let b = decode_bundle(&w[i..]).unwrap();
        for (op, slot) in &b.ops {
            if op.opc.is_mul() {
                let addr = CODE_BASE + 4 * (i + slot) as u32;
                assert_eq!(addr & 4, 4, "{op:?} at {addr:#x}");
            }
        }
        i += b.syllables;
    }
}
