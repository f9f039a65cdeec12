//! Decoding of literal spellings: integer constants with their suffixes, character
//! constants and string literals with escape sequences (C99 §6.4.4.1, §6.4.4.4, §6.4.5).
//!
//! Shared by the `#if` evaluator (which computes in 64 bits) and the C token converter
//! (which types constants for ILP32). Errors are returned as messages; the caller adds the
//! place.

/// An integer constant as written: its value (saturated at `u64::MAX` on overflow) and
/// what the spelling says about its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLit {
    pub value: u64,
    pub overflow: bool,
    pub unsigned: bool,
    /// Number of `l` suffixes (0, 1 or 2).
    pub longs: u8,
    /// Decimal constants and octal/hex ones take different type lists.
    pub decimal: bool,
}

/// Parses a pp-number as an integer constant. Floating constants give a distinct error.
pub fn parse_int(spelling: &str) -> Result<IntLit, String> {
    let s = spelling;
    let bytes = s.as_bytes();
    let (radix, digits_start) = if s.len() > 1 && bytes[0] == b'0' && (bytes[1] | 0x20) == b'x' {
        (16, 2)
    } else if bytes.first() == Some(&b'0') {
        (8, 1)
    } else {
        (10, 0)
    };
    let is_digit = |c: u8| match radix {
        16 => c.is_ascii_hexdigit(),
        _ => c.is_ascii_digit(),
    };
    let mut end = digits_start;
    while end < bytes.len() && is_digit(bytes[end]) {
        end += 1;
    }
    let looks_float = |rest: &str| {
        rest.starts_with('.')
            || (radix != 16 && rest.starts_with(['e', 'E']))
            || (radix == 16 && rest.starts_with(['p', 'P']))
    };
    if s.starts_with('.') || looks_float(&s[end..]) {
        return Err("floating-point constants are not supported by ssalab".into());
    }
    if radix == 16 && end == 2 {
        return Err(format!(
            "invalid integer constant `{s}`: no hexadecimal digits"
        ));
    }
    let mut value: u64 = 0;
    let mut overflow = false;
    for &c in &bytes[digits_start..end] {
        let d = (c as char).to_digit(16).unwrap_or(99) as u64;
        if d >= radix {
            return Err(format!(
                "invalid digit `{}` in octal constant `{s}`",
                c as char
            ));
        }
        match value.checked_mul(radix).and_then(|v| v.checked_add(d)) {
            Some(v) => value = v,
            None => {
                overflow = true;
                value = u64::MAX;
            }
        }
    }
    let suffix = &s[end..];
    let lower = suffix.to_ascii_lowercase();
    let (unsigned, longs) = match lower.as_str() {
        "" => (false, 0),
        "u" => (true, 0),
        "l" => (false, 1),
        "ul" | "lu" => (true, 1),
        "ll" => (false, 2),
        "ull" | "llu" => (true, 2),
        _ => return Err(format!("invalid suffix `{suffix}` on integer constant")),
    };
    // `lL` and `Ll` are not valid spellings of the long long suffix.
    if longs == 2 && !(suffix.contains("ll") || suffix.contains("LL")) {
        return Err(format!("invalid suffix `{suffix}` on integer constant"));
    }
    Ok(IntLit {
        value,
        overflow,
        unsigned,
        longs,
        decimal: radix == 10,
    })
}

/// Decodes one escape sequence or character starting at `s[k]` (inside a literal). Returns
/// the byte value and the index after it.
fn decode_one(s: &[u8], k: usize) -> Result<(u32, usize), String> {
    if s[k] != b'\\' {
        return Ok((s[k] as u32, k + 1));
    }
    let Some(&e) = s.get(k + 1) else {
        return Err("incomplete escape sequence".into());
    };
    let simple = match e {
        b'n' => Some(10),
        b't' => Some(9),
        b'r' => Some(13),
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'v' => Some(11),
        b'\\' | b'\'' | b'"' | b'?' => Some(e as u32),
        b'e' | b'E' => Some(27), // GNU extension, common in terminal code
        _ => None,
    };
    if let Some(v) = simple {
        return Ok((v, k + 2));
    }
    if (b'0'..=b'7').contains(&e) {
        let mut v = 0u32;
        let mut j = k + 1;
        while j < s.len() && j < k + 4 && (b'0'..=b'7').contains(&s[j]) {
            v = v * 8 + (s[j] - b'0') as u32;
            j += 1;
        }
        if v > 255 {
            return Err("octal escape sequence out of range".into());
        }
        return Ok((v, j));
    }
    if e == b'x' {
        let mut v = 0u32;
        let mut j = k + 2;
        while j < s.len() && s[j].is_ascii_hexdigit() {
            v = v.saturating_mul(16) + (s[j] as char).to_digit(16).unwrap_or(0);
            j += 1;
        }
        if j == k + 2 {
            return Err("\\x used with no following hex digits".into());
        }
        if v > 255 {
            return Err("hex escape sequence out of range".into());
        }
        return Ok((v, j));
    }
    Err(format!("unknown escape sequence `\\{}`", e as char))
}

