//! The graph kinds on small LAI files, most of them figures of the papers, read back with
//! the test DOT reader and checked against hand-derived expectations.

use super::dot::reader::{parse, Graph};
use super::*;
use crate::backend::{compile_machine_module, BackendConfig};
use crate::mir::Module;
use simulator::isa::Target;

/// The module after every stage of `config` on an LAI text, and its frequencies.
struct Run {
    config: BackendConfig,
    modules: Vec<(String, Module)>,
    freqs: Vec<Vec<Option<u64>>>,
}

impl Run {
    fn of_text(name: &str, text: &str, config: &str) -> Run {
        let lai = crate::lai::parse_lai_full(name, text, None)
            .unwrap_or_else(|d| panic!("{}", d.render()));
        let config = BackendConfig::named(config, lai.module.target).expect("configuration");
        let mut modules = vec![("lai".to_string(), lai.module.clone())];
        compile_machine_module(lai.module, Vec::new(), &config, &mut |p, m| {
            modules.push((p.to_string(), m.clone()));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{name} under {}: {e}", config.name));
        Run {
            config,
            modules,
            freqs: lai.freqs,
        }
    }

    fn of_file(file: &str, config: &str) -> Run {
        let path = format!("{}/tests/lai/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        Run::of_text(file, &text, config)
    }

    fn render(&self, kind: Kind, after: Option<&str>, function: &str) -> Result<Graph, String> {
        let stages = Stages {
            config: &self.config,
            modules: &self.modules,
            freqs: &self.freqs,
        };
        let r = render(kind, &stages, after, Some(function))?;
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].function, function);
        Ok(parse(&r[0].dot).unwrap_or_else(|e| panic!("{e}\n{}", r[0].dot)))
    }

    fn graph(&self, kind: Kind, function: &str) -> Graph {
        self.render(kind, None, function)
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

fn attr<'a>(g: &'a Graph, id: &str, key: &str) -> &'a str {
    g.node(id)
        .and_then(|a| a.get(key))
        .map(String::as_str)
        .unwrap_or("")
}

/// The node whose label's first line is `first`.
fn node_by_label(g: &Graph, first: &str) -> String {
    g.nodes
        .iter()
        .find(|(_, a)| {
            a.get("label")
                .is_some_and(|l| l.lines().next() == Some(first))
        })
        .map(|(n, _)| n.clone())
        .unwrap_or_else(|| panic!("no node labelled {first}: {:?}", g.nodes))
}

#[test]
fn cfg_of_the_lost_copy_loop() {
    // Briggs et al.'s lost-copy loop after the baseline's isolation: b1 is the loop (depth
    // 1, weight 5, its own back edge); the phi became copies at the end of b0 and b1 and at
    // the start of b1, so b0 and b1 hold copies; nothing is spilled.
    let run = Run::of_file("lost_copy_st231.lai", "baseline");
    let g = run.render(Kind::Cfg, Some("out-of-ssa"), "main").unwrap();
    assert!(g.directed);
    assert_eq!(g.name, "main.cfg");
    let ids: Vec<&str> = g.nodes.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(ids, ["b0", "b1", "b2"]);
    assert!(
        g.label("b1").starts_with("b1  depth 1  5^d 5\n"),
        "{}",
        g.label("b1")
    );
    assert!(g.label("b0").starts_with("b0  depth 0  5^d 1\n"));
    let loop_copies = g.label("b1").matches("[copy] ").count();
    assert_eq!(loop_copies, 2, "{}", g.label("b1"));
    assert!(!g.label("b1").contains("[spill]"));
    assert_eq!(attr(&g, "b1", "fillcolor"), "#fff2a8");
    let back = g.edges_between("b1", "b1");
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].get("label").map(String::as_str), Some("back"));
    assert!(g.edges_between("b0", "b1")[0].get("style").is_none());
    assert!(g.edges_between("b1", "b0").is_empty());
}

