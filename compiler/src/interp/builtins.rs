//! Functions the interpreter provides itself: the output intrinsics of `ssalab.h`
//! (`print_int`, `print_char`), and the few C library entry points that need the host
//! (`putchar`, `printf`, `exit`, `abort`).
//!
//! `printf` formats with the shared reference formatter of
//! [`crate::isel::printf_spec`] (the conversions, flags, widths and precisions the targets
//! expand too). Arguments are the promoted 32-bit values the caller passed.

use super::{Machine, TrapKind};

/// Names of all builtins (a call to any other undefined function traps).
pub const NAMES: [&str; 6] = [
    "print_int",
    "print_char",
    "putchar",
    "printf",
    "exit",
    "abort",
];

/// What a builtin call does to the run.
pub enum Effect {
    Return(i32),
    Exit(i32),
}

pub(super) fn call(m: &mut Machine<'_>, name: &str, args: &[i32]) -> Result<Effect, TrapKind> {
    let arg = |k: usize| -> Result<i32, TrapKind> {
        args.get(k).copied().ok_or_else(|| {
            TrapKind::BadCall(format!("{name} needs at least {} argument(s)", k + 1))
        })
    };
    let r = match name {
        "print_int" => {
            let s = arg(0)?.to_string();
            emit(m, s.as_bytes())?;
            0
        }
        "print_char" | "putchar" => {
            let c = arg(0)?;
            emit(m, &[c as u8])?;
            c & 0xff
        }
        "printf" => {
            let fmt = m.mem.c_string(arg(0)? as u32, 1 << 20)?;
            let text = format_printf(m, &fmt, &args[1..])?;
            emit(m, &text)?;
            text.len() as i32
        }
        "exit" => return Ok(Effect::Exit(arg(0)?)),
        "abort" => return Err(TrapKind::Abort),
        _ => return Err(TrapKind::UnknownFunction(name.to_string())),
    };
    Ok(Effect::Return(r))
}

fn emit(m: &mut Machine<'_>, bytes: &[u8]) -> Result<(), TrapKind> {
    if m.output.len() + bytes.len() > m.opts.max_output {
        return Err(TrapKind::OutputLimit);
    }
    m.output.extend_from_slice(bytes);
    Ok(())
}

fn format_printf(m: &Machine<'_>, fmt: &[u8], args: &[i32]) -> Result<Vec<u8>, TrapKind> {
    use crate::isel::printf_spec::{self as ps, Count};
    let mut out = Vec::new();
    let mut next = 0usize;
    let mut take = || -> Result<i32, TrapKind> {
        let v = args
            .get(next)
            .copied()
            .ok_or_else(|| TrapKind::BadCall("printf: too few arguments".to_string()))?;
        next += 1;
        Ok(v)
    };
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let spec = ps::parse_spec(&fmt[i..]).map_err(TrapKind::BadCall)?;
        i += spec.len;
        if spec.conv == b'%' {
            out.push(b'%');
            continue;
        }
        let (flags, width) = match spec.width {
            Count::None => (spec.flags, 0),
            Count::Fixed(w) => (spec.flags, w),
            Count::Star => ps::star_width(spec.flags, take()?),
        };
        let precision = match spec.precision {
            Count::None => None,
            Count::Fixed(p) => Some(p),
            // A negative `*` precision is taken as if it were omitted.
            Count::Star => u32::try_from(take()?).ok(),
        };
        // The field is built in memory: a `*` count beyond the limit is refused by name
        // rather than allocated (the targets print it; see `MAX_COUNT`). A string's precision
        // only cuts the string, so it needs no limit.
        let digits = precision.filter(|_| spec.conv != b's');
        if let Some(big) = [Some(width), digits]
            .into_iter()
            .flatten()
            .find(|&c| c > ps::MAX_COUNT)
        {
            return Err(TrapKind::BadCall(format!(
                "printf: a `*` width or precision of {big} is beyond the interpreter's limit of {}",
                ps::MAX_COUNT
            )));
        }
        let v = take()?;
        let text = if spec.conv == b's' {
            ps::format_str(flags, width, precision, &m.mem.c_string(v as u32, 1 << 20)?)
        } else {
            ps::format_int(spec.conv, flags, width, precision, v)
        };
        out.extend_from_slice(&text);
    }
    Ok(out)
}
