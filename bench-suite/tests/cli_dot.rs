//! `ssalab compile --emit dot=KIND[,KIND…]` (issue 26, item 1): DOT to stdout, one file per
//! function and kind with `-o DIR`, SVG drawings with `--svg`, `--filter-function`,
//! `--after`, and the errors: a kind that does not apply to the configuration (exit 1), bad
//! usage (exit 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn ssalab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssalab"))
}

fn fig9() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler/tests/lai/fig9_partial_st231.lai")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssalab-cli-dot-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(args: &[&str]) -> Output {
    ssalab().args(args).output().expect("ssalab runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Well-formedness of an XML document, enough for the layouter's SVG: the first element is
/// `svg`, tags nest and close, attribute values are quoted, text has no raw `<` and every
/// `&` starts an entity.
fn check_xml(s: &str) -> Result<(), String> {
    if !s.starts_with("<svg") {
        return Err(format!("starts with {:?}", &s[..s.len().min(20)]));
    }
    let mut stack: Vec<String> = Vec::new();
    let mut rest = s;
    let mut seen_root = false;
    while let Some(lt) = rest.find('<') {
        check_text(&rest[..lt])?;
        rest = &rest[lt..];
        if let Some(r) = rest.strip_prefix("<!--") {
            let end = r.find("-->").ok_or("unterminated comment")?;
            rest = &r[end + 3..];
            continue;
        }
        // The end of the tag: the first `>` outside quotes.
        let mut quote = None;
        let mut end = None;
        for (i, c) in rest.char_indices().skip(1) {
            match (quote, c) {
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None, '<') => return Err("`<` inside a tag".into()),
                (None, '>') => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let end = end.ok_or("unterminated tag")?;
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            match stack.pop() {
                Some(open) if open == name.trim() => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
        } else {
            let name: String = tag
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '/')
                .collect();
            if name.is_empty() {
                return Err(format!("empty tag <{tag}>"));
            }
            if stack.is_empty() {
                if seen_root {
                    return Err("two root elements".into());
                }
                seen_root = true;
            }
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        if stack.is_empty() && seen_root {
            return if rest.trim().is_empty() {
                Ok(())
            } else {
                Err("text after the root element".into())
            };
        }
    }
    Err(format!("unclosed elements {stack:?}"))
}

fn check_text(t: &str) -> Result<(), String> {
    for (i, _) in t.match_indices('&') {
        let ent = &t[i..];
        let ok = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"]
            .iter()
            .any(|e| ent.starts_with(e));
        if !ok {
            return Err(format!("bare & in {t:?}"));
        }
    }
    Ok(())
}

#[test]
fn xml_checker_rejects_broken_documents() {
    assert!(check_xml("<svg a=\"1\"><g><text>x &lt; y</text></g><rect/></svg>\n").is_ok());
    assert!(check_xml("<svg><g></svg>").is_err());
    assert!(check_xml("<svg><text>a & b</text></svg>").is_err());
    assert!(check_xml("<?xml?><svg></svg>").is_err());
    assert!(check_xml("<svg><g>").is_err());
}

#[test]
fn dot_to_stdout_one_graph_per_function_and_kind() {
    let f = fig9();
    let o = run(&["compile", f.to_str().unwrap(), "--emit", "dot=cfg,affinity"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // Four functions (f, g, fig9, main), two kinds each, in kind order.
    for name in ["f", "g", "fig9", "main"] {
        assert_eq!(
            out.matches(&format!("digraph \"{name}.cfg\" {{")).count(),
            1,
            "{out}"
        );
        assert_eq!(
            out.matches(&format!("\ngraph \"{name}.affinity\" {{"))
                .count(),
            1
        );
    }
    assert!(out.find("\"main.cfg\"").unwrap() < out.find("\"f.affinity\"").unwrap());
    assert!(out.contains("label=\"@fig9 cfg after frame (baseline)\""));
}

#[test]
fn filter_function_and_after() {
    let f = fig9();
    let o = run(&[
        "compile",
        f.to_str().unwrap(),
        "--emit",
        "dot=cfg",
        "--filter-function",
        "fig9",
        "--after",
        "lai",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("digraph").count(), 1, "{out}");
    assert!(out.contains("\"@fig9 cfg after lai (baseline)\""));
    // The parsed LAI: the phi is still there, no copy yet.
    assert!(out.contains(" = phi "), "{out}");
    assert!(!out.contains("[copy]"));
}

#[test]
fn files_in_a_directory_and_svg_drawings() {
    let f = fig9();
    let dir = scratch("svg");
    let o = run(&[
        "compile",
        f.to_str().unwrap(),
        "--config",
        "L_phi,ABI+C",
        "--emit",
        "dot=cfg,interference,affinity",
        "--filter-function",
        "fig9",
        "-o",
        dir.to_str().unwrap(),
        "--svg",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "fig9.affinity.dot",
            "fig9.affinity.svg",
            "fig9.cfg.dot",
            "fig9.cfg.svg",
            "fig9.interference.dot",
            "fig9.interference.svg"
        ]
    );
    let dot = std::fs::read_to_string(dir.join("fig9.interference.dot")).unwrap();
    assert!(dot.starts_with("graph \"fig9.interference\" {"), "{dot}");
    for k in ["cfg", "interference", "affinity"] {
        let svg = std::fs::read_to_string(dir.join(format!("fig9.{k}.svg"))).unwrap();
        check_xml(&svg).unwrap_or_else(|e| panic!("fig9.{k}.svg: {e}"));
        assert!(svg.contains("<text"), "{k}: no text drawn");
    }
    // The block listing is drawn: an instruction of fig9 appears in the CFG picture.
    let svg = std::fs::read_to_string(dir.join("fig9.cfg.svg")).unwrap();
    assert!(svg.contains("call"), "{svg}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn c_input_starts_at_isel() {
    let dir = scratch("c");
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("loop.c");
    std::fs::write(
        &c,
        "int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += i; return s; }\n",
    )
    .unwrap();
    let o = run(&[
        "compile",
        c.to_str().unwrap(),
        "--emit",
        "dot=cfg",
        "--filter-function",
        "main",
        "--after",
        "isel",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("\"@main cfg after isel (baseline)\""), "{out}");
    assert!(out.contains("depth 1  5^d 5"), "{out}");
    assert!(out.contains("label=\"back\""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kinds_that_do_not_apply_exit_1_with_the_reason() {
    let f = fig9();
    let f = f.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["--emit", "dot=congruence"],
            "has no Sreedhar or Boissinot",
        ),
        (
            &["--emit", "dot=ddg"],
            "does not run the post-allocation copy elimination",
        ),
        (
            &["--emit", "dot=interference", "--config", "hack"],
            "does not run `irc`",
        ),
        (
            &["--emit", "dot=cfg", "--after", "gvn"],
            "unknown pass `gvn`",
        ),
        (
            &["--emit", "dot=cfg", "--filter-function", "nope"],
            "no function `nope`",
        ),
        (
            &["--emit", "dot=ddg", "--config", "DDG", "--after", "lai"],
            "still has virtual registers",
        ),
    ];
    for (args, why) in cases {
        let mut all = vec!["compile", f];
        all.extend_from_slice(args);
        let o = run(&all);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(!stderr(&o).contains("panicked"));
    }
}

#[test]
fn bad_usage_exits_2() {
    let f = fig9();
    let f = f.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["--emit", "dot=bogus"], "unknown graph kind `bogus`"),
        (&["--emit", "dot"], "dot=KIND"),
        (
            &["--emit", "asm", "--after", "irc"],
            "--after applies to --emit dot",
        ),
        // --filter-function also filters the pass dumps now; --stop-after replaces --emit.
        (
            &["--emit", "dot=cfg", "--stop-after", "irc"],
            "--emit needs the whole pipeline",
        ),
        (
            &["--emit", "dot=cfg", "--svg"],
            "give the directory with -o DIR",
        ),
    ];
    for (args, why) in cases {
        let mut all = vec!["compile", f];
        all.extend_from_slice(args);
        let o = run(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn a_graph_too_big_to_draw_does_not_stop_the_others() {
    // arith.c's main has an interference graph of about 200 nodes and 1,200 edges: above the
    // layouter's limits. Its .dot is written, the other functions are drawn, exit 1.
    let arith = Path::new(env!("CARGO_MANIFEST_DIR")).join("../programs/dsp/arith.c");
    let dir = scratch("big");
    let o = run(&[
        "compile",
        arith.to_str().unwrap(),
        "--emit",
        "dot=interference",
        "-o",
        dir.to_str().unwrap(),
        "--svg",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no SVG for main.interference"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("draw the .dot file with Graphviz"));
    assert!(dir.join("main.interference.dot").exists());
    assert!(!dir.join("main.interference.svg").exists());
    let small = std::fs::read_to_string(dir.join("gcd_binary.interference.svg")).unwrap();
    check_xml(&small).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