#[test]
fn cfg_uses_the_lai_frequencies_and_marks_spill_code() {
    // Three values live across a loop with `--regs`-like pressure is hard to force in a few
    // lines; a call keeps them live instead: with 2 registers, something must be spilled.
    let text = ".target st231\n.proc main\nentry:\n    .freq 3\n    mov %a = 1\n    mov %b = 2\n    mov %c = 3\nloop:\n    .freq 40\n    %i = phi(%a:entry, %j:loop)\n    add %j = %i, %b\n    add %k = %j, %c\n    cmplt %t = %k, 100\n    br %t, loop\nexit:\n    .output %j=$r16\n    return\n.endp\n";
    let mut run = Run::of_text("freq.lai", text, "baseline");
    let g = run.graph(Kind::Cfg, "main");
    assert!(
        g.label("b0").starts_with("b0  depth 0  freq 3\n"),
        "{}",
        g.label("b0")
    );
    assert!(g.label("b1").starts_with("b1  depth 1  freq 40\n"));
    // The exit block has no .freq: 5^depth.
    assert!(g.label("b2").starts_with("b2  depth 0  5^d 1\n"));
    // Spill code: the same file with two registers.
    run.config.regalloc.regs = Some(2);
    let lai = crate::lai::parse_lai_full("freq.lai", text, None).unwrap();
    let mut modules = vec![("lai".to_string(), lai.module.clone())];
    compile_machine_module(lai.module, Vec::new(), &run.config, &mut |p, m| {
        modules.push((p.to_string(), m.clone()));
        Ok(())
    })
    .unwrap();
    run.modules = modules;
    let g = run.graph(Kind::Cfg, "main");
    let all: String = g.nodes.iter().map(|(n, _)| g.label(n)).collect();
    assert!(all.contains("[spill] "), "{all}");
    let spilled = g
        .nodes
        .iter()
        .filter(|(n, _)| g.label(n).contains("[spill]"))
        .all(|(n, _)| ["#f7b2b2", "#fdc67a"].contains(&attr(&g, n, "fillcolor")));
    assert!(spilled);
}

#[test]
fn interference_of_rastello_figure_9() {
    // Rastello et al. Fig. 9 ([CC1]): z = R0 after the call to f, and z stays live across
    // the call to g, which writes R0 ($r16): "R0 and z interfere", so IRC cannot coalesce
    // the copy z := R0 and z gets another (callee-saved, the call clobbers the rest)
    // register. The versions of R0 pinned to $r16 are that register's node.
    let run = Run::of_file("fig9_partial_st231.lai", "baseline");
    let g = run.graph(Kind::Interference, "fig9");
    assert!(!g.directed);
    assert_eq!(g.clusters, ["cluster_R", "cluster_B"]);
    let r16 = "R.16";
    assert!(
        g.label(r16).starts_with("$r16\npinned: %"),
        "{}",
        g.label(r16)
    );
    // z is the copy of f's result: the vreg node with an edge to $r16 and a move to it.
    let z: Vec<&str> = g
        .nodes
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| n.starts_with("R.") && *n != r16)
        .filter(|n| {
            let e = g.edges_between(r16, n);
            e.iter().any(|a| a.get("style").is_none()) && e.iter().any(|a| a.contains_key("label"))
        })
        .collect();
    assert_eq!(z.len(), 1, "{:?}", g.edges);
    let z = z[0];
    let zl = g.label(z);
    let reg = zl.lines().nth(1).unwrap();
    assert_ne!(reg, "$r16", "{zl}");
    assert!(
        ["$r1", "$r2", "$r3", "$r4", "$r5", "$r6", "$r7"].contains(&reg),
        "z lives across a call: a callee-saved register, got {reg}"
    );
    // Its move with R0 stays (blue), and the call clobbers are summed up in its label.
    let mv = g
        .edges_between(r16, z)
        .into_iter()
        .find(|a| a.contains_key("label"))
        .unwrap();
    assert_eq!(mv.get("color").map(String::as_str), Some("blue"));
    assert!(zl.contains(" regs"), "{zl}");
    // Every node coloured $r16 is coalesced with R0 (the pinned versions and r3).
    for (n, a) in &g.nodes {
        if n != r16 && g.label(n).lines().nth(1) == Some("$r16") {
            assert!(g.label(n).ends_with("= $r16"), "{n}: {a:?}");
        }
    }
}

