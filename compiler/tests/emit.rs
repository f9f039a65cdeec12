//! Scheduling and emission end to end: hand-built final-form machine functions for both
//! targets are scheduled, linked and RUN on the simulator; outputs, exit codes, issue rules
//! of every bundle, annotation counters and the assembly round trip are checked.

use compiler::emit::{self, asm_text, link_module, EmitError};
use compiler::ir::{Global, Reloc};
use compiler::mir::{
    BlockId, Function, Imm, Inst, InstFlags, Module, Opc, Operand, PReg, RegClass, SymPart,
};
use compiler::sched::{self, SchedOptions};
use simulator::isa::st120::{
    self as i120, AddrMode, AuOp, BinOp, CmpCond, CmpKind, LoadKind, MulFamily, MulVariant,
    StoreKind,
};
use simulator::isa::st231::{self as i231, Opcode as O};
use simulator::isa::Target;
use simulator::machine::{RunOptions, RunReport};
use simulator::object::Object;

// ---------------------------------------------------------------------------------------
// Builders

fn r(n: u8) -> Operand {
    Operand::new(PReg::new(RegClass::R, n))
}
fn b(n: u8) -> Operand {
    Operand::new(PReg::new(RegClass::B, n))
}
fn p(n: u8) -> Operand {
    Operand::new(PReg::new(RegClass::P, n))
}
fn g(n: u8) -> Operand {
    Operand::new(PReg::new(RegClass::G, n))
}

/// A function under construction, appending to the current block.
struct Fb {
    f: Function,
    cur: BlockId,
}

impl Fb {
    fn new(name: &str, t: Target) -> Fb {
        let mut f = Function::new(name, t);
        f.frame.finalized = true;
        Fb { f, cur: BlockId(0) }
    }
    fn block(&mut self) -> BlockId {
        self.f.new_block()
    }
    fn at(&mut self, b: BlockId) -> &mut Fb {
        self.cur = b;
        self
    }
    fn push(&mut self, i: Inst) -> &mut Fb {
        self.f.push(self.cur, i);
        self
    }
    /// ST231 operation.
    fn op(&mut self, o: O, defs: &[Operand], uses: &[Operand], imm: Imm) -> &mut Fb {
        self.push(Inst::new(Opc::St231(o), defs.to_vec(), uses.to_vec(), imm))
    }
    /// ST120 operation.
    fn op120(&mut self, o: i120::Opcode, defs: &[Operand], uses: &[Operand], imm: Imm) -> &mut Fb {
        self.push(Inst::new(Opc::St120(o), defs.to_vec(), uses.to_vec(), imm))
    }
    fn flagged(&mut self, f: InstFlags) -> &mut Fb {
        let blk = &mut self.f.blocks[self.cur.index()];
        let last = blk.insts.last_mut().expect("an instruction");
        last.flags |= f;
        self
    }
    // ST231 shorthands
    fn mov(&mut self, d: u8, v: i32) -> &mut Fb {
        self.op(O::Add, &[r(d)], &[r(0)], Imm::Int(v))
    }
    fn sys(&mut self, n: i32) -> &mut Fb {
        self.op(O::Syscall, &[], &[], Imm::Int(n))
    }
    fn print_reg(&mut self, s: u8) -> &mut Fb {
        self.op(O::Add, &[r(16)], &[r(0), r(s)], Imm::None).sys(2)
    }
    fn print_char(&mut self, c: char) -> &mut Fb {
        self.mov(16, c as i32).sys(3)
    }
    fn ret(&mut self) -> &mut Fb {
        self.op(O::Igoto, &[], &[], Imm::None)
    }
    fn goto(&mut self, t: BlockId) -> &mut Fb {
        self.op(O::Goto, &[], &[], Imm::Block(t))
    }
    fn done(&mut self) -> Function {
        std::mem::replace(&mut self.f, Function::new("x", Target::St231))
    }
}

fn module(t: Target, functions: Vec<Function>, globals: Vec<Global>) -> Module {
    Module {
        target: t,
        functions,
        globals,
    }
}

fn global(name: &str, size: u32, init: &[u8]) -> Global {
    Global {
        name: name.into(),
        size,
        align: 4,
        init: init.to_vec(),
        relocs: vec![],
        readonly: false,
    }
}

