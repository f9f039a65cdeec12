//! The small Graphviz DOT writer the graph kinds share: one statement per line, every
//! identifier and attribute value quoted, so that any label text (instructions with `%`,
//! `$`, `"`, `\`) stays one token for Graphviz and for the in-process layouter.
//!
//! Line breaks: `\n` in a label centres the line (Graphviz) and `\l` left-justifies the line
//! before it; [`text`] keeps a label centred, [`left`] left-justifies every line (listings).

use std::fmt::Write;

/// Quotes `s` as a DOT string: backslash and double quote escaped, each line break written
/// as `\n` (centred). Control characters other than the line break become spaces.
pub fn text(s: &str) -> String {
    quote(s, "\\n", false)
}

/// Quotes `s` with every line left-justified (`\l` after each line, the last one too).
pub fn left(s: &str) -> String {
    quote(s, "\\l", true)
}

fn quote(s: &str, newline: &str, trailing: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str(newline),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    if trailing && !s.ends_with('\n') {
        out.push_str(newline);
    }
    out.push('"');
    out
}

/// An attribute list: `(name, already quoted value)`.
pub type Attrs = Vec<(&'static str, String)>;

/// A DOT document being written: a `digraph` or an undirected `graph`.
pub struct Dot {
    out: String,
    directed: bool,
    depth: usize,
    nodes: usize,
}

impl Dot {
    /// Starts `digraph "name" {` (or `graph`), with the graph's title as its label.
    pub fn new(directed: bool, name: &str, title: &str) -> Dot {
        let mut d = Dot {
            out: String::new(),
            directed,
            depth: 1,
            nodes: 0,
        };
        let kw = if directed { "digraph" } else { "graph" };
        let _ = writeln!(d.out, "{kw} {} {{", text(name));
        d.line(&format!("label={}", text(title)));
        d.line("labelloc=\"t\"");
        d
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push_str(";\n");
    }

    /// Default attributes: `what` is `node`, `edge` or `graph`.
    pub fn defaults(&mut self, what: &str, attrs: Attrs) {
        let s = format!("{what} {}", attr_list(&attrs));
        self.line(&s);
    }

    pub fn node(&mut self, id: &str, attrs: Attrs) {
        self.nodes += 1;
        let s = format!("{} {}", text(id), attr_list(&attrs));
        self.line(s.trim_end());
    }

    pub fn edge(&mut self, from: &str, to: &str, attrs: Attrs) {
        let op = if self.directed { "->" } else { "--" };
        let s = format!("{} {op} {} {}", text(from), text(to), attr_list(&attrs));
        self.line(s.trim_end());
    }

    /// Opens `subgraph "cluster_ID" {` with a label; close it with [`Dot::close`].
    pub fn cluster(&mut self, id: &str, label: &str) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        let _ = writeln!(self.out, "subgraph {} {{", text(&format!("cluster_{id}")));
        self.depth += 1;
        self.line(&format!("label={}", text(label)));
    }

    pub fn close(&mut self) {
        self.depth = self.depth.saturating_sub(1).max(1);
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        self.out.push_str("}\n");
    }

    /// The document, closed. A graph with no node gets a note saying so (an empty drawing
    /// would look like a failure, and the layouter cannot lay out nothing).
    pub fn finish(mut self) -> String {
        while self.depth > 1 {
            self.close();
        }
        if self.nodes == 0 {
            self.node(
                "empty",
                vec![
                    ("label", text("nothing to draw")),
                    ("shape", text("plaintext")),
                ],
            );
        }
        self.out.push_str("}\n");
        self.out
    }
}

fn attr_list(attrs: &Attrs) -> String {
    if attrs.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = attrs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("[{}]", parts.join(", "))
}

/// A fill colour for group `k` (a register, a class, a web): a fixed palette of light
/// colours, so that neighbours in a drawing are told apart and text stays readable.
pub fn palette(k: usize) -> String {
    const COLOURS: [&str; 12] = [
        "#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#bebada",
        "#fccde5", "#d9d9d9", "#ccebc5", "#ffed6f",
    ];
    text(COLOURS[k % COLOURS.len()])
}