#[test]
fn interference_needs_irc_and_its_input() {
    let run = Run::of_file("fig9_partial_st231.lai", "hack");
    let e = run.render(Kind::Interference, None, "fig9").unwrap_err();
    assert!(e.contains("does not run `irc`"), "{e}");
    let run = Run::of_file("fig9_partial_st231.lai", "baseline");
    let e = run
        .render(Kind::Interference, Some("lai"), "fig9")
        .unwrap_err();
    assert!(e.contains("not the pass right before `irc`"), "{e}");
}

#[test]
fn affinity_of_figure_9_under_pinning_phi() {
    // Rastello et al. Fig. 9 under L_phi,ABI (the file's hand derivation): join's affinity
    // graph has one edge r3 -- R0 of multiplicity 2 (its arguments z and r2 are both in
    // R0 after pinning_ABI); the resources do not interfere (z is already killed within
    // R0 by r2), nothing is pruned, and r3 joins R0: one merged web.
    let run = Run::of_file("fig9_partial_st231.lai", "L_phi,ABI");
    let g = run.graph(Kind::Affinity, "fig9");
    assert_eq!(g.clusters, ["cluster_t0"]);
    assert_eq!(g.nodes.len(), 2, "{:?}", g.nodes);
    let r0 = node_by_label(&g, "$r16");
    let r3 = g.nodes.iter().find(|(n, _)| *n != r0).unwrap().0.clone();
    // R0's resource holds the call results z and r2 (and the argument/result versions).
    assert!(g.label(&r0).lines().filter(|l| l.starts_with('%')).count() >= 2);
    assert_eq!(
        g.label(&r3).lines().filter(|l| l.starts_with('%')).count(),
        1
    );
    let e = g.edges_between(&r0, &r3);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].get("label").map(String::as_str), Some("2x"));
    assert_eq!(e[0].get("color").map(String::as_str), Some("darkgreen"));
    assert_eq!(attr(&g, &r0, "fillcolor"), attr(&g, &r3, "fillcolor"));
    assert!(g.label(&r3).ends_with("web 0"));
}

#[test]
fn affinity_of_figure_9_under_c() {
    // Fig. 9 under C (Naive_ABI, phis isolated, then C): the file derives that C keeps two
    // copies, z := R0 (z is live across the call that writes R0) and R0 := z on the path
    // from entry; every other copy is coalesced.
    let run = Run::of_file("fig9_partial_st231.lai", "C");
    let g = run.graph(Kind::Affinity, "fig9");
    let kept: Vec<_> = g
        .edges
        .iter()
        .filter(|(_, _, a)| a.get("color").map(String::as_str) == Some("red"))
        .collect();
    assert_eq!(kept.len(), 2, "{:?}", g.edges);
    let coalesced = g
        .edges
        .iter()
        .filter(|(_, _, a)| a.get("color").map(String::as_str) == Some("darkgreen"))
        .count();
    assert_eq!(coalesced + 2, g.edges.len());
    // z is the common end of the two kept copies, alone in its web (white).
    let z = &kept[0].0;
    let z = if kept[1].0 == *z || kept[1].1 == *z {
        z.clone()
    } else {
        kept[0].1.clone()
    };
    assert!(attr(&g, &z, "fillcolor").is_empty(), "{z}");
}

#[test]
fn affinity_weights_of_the_lost_copy_phi() {
    // Before out-of-SSA (baseline: no affinity pass, plain weights): x2 = phi(x1 from the
    // entry, x3 from the loop): weights 1 and 5.
    let run = Run::of_file("lost_copy_st231.lai", "baseline");
    let g = run.graph(Kind::Affinity, "main");
    assert_eq!(g.edges.len(), 2);
    let mut w: Vec<&str> = g
        .edges
        .iter()
        .map(|(_, _, a)| a.get("label").unwrap().as_str())
        .collect();
    w.sort();
    assert_eq!(w, ["1", "5"]);
}