fn words(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

// ---------------------------------------------------------------------------------------
// Checks

/// Every bundle / issue group of the object obeys the issue rules; ST231 multiplies sit
/// in odd lanes.
fn check_issue_rules(obj: &Object) {
    let words: Vec<u32> = obj
        .code
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut i = 0;
    match obj.target {
        Target::St231 => {
            while i < words.len() {
                let d = i231::encoding::decode_bundle(&words[i..])
                    .unwrap_or_else(|e| panic!("bundle at word {i}: {e:?}"));
                let addr = obj.code_base + 4 * i as u32;
                for (op, slot) in &d.ops {
                    if op.opc.is_mul() {
                        let lane = ((addr >> 2) + *slot as u32) & 1;
                        assert_eq!(lane, 1, "multiply in an even lane at {addr:#x}");
                    }
                    if op.opc.is_control() {
                        assert_eq!(*slot, 0, "control op not first at {addr:#x}");
                    }
                }
                i231::issue::check_bundle(d.ops.iter().map(|(o, s)| (o, *s))).unwrap();
                i += d.syllables;
            }
        }
        Target::St120 => {
            let mut group = Vec::new();
            for w in words {
                let (inst, stop) = i120::encoding::decode(w).expect("decodable word");
                group.push(inst);
                if stop {
                    i120::issue::check_group(&group).unwrap();
                    group.clear();
                }
            }
            assert!(group.is_empty(), "code ends inside an issue group");
        }
    }
}

fn run(obj: &Object) -> RunReport {
    let rep = simulator::sim::run(
        obj,
        &RunOptions {
            max_cycles: 10_000_000,
            ..RunOptions::default()
        },
    );
    assert!(rep.trap.is_none(), "trap: {:?}", rep.trap);
    rep
}

/// Schedule (on or off), link, check the rules and the assembly round trip, run.
fn build(m: &Module, enabled: bool) -> (Object, RunReport) {
    let funcs = sched::schedule_module(m, &SchedOptions { enabled }).expect("schedules");
    let obj = link_module(&funcs, &m.globals, m.target).expect("links");
    check_issue_rules(&obj);
    let text = asm_text(&funcs, &m.globals, m.target).expect("asm text");
    let again =
        simulator::asm::assemble(&text, Some(m.target)).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(again, obj, "assembly round trip differs:\n{text}");
    let rep = run(&obj);
    (obj, rep)
}

/// Run scheduled and unscheduled: same output and exit code; return the scheduled run and
/// the unscheduled one.
fn both(m: &Module) -> (RunReport, RunReport) {
    let (_, on) = build(m, true);
    let (_, off) = build(m, false);
    assert_eq!(on.output, off.output);
    assert_eq!(on.exit_code, off.exit_code);
    (on, off)
}

fn out(rep: &RunReport) -> String {
    String::from_utf8_lossy(&rep.output).into_owned()
}

// ---------------------------------------------------------------------------------------
// ST231

#[test]
fn st231_straight_line_arithmetic() {
    let mut f = Fb::new("main", Target::St231);
    f.mov(1, 6)
        .mov(2, 7)
        .op(O::Mul32, &[r(3)], &[r(1), r(2)], Imm::None)
        .op(O::Sub, &[r(4)], &[r(1), r(3)], Imm::None) // 42 - 6 = 36 (src2 - src1)
        .print_reg(3)
        .print_char(' ')
        .print_reg(4)
        .print_char('\n')
        .mov(16, 5)
        .ret();
    let m = module(Target::St231, vec![f.done()], vec![]);
    let (on, _) = both(&m);
    assert_eq!(out(&on), "42 36\n");
    assert_eq!(on.exit_code, 5);
}

fn loop_module_231() -> Module {
    // sum = 0; for (i = 1; i <= 10; i++) sum += i; print sum
    let mut f = Fb::new("main", Target::St231);
    let body = f.block();
    let exit = f.block();
    f.mov(1, 0).mov(2, 1).goto(body);
    f.at(body)
        .op(O::Add, &[r(1)], &[r(1), r(2)], Imm::None)
        .op(O::Add, &[r(2)], &[r(2)], Imm::Int(1))
        .op(O::Cmple, &[b(0)], &[r(2)], Imm::Int(10))
        .op(O::Br, &[], &[b(0)], Imm::Block(body))
        .goto(exit);
    f.at(exit).print_reg(1).mov(16, 0).ret();
    module(Target::St231, vec![f.done()], vec![])
}

#[test]
fn st231_loop() {
    let (on, _) = both(&loop_module_231());
    assert_eq!(out(&on), "55");
    assert_eq!(on.exit_code, 0);
}

#[test]
fn st231_call_with_frame() {
    // add2 first: main need not be the first function
    let mut a = Fb::new("add2", Target::St231);
    a.op(O::Add, &[r(16)], &[r(16), r(17)], Imm::None).ret();
    let mut m = Fb::new("main", Target::St231);
    m.op(O::Add, &[r(12)], &[r(12)], Imm::Int(-24))
        .flagged(InstFlags::FRAME)
        .op(O::Stw, &[], &[r(12), r(63)], Imm::Int(16))
        .flagged(InstFlags::FRAME)
        .mov(16, 20)
        .mov(17, 22)
        .op(O::Call, &[r(16)], &[r(16), r(17)], Imm::Func("add2".into()))
        .print_reg(16)
        .op(O::Ldw, &[r(63)], &[r(12)], Imm::Int(16))
        .flagged(InstFlags::FRAME)
        .op(O::Add, &[r(12)], &[r(12)], Imm::Int(24))
        .flagged(InstFlags::FRAME)
        .mov(16, 3)
        .ret();
    let md = module(Target::St231, vec![a.done(), m.done()], vec![]);
    let (on, _) = both(&md);
    assert_eq!(out(&on), "42");
    assert_eq!(on.exit_code, 3);
    let (obj, _) = build(&md, true);
    assert_eq!(obj.entry, obj.function("main").unwrap().addr);
    assert!(obj.function("add2").unwrap().addr < obj.entry);
    let stats: Vec<_> = on
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f.calls))
        .collect();
    assert!(stats.contains(&("add2", 1)), "{stats:?}");
}

