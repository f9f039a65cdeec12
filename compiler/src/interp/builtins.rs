//! Functions the interpreter provides itself: the output intrinsics of `ssalab.h`
//! (`print_int`, `print_char`), and the few C library entry points that need the host
//! (`putchar`, `printf`, `exit`, `abort`).
//!
//! `printf` supports the conversions of the C subset's runtime: `%d %i %u %x %X %c %s %%`
//! with flags `-`, `0`, a field width, and an ignored `l` length modifier. Arguments are the
//! promoted 32-bit values the caller passed.

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
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let (mut left, mut zero, mut width) = (false, false, 0usize);
        while i < fmt.len() && (fmt[i] == b'-' || fmt[i] == b'0') {
            left |= fmt[i] == b'-';
            zero |= fmt[i] == b'0';
            i += 1;
        }
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            width = (width * 10 + (fmt[i] - b'0') as usize).min(4096);
            i += 1;
        }
        while i < fmt.len() && fmt[i] == b'l' {
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            return Err(TrapKind::BadCall("printf: incomplete conversion".into()));
        };
        i += 1;
        let body: Vec<u8> = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => take()?.to_string().into_bytes(),
            b'u' => (take()? as u32).to_string().into_bytes(),
            b'x' => format!("{:x}", take()? as u32).into_bytes(),
            b'X' => format!("{:X}", take()? as u32).into_bytes(),
            b'c' => vec![take()? as u8],
            b's' => m.mem.c_string(take()? as u32, 1 << 20)?,
            b'p' => format!("0x{:x}", take()? as u32).into_bytes(),
            other => {
                return Err(TrapKind::BadCall(format!(
                    "printf: unsupported conversion %{}",
                    other as char
                )))
            }
        };
        pad(
            &mut out,
            &body,
            width,
            left,
            zero && !left && conv != b's' && conv != b'c',
        );
    }
    Ok(out)
}

fn pad(out: &mut Vec<u8>, body: &[u8], width: usize, left: bool, zero: bool) {
    let fill = width.saturating_sub(body.len());
    if left {
        out.extend_from_slice(body);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if zero {
        // Zero padding goes after the sign.
        let (sign, digits) = match body.first() {
            Some(b'-') => (&body[..1], &body[1..]),
            _ => (&body[..0], body),
        };
        out.extend_from_slice(sign);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(digits);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(body);
    }
}
