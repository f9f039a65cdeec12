//! Back-end configurations of the differential oracle: the program's SSA IR (mid-level
//! pipeline `-O2` plus the runtime routines, as `ssalab compile` builds it) taken through
//! `compiler::backend::compile_module` for one target and one [`BackendConfig`], with the
//! machine-IR verifier and the allocation checker on (`verify = true`). After every back-end
//! pass the machine-level interpreter (`compiler::mir::interp`) runs the whole module and its
//! output and exit status are compared with the host build; the linked object then runs on
//! the cycle-level simulator (`simulator::sim::run`) and is compared the same way.
//!
//! Stage names are `TARGET/CONFIG/PASS`: `st120/baseline/irc`, `st231/baseline-r8/sim`. A
//! configuration's stages, in order: `mid` (the mid-level pipeline and the runtime; its
//! passes are bisected by the `O2` configuration), `isel`, the configuration's function
//! passes, `sched`, `emit`, `sim`. A compiler error, a verifier or checker failure, a trap
//! or a panic is a mismatch naming the stage where it happened; a panic after the last
//! interpreted pass is charged to `sched` (scheduling and emission share no hook).
//!
//! Budgets (why these factors): the machine-level interpreter counts machine operations:
//! a few per IR instruction plus spill code, but a division or remainder becomes a call of
//! a runtime routine (`__ssalab_divs` ...) costing hundreds of operations where the IR
//! interpreter counts one step (a first campaign hit 4× as false runaways); so it gets 32×
//! the IR budget, and the simulator, which counts cycles (stalls included), 128× it. Both stay finite so a miscompiled loop ends as
//! a runaway, not a hang.

use super::oracle::{guarded, Behaviour, Configuration, End, Failure, StageResult};
use compiler::backend::{self, BackendConfig, BackendError};
use compiler::ir::Module;
use compiler::mir;
use compiler::pipeline::{self, OptLevel};
use simulator::isa::Target;
use simulator::machine::RunOptions;
use simulator::object::Object;
use std::ops::ControlFlow;

/// Machine-level interpreter steps per IR step of the budget.
const MIR_STEP_FACTOR: u64 = 32;
/// Simulator cycles per IR step of the budget.
const SIM_CYCLE_FACTOR: u64 = 128;

/// A change applied to the linked object before simulation (tests plant bugs with it).
pub type ObjectTamper = fn(&mut Object);

/// One target under one back-end configuration.
pub struct BackendStages {
    name: String,
    config: BackendConfig,
    /// Mid-level optimisation level of the module handed to the back end.
    opt: OptLevel,
    /// Applied to the object before simulation (planted-bug tests only).
    pub tamper: Option<ObjectTamper>,
}

impl BackendStages {
    /// `config` for its target, with verification forced on; named
    /// `TARGET/CONFIG` (`-rN` appended under `--regs N`).
    pub fn new(mut config: BackendConfig) -> Self {
        config.verify = true;
        let mut name = format!("{}/{}", config.target.name(), config.name);
        if let Some(n) = config.regalloc.regs {
            name.push_str(&format!("-r{n}"));
        }
        BackendStages {
            name,
            config,
            opt: OptLevel::O2,
            tamper: None,
        }
    }

    /// The baseline configuration for `target`, restricted to `regs` registers per class.
    pub fn baseline(target: Target, regs: Option<u32>) -> Self {
        let mut c = BackendConfig::baseline(target);
        c.regalloc.regs = regs;
        BackendStages::new(c)
    }

    fn stage(&self, pass: &str) -> String {
        format!("{}/{pass}", self.name)
    }

    /// The SSA module handed to the back end: mid-level pipeline, then the runtime.
    fn mid_level(&self, front: &Module) -> Result<Module, String> {
        let mut m = front.clone();
        pipeline::run_passes(
            &mut m,
            &pipeline::mid_level_passes(self.opt),
            &mut |_, _| Ok(()),
        )
        .map_err(|e| e.to_string())?;
        backend::add_runtime(&mut m, self.opt)?;
        Ok(m)
    }
}

/// Every back-end configuration for `targets` × `regs` (`None` = the whole register file).
pub fn backend_configurations(
    targets: &[Target],
    regs: &[Option<u32>],
) -> Vec<Box<dyn Configuration>> {
    let mut v: Vec<Box<dyn Configuration>> = Vec::new();
    for &t in targets {
        for &r in regs {
            v.push(Box::new(BackendStages::baseline(t, r)));
        }
    }
    v
}

/// Runs a machine-level module with the machine-IR interpreter.
pub fn interpret_mir(m: &mir::Module, steps: u64, max_output: usize) -> StageResult {
    let opts = mir::interp::InterpOptions {
        max_steps: steps,
        max_output,
        ..Default::default()
    };
    match guarded(|| mir::interp::run_module(m, "main", &opts)) {
        Err(msg) => StageResult::Failed(Failure::Panic, format!("machine-IR interpreter: {msg}")),
        Ok(Ok(o)) => StageResult::Ran(Behaviour {
            output: o.output,
            exit: o.exit_code as u8,
            end: End::Normal,
            steps: o.steps,
        }),
        Ok(Err(t)) => {
            let end = match t.kind {
                mir::interp::TrapKind::StepLimit(_) => End::StepLimit,
                _ => End::Trap(t.to_string()),
            };
            StageResult::Ran(Behaviour {
                output: Vec::new(),
                exit: 0,
                end,
                steps: t.steps,
            })
        }
    }
}