#[test]
fn congruence_of_the_lost_copy_under_sreedhar() {
    // Sreedhar III on the lost-copy loop: x2 = phi(x1, x3) with x2 live out of the loop
    // where x3 is written, so x2 and x3 interfere; case 1 of the paper makes the *result*
    // the candidate: x2' replaces it in the phi, joins x1 and x3 in one class, and the copy
    // x2 := x2' at the start of the loop (weight 5) splits x2 off.
    let run = Run::of_file("lost_copy_st231.lai", "S3");
    let g = run.graph(Kind::Congruence, "main");
    let split: Vec<_> = g
        .edges
        .iter()
        .filter(|(_, _, a)| a.get("color").map(String::as_str) == Some("red"))
        .collect();
    assert_eq!(split.len(), 1, "{:?}", g.edges);
    let (src, dst, a) = split[0];
    assert_eq!(
        a.get("label").map(String::as_str),
        Some("copy 5 start of b1")
    );
    // dst (x2) alone, src (x2') with two others in one filled class.
    assert!(attr(&g, dst, "fillcolor").is_empty());
    let fill = attr(&g, src, "fillcolor");
    assert!(!fill.is_empty());
    let class: Vec<&str> = g
        .nodes
        .iter()
        .filter(|(n, _)| attr(&g, n, "fillcolor") == fill)
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(class.len(), 3, "{class:?}");
    // The phi pairs join x2' with x1 (weight 1) and x3 (weight 5).
    let joins = g.edges.iter().filter(|(_, d, _)| d == src).count();
    assert_eq!(joins, 2);
    assert_eq!(g.clusters.len(), 2);
}

#[test]
fn congruence_of_the_lost_copy_under_boissinot() {
    // Bo_val_virt: x2's phi web {x2', x2'b0, x2'b1} is atomic; x1 and x3 coalesce with their
    // virtual copies, but x2 cannot join the web (it is live where x3 is written, with
    // another value): exactly one copy stays, x2 := x2' (the web's result).
    let run = Run::of_file("lost_copy_st231.lai", "Bo_val_virt");
    let g = run.graph(Kind::Congruence, "main");
    let split: Vec<_> = g
        .edges
        .iter()
        .filter(|(_, _, a)| a.get("color").map(String::as_str) == Some("red"))
        .collect();
    assert_eq!(split.len(), 1, "{:?}", g.edges);
    let (src, dst, _) = split[0];
    assert!(
        src.ends_with('\'') && *dst == src[..src.len() - 1],
        "{src} {dst}"
    );
}

#[test]
fn congruence_needs_a_class_building_pass() {
    let run = Run::of_file("lost_copy_st231.lai", "baseline");
    let e = run.render(Kind::Congruence, None, "main").unwrap_err();
    assert!(e.contains("has no Sreedhar or Boissinot"), "{e}");
    let run = Run::of_file("lost_copy_st231.lai", "S3");
    let e = run
        .render(Kind::Congruence, Some("sreedhar3"), "main")
        .unwrap_err();
    assert!(
        e.contains("not the input of a Sreedhar or Boissinot pass"),
        "{e}"
    );
}