fn sym(name: &str, offset: i32) -> Imm {
    Imm::Sym {
        name: name.into(),
        offset,
        part: SymPart::Full,
    }
}

fn globals_module_231() -> Module {
    let mut ptr = global("ptr", 4, &[]);
    ptr.relocs.push(Reloc {
        offset: 0,
        symbol: "tab".into(),
        addend: 8,
    });
    let mut zero = global("zero", 8, &[]);
    zero.align = 8;
    let msg = global("msg", 4, b"hi\n");
    let tab = global("tab", 16, &words(&[1, 2, 3, 4]));
    let mut f = Fb::new("main", Target::St231);
    f.op(O::Ldw, &[r(1)], &[r(0)], sym("ptr", 0)) // r1 = &tab[2]
        .op(O::Ldw, &[r(2)], &[r(1)], Imm::Int(0)) // 3
        .print_reg(2)
        .op(O::Add, &[r(3)], &[r(0)], sym("zero", 0))
        .op(O::Ldw, &[r(5)], &[r(3)], Imm::Int(4)) // 0 (bss)
        .print_reg(5)
        .op(O::Stw, &[], &[r(3), r(2)], Imm::Int(4))
        .op(O::Ldw, &[r(4)], &[r(0)], sym("zero", 4))
        .print_reg(4)
        .op(O::Ldw, &[r(6)], &[r(0)], sym("tab", 12))
        .print_reg(6)
        .op(O::Add, &[r(16)], &[r(0)], sym("msg", 0))
        .mov(17, 3)
        .sys(4)
        .mov(16, 0)
        .ret();
    module(Target::St231, vec![f.done()], vec![msg, tab, zero, ptr])
}

#[test]
fn st231_globals_relocations_and_bss() {
    let md = globals_module_231();
    let (on, _) = both(&md);
    assert_eq!(out(&on), "3034hi\n");
    let (obj, _) = build(&md, true);
    assert_eq!(obj.bss_size, 8);
    let tab = obj.symbol("tab").unwrap();
    let ptr = obj.symbol("ptr").unwrap();
    assert_eq!(obj.data_base % 16, 0);
    let at = (ptr.addr - obj.data_base) as usize;
    let v = u32::from_le_bytes(obj.data[at..at + 4].try_into().unwrap());
    assert_eq!(v, tab.addr + 8, "relocation");
}

#[test]
fn st231_long_immediates() {
    let mut f = Fb::new("main", Target::St231);
    f.mov(1, 123_456_789)
        .op(O::Add, &[r(2)], &[r(1)], Imm::Int(-100_000))
        .op(O::Sub, &[r(3)], &[r(1)], Imm::Int(1_000_000_000)) // 1e9 - r1
        .print_reg(2)
        .print_char(' ')
        .print_reg(3)
        .mov(16, 0)
        .ret();
    let m = module(Target::St231, vec![f.done()], vec![]);
    let (on, _) = both(&m);
    assert_eq!(out(&on), "123356789 876543211");
}

/// Eight independent multiply-add chains: scheduling packs them into bundles.
fn ilp_module_231() -> Module {
    let mut f = Fb::new("main", Target::St231);
    for k in 0..8u8 {
        f.mov(1 + k, i32::from(k) + 2);
    }
    for k in 0..8u8 {
        f.op(O::Mul32, &[r(20 + k)], &[r(1 + k), r(1 + k)], Imm::None);
    }
    for k in 0..8u8 {
        f.op(O::Add, &[r(30 + k)], &[r(20 + k)], Imm::Int(i32::from(k)));
    }
    for k in 1..8u8 {
        f.op(O::Add, &[r(30)], &[r(30), r(30 + k)], Imm::None);
    }
    f.print_reg(30).mov(16, 0).ret();
    module(Target::St231, vec![f.done()], vec![])
}

