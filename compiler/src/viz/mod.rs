//! Per-function graphs of the back end as Graphviz DOT (issue 26, item 1): what the passes
//! computed, drawn for one point of the pipeline.
//!
//! | kind | what it shows | where the data comes from |
//! |---|---|---|
//! | [`cfg`] | blocks with their instructions, loop depth and frequency; copies and spill code marked | the function after the chosen pass, `mir::cfg::CfgInfo` |
//! | [`interference`] | IRC's interference and move graph of each register class, coloured by the registers IRC assigns, pinned vregs on their register's node | `regalloc::irc::allocate_traced` |
//! | [`affinity`] | copy and phi affinities with their `5^depth` weights; for `pinning_phi` its per-block graphs with the pruned edges and the merged webs; for `C`/`Cc` the coalesced webs | the function; `leung_george::translate_traced`; `coalesce::*::coalesce_traced` |
//! | [`congruence`] | Sreedhar III's phi congruence classes or Boissinot et al.'s classes, with the copies that split them | `sreedhar3::*_traced`, `boissinot::translate_traced` |
//! | [`ddg`] | per block, the data-dependence graph of Brandner & Colombet's copy elimination | `post_ra::ddg::block_graphs` |
//!
//! # How the passes' own data is reached
//! The pipeline's hook hands over the module after every pass ([`Stages`]). A kind that
//! needs what a pass computed internally (a colouring, pruned edges, classes) replays that
//! pass on a copy of its input — the module after the previous pass — through the pass's
//! traced entry point, which records the data while doing exactly the same work (the passes
//! are deterministic; the traced and untraced entry points share all their code). Nothing is
//! recomputed by an approximation of the pass.
//!
//! # The point of the pipeline
//! `--after PASS` names a stage: the start (`isel` for C, `lai` for LAI input) or a function
//! pass of the configuration. Each kind has a default ([`default_point`]): the last pass for
//! `cfg`, the input of the pass whose data the kind draws for the others. A kind that does
//! not apply to the configuration or to the chosen point is an error naming why.

pub mod affinity;
pub mod cfg;
pub mod congruence;
pub mod ddg;
pub mod dot;
pub mod interference;

use crate::backend::BackendConfig;
use crate::mir;

/// A graph kind of `--emit dot=KIND`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Cfg,
    Interference,
    Affinity,
    Congruence,
    Ddg,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Cfg,
        Kind::Interference,
        Kind::Affinity,
        Kind::Congruence,
        Kind::Ddg,
    ];

    /// The name in `--emit dot=…` and in file names (`main.cfg.dot`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Cfg => "cfg",
            Kind::Interference => "interference",
            Kind::Affinity => "affinity",
            Kind::Congruence => "congruence",
            Kind::Ddg => "ddg",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// The machine module after each stage of one back-end run.
pub struct Stages<'a> {
    pub config: &'a BackendConfig,
    /// `(stage, module)`: the start (`isel` or `lai`), then one per function pass of
    /// `config`, in order.
    pub modules: &'a [(String, mir::Module)],
    /// LAI input: per function of the start module, per block, the `.freq` the file gives.
    pub freqs: &'a [Vec<Option<u64>>],
}

impl Stages<'_> {
    fn names(&self) -> Vec<&str> {
        self.modules.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The function pass that runs right after stage `i` (none after the last).
    fn next_pass(&self, i: usize) -> Option<&str> {
        self.config.passes.get(i).map(String::as_str)
    }
}

/// One rendered graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub function: String,
    pub kind: Kind,
    pub dot: String,
}

/// The first function pass of the configuration accepted by `is`, as a stage index of its
/// input (the stage before it).
fn input_of(config: &BackendConfig, is: impl Fn(&str) -> bool) -> Option<usize> {
    config.passes.iter().position(|p| is(p))
}

/// Passes whose data [`congruence`] draws.
pub fn is_congruence_pass(p: &str) -> bool {
    p == "sreedhar3" || p == "sreedhar-cssa" || p.starts_with("boissinot-")
}

/// Passes whose data [`affinity`] overlays.
pub fn is_affinity_pass(p: &str) -> bool {
    p.starts_with("leung-phi") || p == "coalesce" || p == "coalesce-chaitin"
}

