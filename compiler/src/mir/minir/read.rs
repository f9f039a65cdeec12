//! Reader of the Minir the exporter writes (block layout with flow-style operations, see
//! [`super`]): document keys, functions, blocks with `freq`, `preds`, `succs` and `ops`, each
//! operation a flow mapping whose values are scalars or (nested) flow sequences, and the
//! comments (the function's comment lines and each operation's trailing comment, which the
//! LAO ignores and [`super::import`] reads). It is not a general YAML reader: any other
//! layout is an error naming its line.
//!
//! Complexity: linear in the text; flow nesting is capped at [`MAX_DEPTH`].

/// Deepest flow-sequence nesting accepted (symbols are `[name, +off]`, inside `uses: [...]`).
pub const MAX_DEPTH: usize = 8;

/// A flow value: a scalar or a sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    Scalar(String),
    Seq(Vec<Val>),
}

impl Val {
    /// The value as written (sequences as `[a, b]`).
    pub fn text(&self) -> String {
        match self {
            Val::Scalar(s) => s.clone(),
            Val::Seq(v) => format!(
                "[{}]",
                v.iter().map(Val::text).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

/// One operation: its keys in order, its trailing comment, its line (1-based).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MOp {
    pub fields: Vec<(String, Val)>,
    pub comment: String,
    pub line: usize,
}

impl MOp {
    pub fn get(&self, key: &str) -> Option<&Val> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// The operator name (`""` when missing).
    pub fn op(&self) -> String {
        self.get("op").map(Val::text).unwrap_or_default()
    }
    /// The items of a sequence key as text (empty when missing or a scalar).
    pub fn list(&self, key: &str) -> Vec<String> {
        match self.get(key) {
            Some(Val::Seq(v)) => v.iter().map(Val::text).collect(),
            _ => vec![],
        }
    }
    /// The notes of the trailing comment (separated by `; `).
    pub fn notes(&self) -> Vec<&str> {
        self.comment.split("; ").map(str::trim).collect()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MBlock {
    pub label: String,
    pub freq: Option<String>,
    pub preds: Option<Vec<String>>,
    pub succs: Option<Vec<String>>,
    pub ops: Vec<MOp>,
    pub line: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MFunction {
    pub label: String,
    /// The comment lines of the function (before `bbs:`), without `# `.
    pub comments: Vec<String>,
    pub blocks: Vec<MBlock>,
    pub line: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MDoc {
    pub ssa: Option<bool>,
    pub functions: Vec<MFunction>,
}

/// Reads the exporter's layout; errors are `line N: message`.
pub fn parse(text: &str) -> Result<MDoc, String> {
    let mut doc = MDoc::default();
    let mut in_functions = false;
    for (k, line) in text.lines().enumerate() {
        let n = k + 1;
        let err = |m: &str| format!("line {n}: {m}: `{line}`");
        let body = line.trim_start();
        let indent = line.len() - body.len();
        if body.is_empty() {
            continue;
        }
        if let Some(c) = body.strip_prefix('#') {
            if indent == 4 {
                if let Some(f) = doc.functions.last_mut() {
                    if f.blocks.is_empty() {
                        f.comments.push(c.trim().to_string());
                    }
                }
            }
            continue;
        }
        match indent {
            0 => match body.split_once(':').map(|(a, b)| (a.trim(), b.trim())) {
                Some(("SSA", v)) => {
                    doc.ssa = Some(match v {
                        "true" => true,
                        "false" => false,
                        _ => return Err(err("SSA must be `true` or `false`")),
                    })
                }
                Some(("functions", "")) => in_functions = true,
                _ => return Err(err("unknown document key")),
            },
            2 if in_functions => {
                let label = body
                    .strip_prefix("- label: ")
                    .ok_or_else(|| err("a function starts with `- label:`"))?;
                doc.functions.push(MFunction {
                    label: label.trim().to_string(),
                    line: n,
                    ..MFunction::default()
                });
            }
            4 if body == "bbs:" => {
                last_function(&mut doc).ok_or_else(|| err("no function"))?;
            }
            6 => {
                let label = body
                    .strip_prefix("- label: ")
                    .ok_or_else(|| err("a block starts with `- label:`"))?;
                last_function(&mut doc)
                    .ok_or_else(|| err("no function"))?
                    .blocks
                    .push(MBlock {
                        label: label.trim().to_string(),
                        line: n,
                        ..MBlock::default()
                    });
            }
            8 => {
                let blk = last_function(&mut doc)
                    .and_then(|f| f.blocks.last_mut())
                    .ok_or_else(|| err("no block"))?;
                let (key, v) = body
                    .split_once(':')
                    .ok_or_else(|| err("expected `key: value`"))?;
                let v = v.trim();
                let list = || -> Result<Vec<String>, String> {
                    match flow_value(&v.chars().collect::<Vec<_>>(), &mut 0, 0)? {
                        Val::Seq(items) => Ok(items.iter().map(Val::text).collect()),
                        Val::Scalar(_) => Err("expected a flow sequence".into()),
                    }
                };
                match key {
                    "freq" => blk.freq = Some(v.to_string()),
                    "preds" => blk.preds = Some(list().map_err(|m| err(&m))?),
                    "succs" => blk.succs = Some(list().map_err(|m| err(&m))?),
                    "ops" if v.is_empty() => {}
                    _ => return Err(err("unknown block key")),
                }
            }
            10 => {
                let blk = last_function(&mut doc)
                    .and_then(|f| f.blocks.last_mut())
                    .ok_or_else(|| err("no block"))?;
                let m = body
                    .strip_prefix("- ")
                    .ok_or_else(|| err("expected `- {op: ...}`"))?;
                let mut op = flow_mapping(m).map_err(|m| err(&m))?;
                op.line = n;
                blk.ops.push(op);
            }
            _ => return Err(err("unexpected line")),
        }
    }
    Ok(doc)
}

fn last_function(doc: &mut MDoc) -> Option<&mut MFunction> {
    doc.functions.last_mut()
}

fn skip_spaces(s: &[char], i: &mut usize) {
    while s.get(*i) == Some(&' ') {
        *i += 1;
    }
}

/// A flow value starting at `s[*i]`.
fn flow_value(s: &[char], i: &mut usize, depth: usize) -> Result<Val, String> {
    if depth >= MAX_DEPTH {
        return Err("flow sequences nested too deep".into());
    }
    skip_spaces(s, i);
    if s.get(*i) == Some(&'[') {
        *i += 1;
        let mut items = Vec::new();
        loop {
            skip_spaces(s, i);
            match s.get(*i) {
                Some(']') => {
                    *i += 1;
                    return Ok(Val::Seq(items));
                }
                None => return Err("unclosed `[`".into()),
                _ => {}
            }
            items.push(flow_value(s, i, depth + 1)?);
            skip_spaces(s, i);
            match s.get(*i) {
                Some(',') => *i += 1,
                Some(']') => {}
                Some(c) => return Err(format!("unexpected `{c}` in a sequence")),
                None => return Err("unclosed `[`".into()),
            }
        }
    }
    let start = *i;
    while let Some(c) = s.get(*i) {
        if matches!(c, ',' | ']' | '}') {
            break;
        }
        *i += 1;
    }
    let text: String = s[start..*i].iter().collect();
    Ok(Val::Scalar(text.trim().to_string()))
}

/// `{key: value, ...}  # comment` → an operation.
fn flow_mapping(line: &str) -> Result<MOp, String> {
    let s: Vec<char> = line.chars().collect();
    if s.first() != Some(&'{') {
        return Err("expected `{`".into());
    }
    let mut i = 1;
    let mut op = MOp::default();
    loop {
        skip_spaces(&s, &mut i);
        match s.get(i) {
            Some('}') => {
                i += 1;
                break;
            }
            None => return Err("unclosed `{`".into()),
            _ => {}
        }
        let start = i;
        while s.get(i).is_some_and(|&c| c != ':') {
            i += 1;
        }
        if i >= s.len() {
            return Err("expected `key: value`".into());
        }
        let key: String = s[start..i].iter().collect::<String>().trim().to_string();
        i += 1;
        let v = flow_value(&s, &mut i, 0)?;
        if op.get(&key).is_some() {
            return Err(format!("key `{key}` twice"));
        }
        op.fields.push((key, v));
        skip_spaces(&s, &mut i);
        if s.get(i) == Some(&',') {
            i += 1;
        }
    }
    let rest: String = s[i..].iter().collect();
    let rest = rest.trim();
    match rest.strip_prefix('#') {
        Some(c) => op.comment = c.trim().to_string(),
        None if rest.is_empty() => {}
        None => return Err(format!("trailing `{rest}`")),
    }
    Ok(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_layout_and_locates_errors() {
        let text = "SSA: true\nfunctions:\n  - label: f\n    # fresh results from V9\n    bbs:\n      - label: BB0\n        freq: 1\n        preds: []\n        succs: []\n        ops:\n          - {op: _APPLY, defs: [V9], uses: [V1, [g, +4, '@lo']]}  # stw; x\n";
        let d = parse(text).unwrap();
        assert_eq!(d.ssa, Some(true));
        let f = &d.functions[0];
        assert_eq!(f.comments, ["fresh results from V9"]);
        let op = &f.blocks[0].ops[0];
        assert_eq!(op.op(), "_APPLY");
        assert_eq!(op.list("uses"), ["V1", "[g, +4, '@lo']"]);
        assert_eq!(op.notes(), ["stw", "x"]);
        assert_eq!(op.line, 11);
        let bad = text.replace("uses: [V1", "uses: [[[[[[[[[V1");
        assert!(parse(&bad).unwrap_err().starts_with("line 11:"));
        let bad = text.replace("freq: 1", "fre: 1");
        assert!(parse(&bad).unwrap_err().contains("unknown block key"));
        assert!(parse("SSA: yes\n").is_err());
    }
}