#[cfg(test)]
pub(crate) mod reader {
    //! A tiny DOT reader for the tests: the statements the writer emits (graph header,
    //! clusters, default attributes, nodes, edges, `key=value`), quoted or bare ids.

    use std::collections::BTreeMap;

    pub type AttrMap = BTreeMap<String, String>;

    #[derive(Debug, Default)]
    pub struct Graph {
        pub name: String,
        pub directed: bool,
        /// Node id → attributes (in the order first seen).
        pub nodes: Vec<(String, AttrMap)>,
        pub edges: Vec<(String, String, AttrMap)>,
        /// Cluster ids opened.
        pub clusters: Vec<String>,
    }

    impl Graph {
        pub fn node(&self, id: &str) -> Option<&AttrMap> {
            self.nodes.iter().find(|(n, _)| n == id).map(|(_, a)| a)
        }
        pub fn label(&self, id: &str) -> String {
            self.node(id)
                .and_then(|a| a.get("label").cloned())
                .unwrap_or_default()
        }
        /// Edges between `a` and `b` (either direction for undirected graphs).
        pub fn edges_between(&self, a: &str, b: &str) -> Vec<&AttrMap> {
            self.edges
                .iter()
                .filter(|(x, y, _)| (x == a && y == b) || (!self.directed && x == b && y == a))
                .map(|(_, _, m)| m)
                .collect()
        }
    }

    #[derive(Debug, PartialEq, Clone)]
    enum Tok {
        Id(String),
        Sym(&'static str),
    }

    fn lex(s: &str) -> Result<Vec<Tok>, String> {
        let cs: Vec<char> = s.chars().collect();
        let mut i = 0;
        let mut out = Vec::new();
        while i < cs.len() {
            let c = cs[i];
            if c.is_whitespace() {
                i += 1;
            } else if c == '"' {
                let mut v = String::new();
                i += 1;
                loop {
                    match cs.get(i) {
                        None => return Err("unterminated string".into()),
                        Some('"') => break,
                        Some('\\') => {
                            match cs.get(i + 1) {
                                Some('n') | Some('l') => v.push('\n'),
                                Some(&e) => v.push(e),
                                None => return Err("bad escape".into()),
                            }
                            i += 2;
                            continue;
                        }
                        Some(&ch) => v.push(ch),
                    }
                    i += 1;
                }
                i += 1;
                out.push(Tok::Id(v));
            } else if c == '-' && matches!(cs.get(i + 1), Some('>') | Some('-')) {
                out.push(Tok::Sym(if cs[i + 1] == '>' { "->" } else { "--" }));
                i += 2;
            } else if "{}[]=,;".contains(c) {
                let sym = match c {
                    '{' => "{",
                    '}' => "}",
                    '[' => "[",
                    ']' => "]",
                    '=' => "=",
                    ',' => ",",
                    _ => ";",
                };
                out.push(Tok::Sym(sym));
                i += 1;
            } else if c.is_alphanumeric() || c == '_' || c == '.' || c == '#' {
                let start = i;
                while i < cs.len() && (cs[i].is_alphanumeric() || "_.#".contains(cs[i])) {
                    i += 1;
                }
                out.push(Tok::Id(cs[start..i].iter().collect()));
            } else {
                return Err(format!("unexpected character {c:?}"));
            }
        }
        Ok(out)
    }

    fn id(t: Option<&Tok>) -> Result<String, String> {
        match t {
            Some(Tok::Id(s)) => Ok(s.clone()),
            other => Err(format!("expected an id, got {other:?}")),
        }
    }

    fn attrs(toks: &[Tok], i: &mut usize) -> Result<AttrMap, String> {
        let mut m = AttrMap::new();
        if toks.get(*i) != Some(&Tok::Sym("[")) {
            return Ok(m);
        }
        *i += 1;
        while toks.get(*i) != Some(&Tok::Sym("]")) {
            let k = id(toks.get(*i))?;
            if toks.get(*i + 1) != Some(&Tok::Sym("=")) {
                return Err(format!("expected = after {k}"));
            }
            let v = id(toks.get(*i + 2))?;
            m.insert(k, v);
            *i += 3;
            if toks.get(*i) == Some(&Tok::Sym(",")) {
                *i += 1;
            }
        }
        *i += 1;
        Ok(m)
    }