/// The stage index a kind draws by default, or why the kind does not apply.
pub fn default_point(kind: Kind, config: &BackendConfig) -> Result<usize, String> {
    let name = &config.name;
    match kind {
        Kind::Cfg => Ok(config.passes.len()),
        Kind::Interference => input_of(config, |p| p == "irc").ok_or_else(|| {
            format!(
                "interference: configuration `{name}` does not run `irc` (iterated register \
                 coalescing), whose interference graph this kind draws; road-2 and Pereira \
                 configurations allocate without one"
            )
        }),
        Kind::Affinity => Ok(input_of(config, |p| p.starts_with("leung-phi"))
            .or_else(|| input_of(config, |p| p.starts_with("coalesce")))
            .unwrap_or(0)),
        Kind::Congruence => input_of(config, is_congruence_pass).ok_or_else(|| {
            format!(
                "congruence: configuration `{name}` has no Sreedhar or Boissinot out-of-SSA \
                 pass (sreedhar3, sreedhar-cssa, boissinot-*), which build congruence classes"
            )
        }),
        Kind::Ddg => input_of(config, |p| p == "ddg").ok_or_else(|| {
            format!(
                "ddg: configuration `{name}` does not run the post-allocation copy \
                 elimination `ddg` (configurations DDG and DDG_phi do)"
            )
        }),
    }
}

/// Renders `kind` for every function of the module at `after` (default: the kind's point),
/// or only for `function`.
pub fn render(
    kind: Kind,
    stages: &Stages,
    after: Option<&str>,
    function: Option<&str>,
) -> Result<Vec<Rendered>, String> {
    let point = match after {
        Some(a) => stages
            .modules
            .iter()
            .position(|(n, _)| n == a)
            .ok_or_else(|| {
                format!(
                    "unknown pass `{a}` for --after in configuration `{}`; valid: {}",
                    stages.config.name,
                    stages.names().join(", ")
                )
            })?,
        None => default_point(kind, stages.config)?,
    };
    // The kind must apply to the configuration even when the point is given.
    default_point(kind, stages.config)?;
    let (stage, module) = stages
        .modules
        .get(point)
        .ok_or_else(|| format!("{}: no module after stage {point}", kind.name()))?;
    let next = stages.next_pass(point);
    let mut out = Vec::new();
    for (k, f) in module.functions.iter().enumerate() {
        if function.is_some_and(|n| n != f.name) {
            continue;
        }
        let ctx = Context {
            stage,
            next,
            config: stages.config,
            freqs: stages.freqs.get(k).map(Vec::as_slice),
        };
        let dot = match kind {
            Kind::Cfg => Ok(cfg::render(f, &ctx)),
            Kind::Interference => interference::render(f, &ctx),
            Kind::Affinity => affinity::render(f, &ctx),
            Kind::Congruence => congruence::render(f, &ctx),
            Kind::Ddg => ddg::render(f, &ctx),
        }?;
        out.push(Rendered {
            function: f.name.clone(),
            kind,
            dot,
        });
    }
    if let (Some(n), true) = (function, out.is_empty()) {
        let names: Vec<&str> = module.functions.iter().map(|f| f.name.as_str()).collect();
        return Err(format!(
            "no function `{n}` in the module after `{stage}`; functions: {}",
            names.join(", ")
        ));
    }
    Ok(out)
}

/// What a kind's renderer knows besides the function.
pub struct Context<'a> {
    /// The stage the function comes from.
    pub stage: &'a str,
    /// The function pass that runs next on it (the one a kind may replay).
    pub next: Option<&'a str>,
    pub config: &'a BackendConfig,
    /// LAI `.freq` of each block (same block numbering as the start module).
    pub freqs: Option<&'a [Option<u64>]>,
}

impl Context<'_> {
    /// The title line of a graph: function, kind, point, configuration.
    fn title(&self, f: &mir::Function, kind: Kind) -> String {
        format!(
            "@{} {} after {} ({})",
            f.name,
            kind.name(),
            self.stage,
            self.config.name
        )
    }

    /// The graph's name: `function.kind`.
    fn graph_name(f: &mir::Function, kind: Kind) -> String {
        format!("{}.{}", f.name, kind.name())
    }
}

/// `%N` for a vreg, the register's name for a physical register.
pub fn reg_label(f: &mir::Function, r: mir::Reg) -> String {
    match r {
        mir::Reg::V(v) => format!("%{}", v.0),
        mir::Reg::P(p) => mir::target::reg_name(f.target, p),
    }
}

#[cfg(test)]
mod tests;