#[test]
fn st231_scheduling_reduces_cycles_on_ilp() {
    let m = ilp_module_231();
    let (on, off) = both(&m);
    // sum of (k+2)^2 + k for k in 0..8
    let want: i32 = (0..8).map(|k| (k + 2) * (k + 2) + k).sum();
    assert_eq!(out(&on), want.to_string());
    assert!(
        on.totals.cycles < off.totals.cycles,
        "scheduled {} vs unscheduled {}",
        on.totals.cycles,
        off.totals.cycles
    );
    assert!(on.totals.bundles < off.totals.bundles);
    eprintln!(
        "ST231 ILP block: cycles scheduled {} / unscheduled {}, bundles {} / {}",
        on.totals.cycles, off.totals.cycles, on.totals.bundles, off.totals.bundles
    );
    let s = sched::schedule_function(&m.functions[0], &SchedOptions::default()).unwrap();
    assert_eq!(s.stats.ops, 8 + 8 + 8 + 7 + 4);
    assert!(s.stats.bundles < s.stats.ops);
}

#[test]
fn st231_annotations_reach_the_counters() {
    // a loop of 10 iterations with one copy, one spill store and one spill load each
    let mut f = Fb::new("main", Target::St231);
    let body = f.block();
    let exit = f.block();
    f.op(O::Add, &[r(12)], &[r(12)], Imm::Int(-8))
        .flagged(InstFlags::FRAME)
        .mov(1, 0)
        .mov(2, 10)
        .goto(body);
    f.at(body)
        .push(Inst::copy(r(3), r(2)))
        .op(O::Stw, &[], &[r(12), r(3)], Imm::Int(0))
        .flagged(InstFlags::SPILL_STORE)
        .op(O::Ldw, &[r(4)], &[r(12)], Imm::Int(0))
        .flagged(InstFlags::SPILL_LOAD)
        .op(O::Add, &[r(1)], &[r(1), r(4)], Imm::None)
        .op(O::Add, &[r(2)], &[r(2)], Imm::Int(-1))
        .op(O::Cmpgt, &[b(1)], &[r(2)], Imm::Int(0))
        .op(O::Br, &[], &[b(1)], Imm::Block(body))
        .goto(exit);
    f.at(exit)
        .print_reg(1)
        .op(O::Add, &[r(12)], &[r(12)], Imm::Int(8))
        .flagged(InstFlags::FRAME)
        .mov(16, 0)
        .ret();
    let m = module(Target::St231, vec![f.done()], vec![]);
    let (on, off) = both(&m);
    assert_eq!(out(&on), "55");
    for rep in [&on, &off] {
        assert_eq!(rep.totals.moves, 10);
        assert_eq!(rep.totals.spill_loads, 10);
        assert_eq!(rep.totals.spill_stores, 10);
        assert_eq!(rep.totals.loads, 0);
        assert_eq!(rep.totals.stores, 0);
    }
}

#[test]
fn errors_not_panics() {
    // phi left
    let mut f = Fb::new("main", Target::St231);
    let v = f.f.new_vreg(RegClass::R);
    f.push(Inst::phi(v, vec![]));
    let m = module(Target::St231, vec![f.done()], vec![]);
    let e = sched::schedule_module(&m, &SchedOptions::default()).unwrap_err();
    assert!(e.to_string().contains("out-of-SSA"), "{e}");
    // undefined callee
    let mut f = Fb::new("main", Target::St231);
    f.op(O::Call, &[], &[], Imm::Func("nowhere".into())).ret();
    let m = module(Target::St231, vec![f.done()], vec![]);
    let e: EmitError = emit::link_mir_module(&m, &SchedOptions::default()).unwrap_err();
    assert!(e.to_string().contains("nowhere"), "{e}");
    // undefined data symbol
    let mut f = Fb::new("main", Target::St231);
    f.op(O::Ldw, &[r(1)], &[r(0)], sym("ghost", 0)).ret();
    let m = module(Target::St231, vec![f.done()], vec![]);
    assert!(emit::link_mir_module(&m, &SchedOptions::default()).is_err());
    // out-of-range syscall number / immediates are reported, not panics
    let mut f = Fb::new("main", Target::St231);
    f.op(O::Syscall, &[], &[], Imm::Int(-1)).ret();
    let m = module(Target::St231, vec![f.done()], vec![]);
    assert!(sched::schedule_module(&m, &SchedOptions::default()).is_err());
    // a multiply may not write $r63
    let mut f = Fb::new("main", Target::St231);
    f.op(O::Mul32, &[r(63)], &[r(1), r(2)], Imm::None).ret();
    let m = module(Target::St231, vec![f.done()], vec![]);
    assert!(sched::schedule_module(&m, &SchedOptions::default()).is_err());
    // ST120: tied operands in different registers
    let mut f = Fb::new("main", Target::St120);
    f.op120(i120::Opcode::MoreA, &[p(1)], &[p(2)], Imm::Int(1));
    let m = module(Target::St120, vec![f.done()], vec![]);
    let e = sched::schedule_module(&m, &SchedOptions::default()).unwrap_err();
    assert!(e.to_string().contains("tied"), "{e}");
}

