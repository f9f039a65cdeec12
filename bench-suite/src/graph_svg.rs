//! Drawing a DOT graph as SVG in-process, for `ssalab compile --emit dot=… --svg`: the text
//! is parsed, laid out and rendered by the pure-Rust `layout-rs` crate (a layered layout in
//! the manner of Graphviz's `dot`), so that no Graphviz installation is needed.
//!
//! The layouter understands the attributes the graph writers use (labels, shapes `box`,
//! `doublecircle`, fill and line colours, dashed lines, pen widths); it draws clusters as
//! plain groups of nodes. It may panic on input it does not handle: the panic is caught
//! (with the default panic message silenced) and turned into an error, so the command
//! never panics. Graphs above [`MAX_NODES`] nodes or [`MAX_EDGES`] edges are refused (the
//! layout time explodes). The XML declaration it writes first is dropped: the file starts with `<svg`.

use layout::backends::svg::SVGWriter;
use layout::gv::{DotParser, GraphBuilder};
use std::panic::{self, AssertUnwindSafe};

/// Largest graphs drawn: the layouter's crossing reduction grows fast with the edges (a
/// 28-node, 126-edge interference graph takes about 3 s, a 215-node, 1,213-edge one more than
/// two minutes), so bigger graphs are refused with an error instead of hanging.
pub const MAX_NODES: usize = 150;
pub const MAX_EDGES: usize = 160;

/// The SVG drawing of `dot`, or why it could not be drawn.
pub fn dot_to_svg(dot: &str) -> Result<String, String> {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let drawn = panic::catch_unwind(AssertUnwindSafe(|| draw(dot)));
    panic::set_hook(previous);
    match drawn {
        Ok(r) => r,
        Err(_) => Err("the graph layouter (layout-rs) failed on this graph".to_string()),
    }
}

/// Edges of a parsed graph, its subgraphs' included (`a -> b -> c` counts two).
fn count_edges(g: &layout::gv::parser::ast::Graph) -> usize {
    use layout::gv::parser::ast::Stmt;
    g.list
        .list
        .iter()
        .map(|s| match s {
            Stmt::Edge(e) => e.to.len(),
            Stmt::SubGraph(sub) => count_edges(sub),
            _ => 0,
        })
        .sum()
}

fn draw(dot: &str) -> Result<String, String> {
    let mut parser = DotParser::new(dot);
    let ast = parser
        .process()
        .map_err(|e| format!("the graph layouter cannot read the DOT text: {e}"))?;
    let mut builder = GraphBuilder::new();
    builder.visit_graph(&ast);
    let mut graph = builder.get();
    let nodes = graph.num_nodes();
    let edges = count_edges(&ast);
    if nodes > MAX_NODES || edges > MAX_EDGES {
        return Err(format!(
            "the graph has {nodes} nodes and {edges} edges, more than the in-process layouter \
             draws in reasonable time ({MAX_NODES} nodes, {MAX_EDGES} edges); draw the .dot \
             file with Graphviz (`dot -Tsvg`)"
        ));
    }
    let mut svg = SVGWriter::new();
    graph.do_it(false, false, false, &mut svg);
    let text = svg.finalize();
    Ok(match text.find("<svg") {
        Some(k) => text[k..].to_string(),
        None => text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_a_small_graph_as_svg() {
        let svg = dot_to_svg(
            "digraph \"g\" {\n  \"a\" [label=\"x = \\\"1\\\" < 2\\l\", shape=\"box\"];\n  \"a\" -> \"b\" [style=\"dashed\"];\n}\n",
        )
        .unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
        assert!(svg.trim_end().ends_with("</svg>"));
        // The label's `<` is escaped for XML.
        assert!(svg.contains("&lt;"));
    }

    #[test]
    fn big_graphs_are_refused() {
        let mut dot = String::from("graph \"g\" {\n");
        for i in 0..=MAX_EDGES {
            dot.push_str(&format!(
                "  \"a{}\" -- \"a{}\";\n",
                i % 20,
                (i * 7 + 3) % 20
            ));
        }
        dot.push_str("}\n");
        let e = dot_to_svg(&dot).unwrap_err();
        assert!(e.contains("more than the in-process layouter"), "{e}");
    }

    #[test]
    fn unreadable_dot_is_an_error() {
        assert!(dot_to_svg("digraph { a -> ; }").is_err());
    }
}
