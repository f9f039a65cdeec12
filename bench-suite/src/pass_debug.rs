//! Pass debugging in the manner of LLVM's `-print-before`/`-print-after`: the options
//! (`PassDebugArgs`, shared by `compile`, `run` and `interp`), the list of stages a build goes
//! through (`Pipeline`, used to validate pass names against the chosen configuration) and the
//! `Dumper` that the pipeline hooks call after every stage.
//!
//! A *stage* is one step whose output can be printed: `front` (the front end's IR, before SSA)
//! or `lai` (a parsed linear-assembly file), each mid-level pass, `isel`, each back-end
//! function pass of the configuration, `sched` (the scheduled assembly) and `emit` (the
//! disassembled object). A pass that runs several times (`copyprop` at `-O2`) is several
//! stages with the same name: `--print-after` prints after each run, `--stop-after` stops
//! after the first.
//!
//! Dumps go to stderr, so that stdout keeps the command's own output (assembly with
//! `--emit asm -o -`, the program's output for `run`/`interp`); with `--dump-dir DIR` each
//! dump is a file `DIR/NN-PASS.FUNCTION.txt` instead (`NN` the stage's position, dumps taken
//! before a pass end in `.before.txt`). See docs/debugging.md.

use clap::Args;
use compiler::{ir, mir};
use std::collections::HashMap;
use std::path::PathBuf;

/// The `--help` section of the pass-debugging options.
const HEADING: &str = "Pass debugging (docs/debugging.md)";

/// Pass-debugging options (flattened into the options of `compile`, `run` and `interp`).
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct PassDebugArgs {
    /// Print the program before this pass (repeatable; a pass of the chosen pipeline, or
    /// `all`). Dumps go to stderr (or to --dump-dir).
    #[arg(long, value_name = "PASS", help_heading = HEADING)]
    pub print_before: Vec<String>,
    /// Print the program after this pass (repeatable; a pass of the chosen pipeline, `front`
    /// or `lai` for the input as read, or `all`). Dumps go to stderr (or to --dump-dir).
    #[arg(long, value_name = "PASS", help_heading = HEADING)]
    pub print_after: Vec<String>,
    /// Stop after this pass (its first run): `compile` writes the program as it is then (the
    /// --print-after text of that pass) instead of its usual output; `interp` runs it; `run`
    /// refuses it.
    #[arg(long, value_name = "PASS", help_heading = HEADING)]
    pub stop_after: Option<String>,
    /// Print each function after every pass that changed its printed text (the first stage
    /// prints every function).
    #[arg(long, help_heading = HEADING)]
    pub print_changed: bool,
    /// Restrict the dumps (and --stop-after's output, --emit dot's graphs, --time-passes's
    /// rows) to this function.
    #[arg(long, value_name = "NAME", help_heading = HEADING)]
    pub filter_function: Option<String>,
    /// Write the dumps to DIR/NN-PASS.FUNCTION.txt instead of stderr; alone, dumps every
    /// function after every pass.
    #[arg(long, value_name = "DIR", help_heading = HEADING)]
    pub dump_dir: Option<PathBuf>,
    /// Print per-pass, per-function statistics (time, instructions, copies) with module
    /// totals to stderr.
    #[arg(long, help_heading = HEADING)]
    pub time_passes: bool,
}

impl PassDebugArgs {
    fn prints_after(&self, stage: &str) -> bool {
        // `--dump-dir` alone means "after every pass".
        let everything = self.dump_dir.is_some()
            && self.print_before.is_empty()
            && self.print_after.is_empty()
            && !self.print_changed;
        everything || self.print_after.iter().any(|p| p == stage || p == "all")
    }

    fn prints_before(&self, stage: &str) -> bool {
        self.print_before.iter().any(|p| p == stage || p == "all")
    }

    /// Whether `function` passes `--filter-function`.
    pub fn selects(&self, function: &str) -> bool {
        self.filter_function
            .as_deref()
            .is_none_or(|f| f == function)
    }
}

/// The stages of one build, in the order they run (repeated names included).
#[derive(Clone, Debug)]
pub struct Pipeline {
    pub stages: Vec<String>,
    /// What the pipeline is, for error messages (e.g. "configuration `baseline`, -O2").
    pub context: String,
}

