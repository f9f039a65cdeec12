//! `printf` conversion specifications, shared by the IR interpreter (which formats at run
//! time on the host) and the instruction selectors of both targets (which expand a literal
//! format at compile time).
//!
//! A specification is C99 7.19.6.1's `%[flags][width][.precision][length]conversion` with
//! flags `- + space # 0`, a decimal or `*` width and precision, the length modifiers
//! `hh h l j z t` (the last four change nothing on ILP32 except `j`, see below) and the
//! conversions `d i u o x X c s p %`. `ll`/`L`/`q` and the floating-point conversions are
//! refused with a message (the subset has neither `long long` nor floating point yet).
//!
//! [`format_int`] and [`format_str`] are the reference formatter: the interpreter prints
//! with them, and the targets' runtime routines (`__ssalab_printf_int`,
//! `__ssalab_printf_str` in `compiler/runtime/runtime.c`) implement the same rules in C.
//! Both are checked against the host C library by the bench programs
//! (`programs/features/printf_flags.c`).
//!
//! Complexity: O(length of the specification) to parse, O(width + digits) to format.

/// Flag bits, as passed to the runtime routines (`spec` argument bits 8..).
pub const LEFT: u32 = 1 << 8;
pub const ZERO: u32 = 1 << 9;
pub const PLUS: u32 = 1 << 10;
pub const SPACE: u32 = 1 << 11;
pub const ALT: u32 = 1 << 12;
/// `h`: the argument is converted to (unsigned) short before formatting.
pub const SHORT: u32 = 1 << 13;
/// `hh`: the argument is converted to (unsigned) char.
pub const CHAR: u32 = 1 << 14;

/// Field width or precision: absent, a constant, or taken from the next argument (`*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    None,
    Fixed(u32),
    Star,
}

/// One parsed conversion specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Flag and length bits ([`LEFT`] … [`CHAR`]).
    pub flags: u32,
    pub width: Count,
    pub precision: Count,
    /// The conversion character (`d i u o x X c s p %`).
    pub conv: u8,
    /// Bytes of the format the specification occupies, the `%` included.
    pub len: usize,
}

/// The largest width or precision written in a format (`%5000d` is an error naming this
/// limit, never a silently narrower field), and the largest `*` width or precision the IR
/// interpreter formats (it builds the field in memory; the targets' runtime routines print
/// any `*` value, one character at a time). Documented in docs/c-subset.md.
pub const MAX_COUNT: u32 = 4096;

impl Spec {
    /// The word passed to the runtime routines: conversion in bits 0..8, flags above.
    pub fn word(&self) -> i32 {
        (self.flags | u32::from(self.conv)) as i32
    }

    /// True when the target's inline expansion handles it (no flag, width, precision or
    /// `h`/`hh`, one of `d i u x X c s`).
    pub fn is_plain(&self) -> bool {
        self.flags == 0
            && self.width == Count::None
            && self.precision == Count::None
            && matches!(self.conv, b'd' | b'i' | b'u' | b'x' | b'X' | b'c' | b's')
    }
}

/// Parses the specification starting at `fmt[0] == b'%'`.
pub fn parse_spec(fmt: &[u8]) -> Result<Spec, String> {
    let mut i = 1;
    let mut flags = 0;
    while let Some(&c) = fmt.get(i) {
        flags |= match c {
            b'-' => LEFT,
            b'0' => ZERO,
            b'+' => PLUS,
            b' ' => SPACE,
            b'#' => ALT,
            _ => break,
        };
        i += 1;
    }
    let (width, n) = parse_count(&fmt[i..], "width")?;
    i += n;
    let mut precision = Count::None;
    if fmt.get(i) == Some(&b'.') {
        i += 1;
        let (p, n) = parse_count(&fmt[i..], "precision")?;
        // "%.d" is precision zero.
        precision = if p == Count::None { Count::Fixed(0) } else { p };
        i += n;
    }
    match (fmt.get(i), fmt.get(i + 1)) {
        (Some(b'h'), Some(b'h')) => {
            flags |= CHAR;
            i += 2;
        }
        (Some(b'h'), _) => {
            flags |= SHORT;
            i += 1;
        }
        (Some(b'l'), Some(b'l')) | (Some(b'L' | b'q'), _) => {
            return Err(
                "printf length `ll`/`L`/`q` needs long long or long double, which the subset \
                 lacks"
                    .into(),
            )
        }
        (Some(b'l' | b'j' | b'z' | b't'), _) => i += 1,
        _ => {}
    }
    let Some(&conv) = fmt.get(i) else {
        return Err("printf format ends inside a conversion".into());
    };
    if !matches!(
        conv,
        b'd' | b'i' | b'u' | b'o' | b'x' | b'X' | b'c' | b's' | b'p' | b'%'
    ) {
        return Err(format!(
            "printf conversion `%{}` is not supported (supported: d i u o x X c s p %, flags \
             - + space # 0, width, precision, length hh h l j z t)",
            char::from(conv).escape_default()
        ));
    }
    if conv == b'%' && i != 1 {
        return Err("printf: `%%` takes no flags, width or precision".into());
    }
    Ok(Spec {
        flags,
        width,
        precision,
        conv,
        len: i + 1,
    })
}