// ---------------------------------------------------------------------------------------
// Random straight-line programs: scheduling never changes what a program computes.

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

fn random_231(seed: u64) -> Module {
    random_231_len(seed, 40)
}

fn random_231_len(seed: u64, len: usize) -> Module {
    let mut rng = Lcg(seed);
    let mut f = Fb::new("main", Target::St231);
    let buf = global(
        "buf",
        64,
        &words(&[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3]),
    );
    f.op(O::Add, &[r(9)], &[r(0)], sym("buf", 0));
    for k in 1..=8u8 {
        f.mov(k, rng.below(200) as i32 - 100);
    }
    let reg = |rng: &mut Lcg| 1 + rng.below(8) as u8;
    for _ in 0..len {
        let d = reg(&mut rng);
        let (a, c) = (reg(&mut rng), reg(&mut rng));
        match rng.below(9) {
            0 => f.op(O::Add, &[r(d)], &[r(a), r(c)], Imm::None),
            1 => f.op(O::Sub, &[r(d)], &[r(a), r(c)], Imm::None),
            2 => f.op(O::Mul32, &[r(d)], &[r(a), r(c)], Imm::None),
            3 => f.op(O::Xor, &[r(d)], &[r(a)], Imm::Int(rng.below(5000) as i32)),
            4 => f.op(O::Ldw, &[r(d)], &[r(9)], Imm::Int(4 * rng.below(16) as i32)),
            5 => f.op(
                O::Stw,
                &[],
                &[r(9), r(a)],
                Imm::Int(4 * rng.below(16) as i32),
            ),
            6 => f.op(O::Cmplt, &[b(2)], &[r(a), r(c)], Imm::None).op(
                O::Slct,
                &[r(d)],
                &[b(2), r(a), r(c)],
                Imm::None,
            ),
            7 => f.push(Inst::copy(r(d), r(a))),
            _ => f.op(O::Stb, &[], &[r(9), r(a)], Imm::Int(rng.below(64) as i32)),
        };
    }
    for k in 1..=8u8 {
        f.print_reg(k).print_char(' ');
    }
    for w in 0..16 {
        f.op(O::Ldw, &[r(1)], &[r(9)], Imm::Int(4 * w)).print_reg(1);
    }
    f.mov(16, 0).ret();
    module(Target::St231, vec![f.done()], vec![buf])
}

#[test]
fn st231_random_blocks_schedule_correctly() {
    let (mut faster, mut total_on, mut total_off) = (0, 0, 0);
    for seed in 1..=25 {
        let m = random_231(seed);
        let (on, off) = both(&m);
        assert!(!on.output.is_empty());
        if on.totals.cycles < off.totals.cycles {
            faster += 1;
        }
        total_on += on.totals.cycles;
        total_off += off.totals.cycles;
    }
    assert!(
        faster >= 20,
        "scheduling helped only {faster} of 25 programs"
    );
    eprintln!("25 random ST231 blocks: {total_on} cycles scheduled, {total_off} unscheduled");
}

#[test]
fn st231_large_block() {
    let m = random_231_len(99, 3000);
    let t = std::time::Instant::now();
    let s = sched::schedule_function(&m.functions[0], &SchedOptions::default()).unwrap();
    let elapsed = t.elapsed();
    eprintln!(
        "3000-operation block: {} ops in {} bundles, {} schedule cycles, scheduled in {elapsed:?}",
        s.stats.ops, s.stats.bundles, s.stats.cycles
    );
    let (on, off) = both(&m);
    eprintln!(
        "  simulated cycles: scheduled {} unscheduled {}",
        on.totals.cycles, off.totals.cycles
    );
    assert!(on.totals.cycles < off.totals.cycles);
}

// ---------------------------------------------------------------------------------------
// ST120

fn mp(signed: bool) -> i120::Opcode {
    i120::Opcode::Mul(
        MulFamily::Mp,
        MulVariant::new(!signed, !signed, false, false),
    )
}

fn make(f: &mut Fb, d: u8, v: i32) {
    f.op120(i120::Opcode::Make, &[r(d)], &[], Imm::Int(v));
}

fn trap(f: &mut Fb, n: i32) {
    f.op120(i120::Opcode::Trap, &[], &[r(0)], Imm::Int(n));
}

fn rts(f: &mut Fb) {
    f.op120(i120::Opcode::Rts, &[], &[], Imm::None);
}