impl Pipeline {
    /// Each stage name once, in order of first run.
    pub fn names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = Vec::new();
        for s in &self.stages {
            if !v.contains(&s.as_str()) {
                v.push(s);
            }
        }
        v
    }

    /// Whether the pipeline has a stage called `name`.
    pub fn has(&self, name: &str) -> bool {
        self.stages.iter().any(|s| s == name)
    }

    /// Checks every pass name of the options against this pipeline: a usage error (the
    /// message lists the valid names) for a name the pipeline does not run.
    pub fn check(&self, args: &PassDebugArgs) -> Result<(), String> {
        let names = self.names();
        let first = names.first().copied().unwrap_or("");
        let after: Vec<&str> = names.iter().copied().chain(["all"]).collect();
        let before: Vec<&str> = names[1.min(names.len())..]
            .iter()
            .copied()
            .chain(["all"])
            .collect();
        for p in &args.print_after {
            self.check_one("--print-after", p, &after)?;
        }
        for p in &args.print_before {
            if p == first {
                return Err(format!(
                    "error: --print-before {p}: `{p}` is the input as read, nothing runs before it (use --print-after {p})"
                ));
            }
            self.check_one("--print-before", p, &before)?;
        }
        if let Some(p) = &args.stop_after {
            self.check_one("--stop-after", p, &names)?;
        }
        Ok(())
    }

    fn check_one(&self, option: &str, name: &str, valid: &[&str]) -> Result<(), String> {
        if valid.contains(&name) {
            return Ok(());
        }
        Err(format!(
            "error: unknown pass `{name}` for {option} ({}); valid: {}",
            self.context,
            valid.join(", ")
        ))
    }
}

/// A printable stage output: the whole text and each function's text.
pub struct Snapshot {
    pub whole: String,
    pub functions: Vec<(String, String)>,
}

/// Something a stage produces that can be dumped.
pub trait Dumpable {
    fn snapshot(&self) -> Snapshot;
}

impl Dumpable for ir::Module {
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            whole: self.to_string(),
            functions: self
                .functions
                .iter()
                .map(|f| (f.name.clone(), f.to_string()))
                .collect(),
        }
    }
}

impl Dumpable for mir::Module {
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            whole: self.to_string(),
            functions: self
                .functions
                .iter()
                .map(|f| (f.name.clone(), f.to_string()))
                .collect(),
        }
    }
}

/// A listing (assembly text or disassembly) cut into functions at the lines that start one
/// of `names` (`NAME:`, or objdump's `ADDR <NAME>:`): the text from there to the next such
/// line, or to a line that starts a data section, is that function's.
pub struct Listing<'a> {
    pub text: &'a str,
    pub names: &'a [String],
}

impl Dumpable for Listing<'_> {
    fn snapshot(&self) -> Snapshot {
        let mut functions: Vec<(String, String)> = Vec::new();
        let mut inside = false;
        for line in self.text.lines() {
            if let Some(name) = self.function_starting_at(line) {
                functions.push((name.to_string(), String::new()));
                inside = true;
            } else if starts_section(line) {
                inside = false;
            }
            if let (true, Some((_, text))) = (inside, functions.last_mut()) {
                text.push_str(line);
                text.push('\n');
            }
        }
        Snapshot {
            whole: self.text.to_string(),
            functions,
        }
    }
}

/// Whether `line` starts a section of a listing (which ends the function before it): an
/// assembler section directive, or the disassembler's data dump.
fn starts_section(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    line.starts_with("Contents of section")
        || (!line.starts_with(char::is_whitespace)
            && [".text", ".data", ".bss", ".rodata", ".section"].contains(&first))
}

impl Listing<'_> {
    fn function_starting_at(&self, line: &str) -> Option<&str> {
        let label = line.trim_end().strip_suffix(':')?;
        let label = match label.rsplit_once('<') {
            Some((_, l)) => l.strip_suffix('>')?,
            None => label,
        };
        self.names.iter().find(|n| *n == label).map(String::as_str)
    }
}