    /// Parses one graph; an error for anything the writer would not produce.
    pub fn parse(s: &str) -> Result<Graph, String> {
        let toks = lex(s)?;
        let mut g = Graph::default();
        let mut i = 0;
        match toks.first() {
            Some(Tok::Id(k)) if k == "digraph" => g.directed = true,
            Some(Tok::Id(k)) if k == "graph" => g.directed = false,
            other => return Err(format!("expected graph or digraph, got {other:?}")),
        }
        g.name = id(toks.get(1))?;
        if toks.get(2) != Some(&Tok::Sym("{")) {
            return Err("expected {".into());
        }
        i += 3;
        let mut depth = 1;
        while depth > 0 {
            let t = toks.get(i).ok_or("unexpected end")?.clone();
            match t {
                Tok::Sym("}") => {
                    depth -= 1;
                    i += 1;
                }
                Tok::Sym(";") => i += 1,
                Tok::Id(k) if k == "subgraph" => {
                    g.clusters.push(id(toks.get(i + 1))?);
                    if toks.get(i + 2) != Some(&Tok::Sym("{")) {
                        return Err("expected { after subgraph".into());
                    }
                    depth += 1;
                    i += 3;
                }
                Tok::Id(k)
                    if ["node", "edge", "graph"].contains(&k.as_str())
                        && toks.get(i + 1) == Some(&Tok::Sym("[")) =>
                {
                    i += 1;
                    attrs(&toks, &mut i)?;
                }
                Tok::Id(a) => {
                    i += 1;
                    match toks.get(i) {
                        Some(Tok::Sym("=")) => {
                            id(toks.get(i + 1))?;
                            i += 2;
                        }
                        Some(Tok::Sym(op)) if *op == "->" || *op == "--" => {
                            if (*op == "->") != g.directed {
                                return Err(format!("edge {op} in the wrong kind of graph"));
                            }
                            let b = id(toks.get(i + 1))?;
                            i += 2;
                            let m = attrs(&toks, &mut i)?;
                            for n in [&a, &b] {
                                if g.node(n).is_none() {
                                    g.nodes.push((n.clone(), AttrMap::new()));
                                }
                            }
                            g.edges.push((a, b, m));
                        }
                        _ => {
                            let m = attrs(&toks, &mut i)?;
                            match g.nodes.iter_mut().find(|(n, _)| *n == a) {
                                Some((_, old)) => old.extend(m),
                                None => g.nodes.push((a, m)),
                            }
                        }
                    }
                }
                other => return Err(format!("unexpected {other:?}")),
            }
        }
        if i != toks.len() {
            return Err("text after the graph".into());
        }
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped_and_read_back() {
        let mut d = Dot::new(true, "f.cfg", "a \"title\"");
        d.node("b0", vec![("label", left("x = \"y\"\\z\nret"))]);
        d.node("b1", vec![("label", text("two\nlines"))]);
        d.edge("b0", "b1", vec![("label", text("e"))]);
        let s = d.finish();
        assert!(s.contains(r#"label="x = \"y\"\\z\lret\l""#), "{s}");
        let g = reader::parse(&s).unwrap();
        assert_eq!(g.label("b0"), "x = \"y\"\\z\nret\n");
        assert_eq!(g.label("b1"), "two\nlines");
        assert_eq!(g.edges_between("b0", "b1").len(), 1);
        assert!(g.edges_between("b1", "b0").is_empty());
    }

    #[test]
    fn an_empty_graph_gets_a_note() {
        let g = reader::parse(&Dot::new(false, "f.x", "t").finish()).unwrap();
        assert_eq!(g.nodes.len(), 1);
        assert_eq!(g.label("empty"), "nothing to draw");
    }

    #[test]
    fn reader_rejects_what_the_writer_never_writes() {
        assert!(reader::parse("digraph \"g\" { \"a\" -- \"b\"; }").is_err());
        assert!(reader::parse("digraph \"g\" { \"a\" [label=\"x]; }").is_err());
        assert!(reader::parse("graph \"g\" { \"a\" -- \"b\"; } extra").is_err());
    }
}