#[test]
fn st120_straight_line_and_guarded_copy() {
    let mut f = Fb::new("main", Target::St120);
    make(&mut f, 1, 6);
    make(&mut f, 2, 7);
    f.op120(mp(true), &[r(3)], &[r(1), r(2)], Imm::None);
    f.push(Inst::copy(r(0), r(3)));
    trap(&mut f, 2);
    make(&mut f, 0, 32);
    trap(&mut f, 3);
    // G2 = 6 > 3; G2? R0 = R2 (taken), G3 = 6 < 3; G3? R0 = R1 (not taken)
    f.op120(
        i120::Opcode::CmpI(CmpKind::W, CmpCond::Gt),
        &[g(2)],
        &[r(1)],
        Imm::Int(3),
    );
    f.op120(
        i120::Opcode::CmpI(CmpKind::W, CmpCond::Lt),
        &[g(3)],
        &[r(1)],
        Imm::Int(3),
    );
    make(&mut f, 0, 0);
    f.push(Inst::copy(r(0), r(2)).with_flags(InstFlags::GUARDED));
    f.f.blocks[0].insts.last_mut().unwrap().uses.push(g(2));
    f.push(Inst::copy(r(0), r(1)).with_flags(InstFlags::GUARDED));
    f.f.blocks[0].insts.last_mut().unwrap().uses.push(g(3));
    trap(&mut f, 2);
    make(&mut f, 0, 9);
    rts(&mut f);
    let m = module(Target::St120, vec![f.done()], vec![]);
    let (on, _) = both(&m);
    assert_eq!(out(&on), "42 7");
    assert_eq!(on.exit_code, 9);
    assert_eq!(
        on.totals.moves, 3,
        "copies, guarded ones included, are annotated"
    );
}

#[test]
fn st120_loop_with_false_branch() {
    let mut f = Fb::new("main", Target::St120);
    let body = f.block();
    let exit = f.block();
    make(&mut f, 1, 0);
    make(&mut f, 2, 1);
    f.op120(i120::Opcode::Goto, &[], &[], Imm::Block(body));
    f.at(body);
    f.op120(
        i120::Opcode::Bin(BinOp::Add),
        &[r(1)],
        &[r(1), r(2)],
        Imm::None,
    );
    f.op120(
        i120::Opcode::BinI(BinOp::Add),
        &[r(2)],
        &[r(2)],
        Imm::Int(1),
    );
    // G1 = i > 10; loop while G1 is false
    f.op120(
        i120::Opcode::CmpI(CmpKind::W, CmpCond::Gt),
        &[g(1)],
        &[r(2)],
        Imm::Int(10),
    );
    f.op120(i120::Opcode::GotoF, &[], &[g(1)], Imm::Block(body))
        .flagged(InstFlags::GUARDED);
    f.op120(i120::Opcode::Goto, &[], &[], Imm::Block(exit));
    f.at(exit);
    f.push(Inst::copy(r(0), r(1)));
    trap(&mut f, 2);
    make(&mut f, 0, 0);
    rts(&mut f);
    let m = module(Target::St120, vec![f.done()], vec![]);
    let (on, _) = both(&m);
    assert_eq!(out(&on), "55");
}

#[test]
fn st120_call_globals_and_post_increment() {
    let mut a = Fb::new("add2", Target::St120);
    a.op120(
        i120::Opcode::Bin(BinOp::Add),
        &[r(0)],
        &[r(0), r(1)],
        Imm::None,
    );
    rts(&mut a);
    let sp = 15;
    let mut f = Fb::new("main", Target::St120);
    f.op120(
        i120::Opcode::AuI(AuOp::SubB),
        &[p(sp)],
        &[p(sp)],
        Imm::Int(8),
    )
    .flagged(InstFlags::FRAME);
    f.op120(
        i120::Opcode::Store(StoreKind::Aw, AddrMode::PlusImm),
        &[],
        &[p(sp), p(11)],
        Imm::Int(0),
    )
    .flagged(InstFlags::FRAME);
    make(&mut f, 0, 20);
    make(&mut f, 1, 22);
    f.op120(
        i120::Opcode::Call,
        &[r(0)],
        &[r(0), r(1)],
        Imm::Func("add2".into()),
    );
    trap(&mut f, 2);
    // P0 = &tab; R0 = tab[2]; R1 = *P0++ (tab[0]); R2 = *P0 (tab[1])
    let hi = Imm::Sym {
        name: "tab".into(),
        offset: 0,
        part: SymPart::Hi16,
    };
    let lo = Imm::Sym {
        name: "tab".into(),
        offset: 0,
        part: SymPart::Lo16,
    };
    f.op120(i120::Opcode::MakeA, &[p(0)], &[], hi);
    f.op120(i120::Opcode::MoreA, &[p(0)], &[p(0)], lo);
    f.op120(
        i120::Opcode::Load(LoadKind::W, AddrMode::PlusImm),
        &[r(0)],
        &[p(0)],
        Imm::Int(2),
    );
    trap(&mut f, 2);
    f.op120(
        i120::Opcode::Load(LoadKind::W, AddrMode::PostIncImm),
        &[r(1), p(0)],
        &[p(0)],
        Imm::Int(1),
    );
    f.op120(
        i120::Opcode::Load(LoadKind::W, AddrMode::PlusImm),
        &[r(2)],
        &[p(0)],
        Imm::Int(0),
    );
    f.op120(
        i120::Opcode::Bin(BinOp::Add),
        &[r(0)],
        &[r(1), r(2)],
        Imm::None,
    );
    trap(&mut f, 2);
    f.op120(
        i120::Opcode::Load(LoadKind::Aw, AddrMode::PlusImm),
        &[p(11)],
        &[p(sp)],
        Imm::Int(0),
    )
    .flagged(InstFlags::FRAME);
    f.op120(
        i120::Opcode::AuI(AuOp::AddB),
        &[p(sp)],
        &[p(sp)],
        Imm::Int(8),
    )
    .flagged(InstFlags::FRAME);
    make(&mut f, 0, 0);
    rts(&mut f);
    let tab = global("tab", 16, &words(&[10, 20, 30, 40]));
    let m = module(Target::St120, vec![a.done(), f.done()], vec![tab]);
    let (on, _) = both(&m);
    assert_eq!(out(&on), "423030");
}

