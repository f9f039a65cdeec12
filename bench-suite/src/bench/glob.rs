//! Shell-style glob patterns for `--programs`, matched against manifest program paths.
//!
//! Syntax: `?` one character other than `/`; `*` any run of characters other than `/`;
//! `**` any run of characters including `/`, and `**/` any run of whole directories
//! (possibly none, so `dsp/**/x.c` matches `dsp/x.c`); `[abc]`, `[a-z]`, `[!a-z]` one
//! character (not `/`) of / not of a set; every other character matches itself.
//!
//! Matching is a dynamic programme over (pattern token, text position) — O(tokens × chars),
//! no backtracking blow-up.

/// One element of a compiled pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Char(char),
    /// `?`
    Any,
    /// `*`
    Star,
    /// `**` not followed by `/`
    DoubleStar,
    /// `**/`: empty, or anything ending with `/`
    Dirs,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Token {
    /// Whether a single-character token matches `c`.
    fn matches_char(&self, c: char) -> bool {
        match self {
            Token::Char(x) => *x == c,
            Token::Any => c != '/',
            Token::Class { negated, ranges } => {
                c != '/' && (ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated)
            }
            Token::Star | Token::DoubleStar | Token::Dirs => false,
        }
    }
}

/// A compiled glob pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    pattern: String,
    tokens: Vec<Token>,
}

impl Glob {
    /// Compiles `pattern`; an unterminated or empty `[...]` class is an error.
    pub fn new(pattern: &str) -> Result<Glob, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '?' => tokens.push(Token::Any),
                '*' if chars.get(i + 1) == Some(&'*') => {
                    if chars.get(i + 2) == Some(&'/') {
                        tokens.push(Token::Dirs);
                        i += 2;
                    } else {
                        tokens.push(Token::DoubleStar);
                        i += 1;
                    }
                }
                '*' => tokens.push(Token::Star),
                '[' => {
                    let (token, next) = parse_class(&chars, i)
                        .ok_or_else(|| format!("bad glob `{pattern}`: unterminated `[`"))?;
                    tokens.push(token);
                    i = next;
                    continue;
                }
                c => tokens.push(Token::Char(c)),
            }
            i += 1;
        }
        Ok(Glob {
            pattern: pattern.to_string(),
            tokens,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether the whole of `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        // can[j]: the tokens seen so far match text[..j].
        let mut can = vec![false; text.len() + 1];
        can[0] = true;
        let mut next = vec![false; text.len() + 1];
        for tok in &self.tokens {
            match tok {
                Token::Star | Token::DoubleStar => {
                    next[0] = can[0];
                    for j in 1..=text.len() {
                        let extend =
                            next[j - 1] && (*tok == Token::DoubleStar || text[j - 1] != '/');
                        next[j] = can[j] || extend;
                    }
                }
                Token::Dirs => {
                    // next[j]: can[j] (no directory), or text[j-1] == '/' and can[k] for some
                    // k < j.
                    let mut any_before = false;
                    for j in 0..=text.len() {
                        next[j] = can[j] || (j > 0 && text[j - 1] == '/' && any_before);
                        any_before |= can[j];
                    }
                }
                _ => {
                    next[0] = false;
                    for j in 1..=text.len() {
                        next[j] = can[j - 1] && tok.matches_char(text[j - 1]);
                    }
                }
            }
            std::mem::swap(&mut can, &mut next);
        }
        can[text.len()]
    }
}

/// Parses the class starting at `chars[start] == '['`; returns it and the index after `]`.
fn parse_class(chars: &[char], start: usize) -> Option<(Token, usize)> {
    let mut i = start + 1;
    let negated = matches!(chars.get(i), Some('!') | Some('^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    // A `]` right after the opening (or the negation) is a member, as in shells.
    let mut first = true;
    loop {
        let c = *chars.get(i)?;
        if c == ']' && !first {
            return Some((Token::Class { negated, ranges }, i + 1));
        }
        first = false;
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|&h| h != ']') {
            ranges.push((c, chars[i + 2]));
            i += 3;
        } else {
            ranges.push((c, c));
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, t: &str) -> bool {
        Glob::new(p).unwrap().matches(t)
    }

    #[test]
    fn literals_and_wildcards() {
        assert!(m("dsp/fir.c", "dsp/fir.c"));
        assert!(!m("dsp/fir.c", "dsp/fir.cc"));
        assert!(m("dsp/*.c", "dsp/fir.c"));
        assert!(!m("dsp/*.c", "codec/fir.c"));
        assert!(!m("*.c", "dsp/fir.c"), "* does not cross /");
        assert!(m("*/fir.c", "dsp/fir.c"));
        assert!(m("dsp/f?r.c", "dsp/fir.c"));
        assert!(!m("dsp?fir.c", "dsp/fir.c"), "? does not match /");
        assert!(m("*", ""));
        assert!(!m("?", ""));
        assert!(m("", ""));
        assert!(!m("", "a"));
    }

    #[test]
    fn double_star() {
        assert!(m("**", "a/b/c.c"));
        assert!(m("**.c", "a/b/c.c"));
        assert!(m("dsp/**/x.c", "dsp/x.c"));
        assert!(m("dsp/**/x.c", "dsp/a/b/x.c"));
        assert!(!m("dsp/**/x.c", "dspx.c"));
        assert!(m("**/fir.c", "dsp/fir.c"));
        assert!(m("**/fir.c", "fir.c"));
    }

    #[test]
    fn classes() {
        assert!(m("dsp/[a-c]*.c", "dsp/biquad.c"));
        assert!(!m("dsp/[a-c]*.c", "dsp/fir.c"));
        assert!(m("dsp/[!a-c]*.c", "dsp/fir.c"));
        assert!(m("[]]", "]"));
        assert!(m("[a-]", "-"));
        assert!(!m("a[/]b", "a/b"), "classes never match /");
        assert!(Glob::new("dsp/[a-").is_err());
        assert!(Glob::new("[").is_err());
    }

    #[test]
    fn many_stars_stay_fast() {
        // Would take exponential time with naive backtracking.
        let p = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
        let t = "a".repeat(200);
        assert!(!m(p, &t));
    }
}