fn check_prefix(spelling: &str, quote: char) -> Result<&str, String> {
    if let Some(rest) = spelling.strip_prefix(quote) {
        return Ok(rest);
    }
    let kind = if quote == '"' {
        "wide or Unicode string literals"
    } else {
        "wide or Unicode character constants"
    };
    if spelling.starts_with(['L', 'u', 'U']) {
        Err(format!("{kind} are not supported by ssalab"))
    } else {
        Err("malformed literal".into())
    }
}

/// Value of a character constant of type `int`, with plain `char` signed (so `'\xff'` is
/// -1, as gcc gives on the host). Multi-character constants follow gcc: each character
/// shifts the value left by 8 bits.
pub fn decode_char(spelling: &str) -> Result<i32, String> {
    let body = check_prefix(spelling, '\'')?;
    let body = body
        .strip_suffix('\'')
        .ok_or_else(|| "missing terminating ' character".to_string())?;
    let b = body.as_bytes();
    if b.is_empty() {
        return Err("empty character constant".into());
    }
    let mut k = 0;
    let mut chars = Vec::new();
    while k < b.len() {
        let (v, next) = decode_one(b, k)?;
        chars.push(v);
        k = next;
    }
    if chars.len() == 1 {
        return Ok(chars[0] as u8 as i8 as i32);
    }
    if chars.len() > 4 {
        return Err("character constant too long for its type".into());
    }
    Ok(chars.iter().fold(0u32, |acc, &c| (acc << 8) | c) as i32)
}

/// Bytes of a string literal (without the terminating NUL).
pub fn decode_string(spelling: &str) -> Result<Vec<u8>, String> {
    let body = check_prefix(spelling, '"')?;
    let body = body
        .strip_suffix('"')
        .ok_or_else(|| "missing terminating \" character".to_string())?;
    let b = body.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut k = 0;
    while k < b.len() {
        let (v, next) = decode_one(b, k)?;
        out.push(v as u8);
        k = next;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_suffixes() {
        let l = parse_int("0x80000000").unwrap();
        assert_eq!(
            (l.value, l.unsigned, l.longs, l.decimal),
            (0x8000_0000, false, 0, false)
        );
        let l = parse_int("017ul").unwrap();
        assert_eq!((l.value, l.unsigned, l.longs), (15, true, 1));
        assert!(parse_int("10LU").unwrap().unsigned);
        assert_eq!(
            parse_int("10lL").err().unwrap(),
            "invalid suffix `lL` on integer constant"
        );
        assert!(parse_int("1.5").unwrap_err().contains("floating"));
        assert!(parse_int("1e3").unwrap_err().contains("floating"));
        assert!(parse_int("09").unwrap_err().contains("octal"));
        assert!(parse_int("0x").is_err());
        assert!(parse_int("12abc").is_err());
        assert!(parse_int("99999999999999999999999").unwrap().overflow);
        assert_eq!(parse_int("0").unwrap().value, 0);
    }

    #[test]
    fn characters() {
        assert_eq!(decode_char("'a'"), Ok(97));
        assert_eq!(decode_char("'\\n'"), Ok(10));
        assert_eq!(decode_char("'\\0'"), Ok(0));
        assert_eq!(decode_char("'\\377'"), Ok(-1));
        assert_eq!(decode_char("'\\xff'"), Ok(-1));
        assert_eq!(decode_char("'\\x41'"), Ok(65));
        assert_eq!(decode_char("'\\''"), Ok(39));
        assert_eq!(decode_char("'ab'"), Ok(0x6162));
        assert!(decode_char("''").is_err());
        assert!(decode_char("L'a'").unwrap_err().contains("not supported"));
        assert!(decode_char("'\\x100'").is_err());
    }

    #[test]
    fn strings() {
        assert_eq!(decode_string("\"a\\tb\\\"\""), Ok(b"a\tb\"".to_vec()));
        assert_eq!(decode_string("\"\\1234\""), Ok(vec![0o123, b'4']));
        assert_eq!(decode_string("\"\""), Ok(vec![]));
    }
}
