//! Instruction selection: mid-level SSA IR ([`crate::ir`], after `ssa` and the optimisations)
//! to machine-level SSA ([`crate::mir`]) for one target, with the renaming constraints of
//! the target as operand pins (ABI registers at entry, exit and calls; tied operands).
//!
//! One module per target ([`st231`], [`st120`]); this module holds what both share: the
//! entry point, options, errors, and the signatures of callees (user functions, builtins,
//! and the runtime routines of `compiler/runtime/runtime.c`).

pub mod printf_spec;
pub mod st120;
pub mod st231;

use crate::ir;
use crate::mir;
use simulator::isa::Target;
use std::fmt;

/// Options of instruction selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IselOptions {
    /// ST120: if-convert small diamonds into guarded code (psi-SSA).
    pub if_convert: bool,
    /// ST120: fold pointer increments into post-modify loads/stores (tied operands).
    pub post_increment: bool,
}

impl Default for IselOptions {
    fn default() -> Self {
        IselOptions {
            if_convert: true,
            post_increment: true,
        }
    }
}

/// Why a function could not be selected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IselError {
    pub function: String,
    pub message: String,
}

impl fmt::Display for IselError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "instruction selection of @{}: {}",
            self.function, self.message
        )
    }
}

impl std::error::Error for IselError {}

/// Parameter and result types of a callee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub params: Vec<ir::Ty>,
    pub ret: Option<ir::Ty>,
}

/// Names of the runtime routines instruction selection may call (defined in C in
/// `compiler/runtime/runtime.c`, compiled with the program by the driver).
pub const RUNTIME_DIVS: &str = "__ssalab_divs";
pub const RUNTIME_DIVU: &str = "__ssalab_divu";
pub const RUNTIME_MODS: &str = "__ssalab_mods";
pub const RUNTIME_MODU: &str = "__ssalab_modu";
/// `printf` conversions with flags, width, precision or `h`/`hh` (see [`printf_spec`]).
pub const RUNTIME_PRINTF_INT: &str = "__ssalab_printf_int";
pub const RUNTIME_PRINTF_STR: &str = "__ssalab_printf_str";
/// Every printf routine's name starts with this (the driver adds them only when needed).
pub const RUNTIME_PRINTF_PREFIX: &str = "__ssalab_printf_";

/// The C source of the runtime routines.
pub const RUNTIME_SOURCE: &str = include_str!("../../runtime/runtime.c");

/// The signature of `callee` as seen from `module`: a function of the module, a runtime
/// routine, or `None` (builtins such as `print_int` are lowered by each target).
pub fn signature(module: &ir::Module, callee: &str) -> Option<Signature> {
    module
        .functions
        .iter()
        .find(|f| f.name == callee)
        .map(|f| Signature {
            params: f.params.iter().map(|&p| f.value_ty(p)).collect(),
            ret: f.ret,
        })
}

/// Selects every function of `module` for `target`.
pub fn select_module(
    module: &ir::Module,
    target: Target,
    opts: &IselOptions,
) -> Result<mir::Module, IselError> {
    let mut functions = Vec::with_capacity(module.functions.len());
    for f in &module.functions {
        functions.push(match target {
            Target::St231 => st231::select_function(module, f, opts)?,
            Target::St120 => st120::select_function(module, f, opts)?,
        });
    }
    Ok(mir::Module {
        target,
        functions,
        globals: module.globals.clone(),
    })
}