#[test]
fn ddg_of_brandner_colombet_figure_2() {
    // Brandner & Colombet Fig. 2/3: the parallel copy (r2, r3, r4) := (r1, r2, r3) is the
    // chain r1 -> r2 -> r3 -> r4, one regular copy node; r1 ($r8) comes from its definition
    // by a true edge; the copy writes r2 ($r9) and the later `$r9 = add` writes it again:
    // an output edge (the copy's own read of the old $r9 comes before its write, so no anti
    // edge is left to that definition); the exit node reads the copy's results.
    let f = crate::mir::parse::parse_function(
        "mfunc @f st231 {\nb0:\n  .input !pinned\n  $r8 = add $r0, #1\n  $r10 = add $r0, #3\n  \
         $r9, $r10, $r11 = parcopy $r8, $r9, $r10 !copy !inserted\n  $r9 = add $r0, #2\n  \
         goto b1\nb1:\n  $r16 = add $r8, $r9\n  $r16 = add $r16, $r10\n  \
         $r16 = add $r16, $r11\n  .output $r16^$r16\n  igoto\n}\n",
    )
    .unwrap();
    let config = BackendConfig::named("DDG", Target::St231).unwrap();
    let ctx = Context {
        stage: "pcm-edge",
        next: Some("ddg"),
        config: &config,
        freqs: None,
    };
    let g = parse(&ddg::render(&f, &ctx).unwrap()).unwrap();
    assert_eq!(g.clusters, ["cluster_b0"]);
    let copy = node_by_label(&g, "chain");
    assert_eq!(copy, "b0.3");
    assert_eq!(attr(&g, &copy, "fillcolor"), "#bcd7f5");
    let true_r8 = g.edges_between("b0.1", &copy);
    assert!(true_r8
        .iter()
        .any(|a| a.get("label").map(String::as_str) == Some("$r8")));
    let true_r10 = g.edges_between("b0.2", &copy);
    assert!(true_r10
        .iter()
        .any(|a| a.get("label").map(String::as_str) == Some("$r10")));
    let later = g.edges_between(&copy, "b0.4");
    assert!(
        later
            .iter()
            .any(|a| a.get("label").map(String::as_str) == Some("out $r9")),
        "{later:?}"
    );
    assert!(!later
        .iter()
        .any(|a| a.get("label").is_some_and(|l| l.starts_with("anti"))));
    assert_eq!(attr(&g, "b0.6", "shape"), "doublecircle");
    for r in ["$r10", "$r11"] {
        assert!(g
            .edges_between(&copy, "b0.6")
            .iter()
            .any(|a| a.get("label").map(String::as_str) == Some(r)));
    }
    // The later definition of $r9 feeds the exit, not the copy's old value.
    assert!(g
        .edges_between("b0.4", "b0.6")
        .iter()
        .any(|a| a.get("label").map(String::as_str) == Some("$r9")));
}

#[test]
fn ddg_needs_the_pass_and_allocated_code() {
    let run = Run::of_file("lost_copy_st231.lai", "baseline");
    let e = run.render(Kind::Ddg, None, "main").unwrap_err();
    assert!(
        e.contains("does not run the post-allocation copy elimination"),
        "{e}"
    );
    let run = Run::of_file("lost_copy_st231.lai", "DDG");
    let e = run.render(Kind::Ddg, Some("lai"), "main").unwrap_err();
    assert!(e.contains("still has virtual registers"), "{e}");
    // The default point (the input of ddg) works, and so does the pass's output.
    run.render(Kind::Ddg, None, "main").unwrap();
    run.render(Kind::Ddg, Some("ddg"), "main").unwrap();
}

#[test]
fn unknown_point_and_function_are_errors() {
    let run = Run::of_file("lost_copy_st231.lai", "baseline");
    let e = run.render(Kind::Cfg, Some("gvn"), "main").unwrap_err();
    assert!(
        e.contains("unknown pass `gvn`") && e.contains("lai, out-of-ssa, irc, frame"),
        "{e}"
    );
    let e = run.render(Kind::Cfg, None, "nope").unwrap_err();
    assert!(
        e.contains("no function `nope`") && e.contains("main"),
        "{e}"
    );
}

#[test]
fn every_kind_renders_every_function_of_a_suite_of_configurations() {
    // Smoke coverage: every kind, at its default point, on every figure file of the paper
    // family under a configuration it applies to, parses back.
    let cases = [
        (Kind::Cfg, "baseline"),
        (Kind::Interference, "L_phi,ABI+C"),
        (Kind::Affinity, "L_phi,ABI+C/depth"),
        (Kind::Affinity, "Cc"),
        (Kind::Congruence, "S_phi+C"),
        (Kind::Congruence, "Bo_val_virt/dc"),
        (Kind::Congruence, "Bo_int"),
        (Kind::Ddg, "DDG_phi"),
    ];
    for file in [
        "fig10_joint_st231.lai",
        "fig13_repair_st231.lai",
        "swap_st231.lai",
    ] {
        for (kind, config) in cases {
            let run = Run::of_file(file, config);
            let stages = Stages {
                config: &run.config,
                modules: &run.modules,
                freqs: &run.freqs,
            };
            let r = render(kind, &stages, None, None)
                .unwrap_or_else(|e| panic!("{file} {config} {kind:?}: {e}"));
            assert_eq!(r.len(), run.modules[0].1.functions.len());
            for g in r {
                parse(&g.dot).unwrap_or_else(|e| panic!("{file} {config}: {e}\n{}", g.dot));
            }
        }
    }
}