/// A decimal or `*` count at the start of `s` (the `what` of a specification), and its
/// length; a decimal one above [`MAX_COUNT`] is refused.
fn parse_count(s: &[u8], what: &str) -> Result<(Count, usize), String> {
    if s.first() == Some(&b'*') {
        return Ok((Count::Star, 1));
    }
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 {
        return Ok((Count::None, 0));
    }
    let v = s[..n].iter().fold(0u64, |v, &d| {
        v.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    });
    if v > u64::from(MAX_COUNT) {
        return Err(format!(
            "printf {what} `{}` is beyond the limit of {MAX_COUNT}",
            String::from_utf8_lossy(&s[..n])
        ));
    }
    Ok((Count::Fixed(v as u32), n))
}

/// Applies a `*` width: a negative one means `-` and its magnitude (C99 7.19.6.1p5). Not
/// capped: the targets print any width (the interpreter checks [`MAX_COUNT`] itself).
pub fn star_width(flags: u32, w: i32) -> (u32, u32) {
    if w < 0 {
        (flags | LEFT, w.unsigned_abs())
    } else {
        (flags, w as u32)
    }
}

/// Formats an integer conversion (`d i u o x X c p`) of the promoted argument `v`.
/// `width` 0 means none; `precision` `None` means absent.
pub fn format_int(conv: u8, flags: u32, width: u32, precision: Option<u32>, v: i32) -> Vec<u8> {
    if conv == b'c' {
        return pad_text(&[v as u8], flags, width);
    }
    let (signed, unsigned) = if flags & CHAR != 0 {
        (i32::from(v as i8), u32::from(v as u8))
    } else if flags & SHORT != 0 {
        (i32::from(v as i16), u32::from(v as u16))
    } else {
        (v, v as u32)
    };
    let mut prefix: Vec<u8> = Vec::new();
    let (magnitude, base) = match conv {
        b'd' | b'i' => {
            if signed < 0 {
                prefix.push(b'-');
            } else if flags & PLUS != 0 {
                prefix.push(b'+');
            } else if flags & SPACE != 0 {
                prefix.push(b' ');
            }
            (signed.unsigned_abs(), 10)
        }
        b'o' => (unsigned, 8),
        b'x' | b'X' | b'p' => (unsigned, 16),
        _ => (unsigned, 10),
    };
    let digits: Vec<u8> = if magnitude == 0 {
        Vec::new()
    } else {
        match base {
            8 => format!("{magnitude:o}").into_bytes(),
            16 if conv == b'X' => format!("{magnitude:X}").into_bytes(),
            16 => format!("{magnitude:x}").into_bytes(),
            _ => magnitude.to_string().into_bytes(),
        }
    };
    let mut zeros = precision.unwrap_or(1).saturating_sub(digits.len() as u32);
    if flags & ALT != 0 && conv == b'o' && zeros == 0 && digits.first() != Some(&b'0') {
        zeros = 1;
    }
    if (flags & ALT != 0 && magnitude != 0 && matches!(conv, b'x' | b'X')) || conv == b'p' {
        prefix.extend_from_slice(if conv == b'X' { b"0X" } else { b"0x" });
    }
    let body = prefix.len() as u32 + zeros + digits.len() as u32;
    if flags & ZERO != 0 && flags & LEFT == 0 && precision.is_none() {
        zeros += width.saturating_sub(body);
    }
    let mut text = prefix;
    text.extend(std::iter::repeat_n(b'0', zeros as usize));
    text.extend_from_slice(&digits);
    pad_text(&text, flags, width)
}

/// Formats `%s` of `s` (the bytes before the terminating zero).
pub fn format_str(flags: u32, width: u32, precision: Option<u32>, s: &[u8]) -> Vec<u8> {
    let n = precision.map_or(s.len(), |p| s.len().min(p as usize));
    pad_text(&s[..n], flags, width)
}