#[test]
fn st120_ilp_fills_both_slots() {
    let mut f = Fb::new("main", Target::St120);
    for k in 0..6u8 {
        make(&mut f, 1 + k, i32::from(k) + 3);
    }
    for k in 0..3u8 {
        f.op120(
            mp(true),
            &[r(8 + k)],
            &[r(1 + 2 * k), r(2 + 2 * k)],
            Imm::None,
        );
    }
    f.op120(
        i120::Opcode::Bin(BinOp::Add),
        &[r(0)],
        &[r(8), r(9)],
        Imm::None,
    );
    f.op120(
        i120::Opcode::Bin(BinOp::Add),
        &[r(0)],
        &[r(0), r(10)],
        Imm::None,
    );
    trap(&mut f, 2);
    make(&mut f, 0, 0);
    rts(&mut f);
    let m = module(Target::St120, vec![f.done()], vec![]);
    let (on, off) = both(&m);
    assert_eq!(out(&on), (3 * 4 + 5 * 6 + 7 * 8).to_string());
    assert!(
        on.totals.cycles < off.totals.cycles,
        "{} vs {}",
        on.totals.cycles,
        off.totals.cycles
    );
    eprintln!(
        "ST120 ILP block: cycles scheduled {} / unscheduled {}",
        on.totals.cycles, off.totals.cycles
    );
}

fn random_120(seed: u64) -> Module {
    let mut rng = Lcg(seed);
    let mut f = Fb::new("main", Target::St120);
    let buf = global(
        "buf",
        64,
        &words(&[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3]),
    );
    let part = |part| Imm::Sym {
        name: "buf".into(),
        offset: 0,
        part,
    };
    f.op120(i120::Opcode::MakeA, &[p(1)], &[], part(SymPart::Hi16));
    f.op120(i120::Opcode::MoreA, &[p(1)], &[p(1)], part(SymPart::Lo16));
    f.push(Inst::copy(p(2), p(1)));
    for k in 1..=8u8 {
        make(&mut f, k, rng.below(200) as i32 - 100);
    }
    let reg = |rng: &mut Lcg| 1 + rng.below(8) as u8;
    let mut post = 0;
    for _ in 0..40 {
        let d = reg(&mut rng);
        let (a, c) = (reg(&mut rng), reg(&mut rng));
        match rng.below(9) {
            0 => f.op120(
                i120::Opcode::Bin(BinOp::Add),
                &[r(d)],
                &[r(a), r(c)],
                Imm::None,
            ),
            1 => f.op120(
                i120::Opcode::Bin(BinOp::Sub),
                &[r(d)],
                &[r(a), r(c)],
                Imm::None,
            ),
            2 => f.op120(mp(true), &[r(d)], &[r(a), r(c)], Imm::None),
            3 => f.op120(
                i120::Opcode::BinI(BinOp::Xor),
                &[r(d)],
                &[r(a)],
                Imm::Int(rng.below(256) as i32),
            ),
            4 => f.op120(
                i120::Opcode::Load(LoadKind::W, AddrMode::PlusImm),
                &[r(d)],
                &[p(1)],
                Imm::Int(rng.below(16) as i32),
            ),
            5 => f.op120(
                i120::Opcode::Store(StoreKind::W, AddrMode::PlusImm),
                &[],
                &[p(1), r(a)],
                Imm::Int(rng.below(16) as i32),
            ),
            6 => {
                f.op120(
                    i120::Opcode::Cmp(CmpKind::W, CmpCond::Lt),
                    &[g(2)],
                    &[r(a), r(c)],
                    Imm::None,
                );
                f.push(Inst::copy(r(d), r(a)).with_flags(InstFlags::GUARDED));
                let cur = f.cur.index();
                f.f.blocks[cur].insts.last_mut().unwrap().uses.push(g(2));
                &mut f
            }
            7 if post < 15 => {
                post += 1;
                f.op120(
                    i120::Opcode::Load(LoadKind::W, AddrMode::PostIncImm),
                    &[r(d), p(2)],
                    &[p(2)],
                    Imm::Int(1),
                )
            }
            _ => f.push(Inst::copy(r(d), r(a))),
        };
    }
    for k in 1..=8u8 {
        f.push(Inst::copy(r(0), r(k)));
        trap(&mut f, 2);
        make(&mut f, 0, 32);
        trap(&mut f, 3);
    }
    for w in 0..16 {
        f.op120(
            i120::Opcode::Load(LoadKind::W, AddrMode::PlusImm),
            &[r(0)],
            &[p(1)],
            Imm::Int(w),
        );
        trap(&mut f, 2);
    }
    make(&mut f, 0, 0);
    rts(&mut f);
    module(Target::St120, vec![f.done()], vec![buf])
}