/// What the pipeline hooks call after (and, for a stage whose input is not the previous
/// stage's output, before) every stage: prints, `--print-changed`, `--dump-dir` files and the
/// `--stop-after` point.
pub struct Dumper<'a> {
    args: &'a PassDebugArgs,
    stages: Vec<String>,
    /// Stages whose input the caller gives with [`Dumper::before`] (e.g. `isel`, which also
    /// receives the runtime library).
    explicit_inputs: Vec<String>,
    /// Index of the next stage expected.
    next: usize,
    /// `--print-changed`: each function's text after the previous stage.
    previous: HashMap<String, String>,
    /// The `--stop-after` output, once that stage has run.
    stopped: Option<String>,
    /// Whether `--filter-function` named a function of some snapshot.
    filter_seen: bool,
    snapshots_taken: bool,
}

impl<'a> Dumper<'a> {
    pub fn new(args: &'a PassDebugArgs, pipeline: &Pipeline, explicit_inputs: &[&str]) -> Self {
        Dumper {
            args,
            stages: pipeline.stages.clone(),
            explicit_inputs: explicit_inputs.iter().map(|s| s.to_string()).collect(),
            next: 0,
            previous: HashMap::new(),
            stopped: None,
            filter_seen: false,
            snapshots_taken: false,
        }
    }

    /// Called once `stage` has run, with its output. Returns true when the pipeline must stop
    /// here (`--stop-after`): the output is then in [`Dumper::stopped`].
    pub fn after(&mut self, stage: &str, out: &dyn Dumpable) -> Result<bool, String> {
        let index = self.advance(stage);
        let stops = self.args.stop_after.as_deref() == Some(stage) && self.stopped.is_none();
        let next = self.stages.get(index + 1).cloned();
        let before_next = next
            .as_deref()
            .filter(|n| !self.explicit_inputs.iter().any(|e| e == n) && self.args.prints_before(n));
        let wanted = self.args.prints_after(stage)
            || self.args.print_changed
            || stops
            || before_next.is_some();
        if !wanted {
            return Ok(false);
        }
        let snap = self.take(out);
        if self.args.prints_after(stage) {
            self.dump(index, stage, "after", &snap, false)?;
        }
        if self.args.print_changed {
            self.dump(index, stage, "after", &snap, true)?;
            self.previous = snap.functions.iter().cloned().collect();
        }
        if let (false, Some(n)) = (stops, before_next) {
            let n = n.to_string();
            self.dump(index + 1, &n, "before", &snap, false)?;
        }
        if stops {
            self.stopped = Some(self.render(&snap));
        }
        Ok(stops)
    }

    /// Called just before `stage` runs, for a stage listed as an explicit input in
    /// [`Dumper::new`]: prints the input when `--print-before` asks for it.
    pub fn before(&mut self, stage: &str, input: &dyn Dumpable) -> Result<(), String> {
        if !self.args.prints_before(stage) {
            return Ok(());
        }
        let index = self.position(stage);
        let snap = self.take(input);
        self.dump(index, stage, "before", &snap, false)
    }

    /// The `--stop-after` output, once the pipeline stopped.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// An error when `--filter-function` named no function of any dump.
    pub fn check_filter(&self) -> Result<(), String> {
        match &self.args.filter_function {
            Some(f) if self.snapshots_taken && !self.filter_seen => Err(format!(
                "error: --filter-function {f}: the program has no function `{f}`"
            )),
            _ => Ok(()),
        }
    }

    fn position(&self, stage: &str) -> usize {
        self.stages[self.next..]
            .iter()
            .position(|s| s == stage)
            .map_or(self.next, |i| self.next + i)
    }

    fn advance(&mut self, stage: &str) -> usize {
        let index = self.position(stage);
        self.next = index + 1;
        index
    }

    fn take(&mut self, out: &dyn Dumpable) -> Snapshot {
        let snap = out.snapshot();
        self.snapshots_taken = true;
        if let Some(f) = &self.args.filter_function {
            self.filter_seen |= snap.functions.iter().any(|(n, _)| n == f);
        }
        snap
    }