/// Pads `text` with spaces to `width` (on the right under `-`).
fn pad_text(text: &[u8], flags: u32, width: u32) -> Vec<u8> {
    let fill = (width as usize).saturating_sub(text.len());
    let mut out = Vec::with_capacity(text.len() + fill);
    if flags & LEFT == 0 {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
    out.extend_from_slice(text);
    if flags & LEFT != 0 {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(spec: &str, v: i32) -> String {
        let s = parse_spec(spec.as_bytes()).unwrap();
        assert_eq!(s.len, spec.len(), "{spec}");
        let w = match s.width {
            Count::Fixed(w) => w,
            _ => 0,
        };
        let p = match s.precision {
            Count::Fixed(p) => Some(p),
            _ => None,
        };
        String::from_utf8(format_int(s.conv, s.flags, w, p, v)).unwrap()
    }

    /// Expected strings are C99 7.19.6.1's rules, worked by hand (and what glibc prints).
    #[test]
    fn integer_flags_width_precision() {
        assert_eq!(f("%5d", 42), "   42");
        assert_eq!(f("%-5d", 42), "42   ");
        assert_eq!(f("%05d", -42), "-0042");
        assert_eq!(f("%+d", 7), "+7");
        assert_eq!(f("% d", 7), " 7");
        assert_eq!(f("%+ d", 7), "+7");
        assert_eq!(f("%.3d", 7), "007");
        assert_eq!(f("%08.3d", -7), "    -007");
        assert_eq!(f("%.0d", 0), "");
        assert_eq!(f("%5.0d", 0), "     ");
        assert_eq!(f("%ld", i32::MIN), "-2147483648");
        assert_eq!(f("%lu", -1), "4294967295");
        assert_eq!(f("%li", -5), "-5");
        assert_eq!(f("%#x", 255), "0xff");
        assert_eq!(f("%#X", 255), "0XFF");
        assert_eq!(f("%#x", 0), "0");
        // `#` changes only o, x and X.
        assert_eq!(f("%#u", 12), "12");
        assert_eq!(f("%#d", -12), "-12");
        assert_eq!(f("%#o", 8), "010");
        assert_eq!(f("%#o", 0), "0");
        assert_eq!(f("%#.0o", 0), "0");
        assert_eq!(f("%o", 8), "10");
        assert_eq!(f("%08x", 0xbeef), "0000beef");
        assert_eq!(f("%#08x", 0xbeef), "0x00beef");
        assert_eq!(f("%-4c", 65), "A   ");
        assert_eq!(f("%hd", 65535), "-1");
        assert_eq!(f("%hhu", 257), "1");
        assert_eq!(f("%hx", -1), "ffff");
    }

    #[test]
    fn strings_and_stars() {
        let s = parse_spec(b"%-*.*s").unwrap();
        assert_eq!(
            (s.width, s.precision, s.conv),
            (Count::Star, Count::Star, b's')
        );
        assert_eq!(format_str(0, 6, Some(3), b"abcdef"), b"   abc");
        assert_eq!(format_str(LEFT, 4, None, b"ab"), b"ab  ");
        assert_eq!(star_width(0, -3), (LEFT, 3));
        assert_eq!(parse_spec(b"%.s").unwrap().precision, Count::Fixed(0));
    }

    #[test]
    fn refusals_name_the_problem() {
        assert!(parse_spec(b"%lld").unwrap_err().contains("ll"));
        assert!(parse_spec(b"%f").unwrap_err().contains("`%f`"));
        assert!(parse_spec(b"%5").is_err());
        assert!(parse_spec(b"%5%").is_err());
        // Written counts above the limit are errors naming it, not narrower fields.
        assert_eq!(parse_spec(b"%4096d").unwrap().width, Count::Fixed(4096));
        let e = parse_spec(b"%4097d").unwrap_err();
        assert!(
            e.contains("width `4097`") && e.contains("limit of 4096"),
            "{e}"
        );
        let e = parse_spec(b"%.99999999999999999999s").unwrap_err();
        assert!(
            e.contains("precision") && e.contains("limit of 4096"),
            "{e}"
        );
        assert_eq!(star_width(0, -5000), (LEFT, 5000));
        assert!(!parse_spec(b"%5d").unwrap().is_plain());
        assert!(parse_spec(b"%d").unwrap().is_plain());
        // `l` changes nothing on ILP32: %ld is as plain as %d.
        assert!(parse_spec(b"%ld").unwrap().is_plain());
    }
}