/// Runs an object on the cycle-level simulator.
pub fn simulate(obj: &Object, cycles: u64, max_output: usize) -> StageResult {
    let opts = RunOptions {
        max_cycles: cycles,
        max_output,
        ..RunOptions::default()
    };
    match guarded(|| simulator::sim::run(obj, &opts)) {
        Err(msg) => StageResult::Failed(Failure::Panic, format!("simulator: {msg}")),
        Ok(r) => {
            let end = match &r.trap {
                None => End::Normal,
                Some(t) if matches!(t.kind, simulator::machine::TrapKind::CycleBudget) => {
                    End::StepLimit
                }
                Some(t) => End::Trap(format!("simulator: {t}")),
            };
            StageResult::Ran(Behaviour {
                output: r.output,
                exit: r.exit_code as u8,
                end,
                steps: r.totals.cycles,
            })
        }
    }
}

/// The failure kind of a back-end error: a verifier or checker rejection, or a pass error.
fn error_kind(e: &BackendError) -> Failure {
    if e.message.contains("machine-IR verifier") || e.message.contains("allocation checker") {
        Failure::MachineVerifier
    } else {
        Failure::PassError
    }
}

impl Configuration for BackendStages {
    fn name(&self) -> &str {
        &self.name
    }

    fn stages(&self) -> Vec<String> {
        let mut v = vec![self.stage("mid")];
        v.extend(
            backend::pass_names(&self.config)
                .iter()
                .map(|p| self.stage(p)),
        );
        v.push(self.stage("sim"));
        v
    }

    fn run(
        &self,
        front: &Module,
        steps: u64,
        max_output: usize,
        observe: &mut dyn FnMut(&str, StageResult) -> ControlFlow<()>,
    ) {
        let module = match guarded(|| self.mid_level(front)) {
            Ok(Ok(m)) => m,
            Ok(Err(msg)) => {
                let _ = observe(
                    &self.stage("mid"),
                    StageResult::Failed(Failure::PassError, msg),
                );
                return;
            }
            Err(msg) => {
                let _ = observe(&self.stage("mid"), StageResult::Failed(Failure::Panic, msg));
                return;
            }
        };
        let mir_steps = steps.saturating_mul(MIR_STEP_FACTOR);
        let mut stopped = false;
        let mut last_seen: Option<String> = None;
        let mut hook = |pass: &str, m: &mir::Module| -> Result<(), String> {
            last_seen = Some(pass.to_string());
            match observe(&self.stage(pass), interpret_mir(m, mir_steps, max_output)) {
                ControlFlow::Continue(()) => Ok(()),
                ControlFlow::Break(()) => {
                    stopped = true;
                    Err("stopped by the oracle".to_string())
                }
            }
        };
        let compiled = guarded(|| backend::compile_module(&module, &self.config, &mut hook));
        if stopped {
            return;
        }
        let mut out = match compiled {
            Ok(Ok(out)) => out,
            Ok(Err(e)) => {
                let kind = error_kind(&e);
                let _ = observe(
                    &self.stage(&e.pass),
                    StageResult::Failed(kind, e.to_string()),
                );
                return;
            }
            Err(msg) => {
                // The stage after the last one the hook saw.
                let names = backend::pass_names(&self.config);
                let next = match &last_seen {
                    None => 0,
                    Some(p) => names.iter().position(|n| n == p).map_or(0, |i| i + 1),
                };
                let pass = names.get(next).map_or("emit", |s| s.as_str());
                let _ = observe(
                    &self.stage(pass),
                    StageResult::Failed(Failure::Panic, format!("panic: {msg}")),
                );
                return;
            }
        };
        if let Some(t) = self.tamper {
            t(&mut out.object);
        }
        let cycles = steps.saturating_mul(SIM_CYCLE_FACTOR);
        let _ = observe(
            &self.stage("sim"),
            simulate(&out.object, cycles, max_output),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_target_configuration_and_register_limit() {
        let c = BackendStages::baseline(Target::St120, Some(8));
        assert_eq!(c.name(), "st120/baseline-r8");
        let s = c.stages();
        assert_eq!(s.first().unwrap(), "st120/baseline-r8/mid");
        assert!(s.contains(&"st120/baseline-r8/irc".to_string()), "{s:?}");
        assert_eq!(s.last().unwrap(), "st120/baseline-r8/sim");
        assert_eq!(
            BackendStages::baseline(Target::St231, None).name(),
            "st231/baseline"
        );
    }

    #[test]
    fn every_stage_agrees_on_a_small_program() {
        let src = "int g[4] = {1, 2, 3, 4};\n\
                   int f(int a, int b) { return a * b - g[a & 3]; }\n\
                   int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += f(i, i + 1);\n\
                   return s & 255; }\n";
        let front = compiler::front::compile_source_to_ir("t.c", src, &Default::default()).unwrap();
        // s = sum i(i+1) - g[i&3] over 0..10 = 330 - 23 = 307; 307 & 255 = 51.
        for c in backend_configurations(&[Target::St231, Target::St120], &[None, Some(8)]) {
            let mut seen = Vec::new();
            c.run(&front, 1_000_000, 1 << 16, &mut |stage, r| {
                match r {
                    StageResult::Ran(b) => {
                        assert_eq!(b.end, End::Normal, "{stage}");
                        assert_eq!(b.exit, 51, "{stage}");
                    }
                    StageResult::Failed(k, m) => panic!("{stage}: {k}: {m}"),
                }
                seen.push(stage.to_string());
                ControlFlow::Continue(())
            });
            // isel, out-of-ssa, irc, frame, sim
            assert_eq!(seen.len(), 5, "{seen:?}");
            assert!(seen.last().unwrap().ends_with("/sim"));
        }
    }
}