    /// The text of a snapshot as `--print-after` shows it (below its header line): the
    /// whole module, or with `--filter-function` that function only.
    fn render(&self, snap: &Snapshot) -> String {
        match &self.args.filter_function {
            None => snap.whole.clone(),
            Some(_) => snap
                .functions
                .iter()
                .filter(|(n, _)| self.args.selects(n))
                .map(|(_, t)| t.as_str())
                .collect(),
        }
    }

    /// Prints one dump (or writes its files). `changed_only`: the functions whose text
    /// differs from the previous stage's.
    fn dump(
        &self,
        index: usize,
        stage: &str,
        when: &str,
        snap: &Snapshot,
        changed_only: bool,
    ) -> Result<(), String> {
        let functions: Vec<&(String, String)> = snap
            .functions
            .iter()
            .filter(|(n, t)| {
                self.args.selects(n) && (!changed_only || self.previous.get(n) != Some(t))
            })
            .collect();
        if let Some(dir) = &self.args.dump_dir {
            return write_dump_files(dir, index, stage, when, &functions);
        }
        let mut text = String::new();
        if changed_only {
            for (name, body) in functions {
                text += &format!("// {when} {stage} (changed): @{name}\n{body}");
            }
        } else if self.args.filter_function.is_none() {
            text += &format!("// {when} {stage}\n{}", snap.whole);
        } else {
            for (name, body) in functions {
                text += &format!("// {when} {stage}: @{name}\n{body}");
            }
        }
        crate::eprint!("{text}");
        Ok(())
    }
}

/// `--dump-dir`: one file per function, `DIR/NN-STAGE.FUNCTION.txt` (`.before.txt` for a
/// dump taken before the stage).
fn write_dump_files(
    dir: &std::path::Path,
    index: usize,
    stage: &str,
    when: &str,
    functions: &[&(String, String)],
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("error: {}: {e}", dir.display()))?;
    let suffix = if when == "before" { ".before" } else { "" };
    for (name, body) in functions {
        let file = format!("{index:02}-{stage}.{}{suffix}.txt", file_part(name));
        let path = dir.join(file);
        std::fs::write(&path, body).map_err(|e| format!("error: {}: {e}", path.display()))?;
    }
    Ok(())
}

/// A function name as part of a file name: characters other than letters, digits, `_`, `-`
/// and `.` become `_` (names come from the input file).
pub fn file_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pipeline() -> Pipeline {
        Pipeline {
            stages: ["front", "ssa", "copyprop", "dce", "copyprop", "isel", "irc"]
                .map(String::from)
                .to_vec(),
            context: "test".into(),
        }
    }

    #[test]
    fn check_lists_the_pipeline_names_once() {
        let args = PassDebugArgs {
            print_after: vec!["coalesce".into()],
            ..Default::default()
        };
        let e = pipeline().check(&args).unwrap_err();
        assert!(
            e.contains("valid: front, ssa, copyprop, dce, isel, irc, all"),
            "{e}"
        );
        let args = PassDebugArgs {
            print_before: vec!["front".into()],
            ..Default::default()
        };
        assert!(pipeline()
            .check(&args)
            .unwrap_err()
            .contains("input as read"));
        let args = PassDebugArgs {
            stop_after: Some("all".into()),
            ..Default::default()
        };
        assert!(pipeline().check(&args).is_err());
    }

    #[test]
    fn listing_is_cut_at_function_labels() {
        let names = vec!["main".to_string(), "f".to_string()];
        let text = "\t.text\nf:\n\tadd\nmain:\n\tret\n.bss\ng:\n\t.space 4\n";
        let snap = Listing {
            text,
            names: &names,
        }
        .snapshot();
        assert_eq!(
            snap.functions,
            vec![
                ("f".to_string(), "f:\n\tadd\n".to_string()),
                ("main".to_string(), "main:\n\tret\n".to_string())
            ]
        );
        let dis = "00000000 <main>:\n  0: nop\nContents of section .data:\n";
        let snap = Listing {
            text: dis,
            names: &names,
        }
        .snapshot();
        assert_eq!(
            snap.functions,
            vec![(
                "main".to_string(),
                "00000000 <main>:\n  0: nop\n".to_string()
            )]
        );
    }
}