#[test]
fn st120_random_blocks_schedule_correctly() {
    let (mut faster, mut total_on, mut total_off) = (0, 0, 0);
    for seed in 1..=25 {
        let m = random_120(seed);
        let (on, off) = both(&m);
        assert!(!on.output.is_empty());
        if on.totals.cycles < off.totals.cycles {
            faster += 1;
        }
        total_on += on.totals.cycles;
        total_off += off.totals.cycles;
    }
    assert!(
        faster >= 20,
        "scheduling helped only {faster} of 25 programs"
    );
    eprintln!("25 random ST120 blocks: {total_on} cycles scheduled, {total_off} unscheduled");
}

/// `if (a < b) print 1 else print 2`, with the conditional branch to the next block (the
/// lowering inverts it into `brf`/`br` to the other block).
fn diamond_231(a: i32, bv: i32, op: O) -> Module {
    let mut f = Fb::new("main", Target::St231);
    let then = f.block();
    let other = f.block();
    let join = f.block();
    f.mov(1, a)
        .mov(2, bv)
        .op(O::Cmplt, &[b(0)], &[r(1), r(2)], Imm::None)
        .op(op, &[], &[b(0)], Imm::Block(then))
        .goto(other);
    f.at(then).mov(3, 1).goto(join);
    f.at(other).mov(3, 2).goto(join);
    f.at(join).print_reg(3).mov(16, 0).ret();
    module(Target::St231, vec![f.done()], vec![])
}

#[test]
fn st231_branches_to_the_next_block_both_ways() {
    for (a, bv, op, want) in [
        (1, 2, O::Br, "1"),
        (3, 2, O::Br, "2"),
        (1, 2, O::Brf, "2"),
        (3, 2, O::Brf, "1"),
    ] {
        let (on, _) = both(&diamond_231(a, bv, op));
        assert_eq!(out(&on), want, "{a} < {bv} with {op:?}");
    }
}

#[test]
fn st231_multiply_lanes_and_padding() {
    // Unscheduled: mov (0x1000), mov (0x1004), mul32 would sit at 0x1008, an even lane:
    // the encoder pads with a nop and every later address moves; the layout pass must agree.
    let mut f = Fb::new("main", Target::St231);
    f.mov(1, 300)
        .mov(2, 7)
        .op(O::Mul32, &[r(3)], &[r(1), r(2)], Imm::None)
        .op(O::Mulll, &[r(4)], &[r(1), r(2)], Imm::None)
        .op(O::Mul32, &[r(5)], &[r(3), r(4)], Imm::None)
        .print_reg(5)
        .mov(16, 0)
        .ret();
    let m = module(Target::St231, vec![f.done()], vec![]);
    let funcs = sched::schedule_module(&m, &SchedOptions { enabled: false }).unwrap();
    let (obj, stats) = emit::link_module_stats(&funcs, &m.globals, m.target).unwrap();
    assert!(stats.padding_nops >= 1, "{stats:?}");
    check_issue_rules(&obj);
    let rep = run(&obj);
    assert_eq!(out(&rep), (2100 * 2100).to_string());
    assert_eq!(rep.totals.nops, stats.padding_nops);
    let (on, _) = both(&m);
    assert_eq!(out(&on), (2100 * 2100).to_string());
}
