//! The random program generator: deterministic from its seed, valid C that gcc builds without
//! warnings about undefined behaviour, and free of undefined behaviour when run under gcc's
//! undefined-behaviour and address sanitizers (the by-construction claim, checked).

use ssalab::fuzz::{program_text, Size};
use ssalab::programs::programs_root;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ssalab-fuzzgen-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn include_flag() -> String {
    format!("-I{}", programs_root().join("include").display())
}

#[test]
fn programs_are_deterministic_and_seeds_differ() {
    for size in [Size::Small, Size::Medium, Size::Large] {
        let a = program_text(42, size);
        assert_eq!(a, program_text(42, size), "{size:?}");
        assert_ne!(a, program_text(43, size), "{size:?}");
    }
    assert_ne!(program_text(7, Size::Small), program_text(7, Size::Medium));
}

#[test]
fn sizes_are_in_their_ranges() {
    let mean = |size: Size| {
        let total: usize = (1..=20)
            .map(|s| program_text(s, size).lines().count())
            .sum();
        total / 20
    };
    let (s, m, l) = (mean(Size::Small), mean(Size::Medium), mean(Size::Large));
    assert!((30..=200).contains(&s), "small: {s} lines on average");
    assert!((100..=400).contains(&m), "medium: {m} lines on average");
    assert!((400..=1500).contains(&l), "large: {l} lines on average");
}

#[test]
fn the_cli_prints_the_same_program() {
    let out = Command::new(env!("CARGO_BIN_EXE_ssalab"))
        .args(["fuzz", "gen", "--seed", "5", "--size", "small"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        program_text(5, Size::Small)
    );
}

/// Warnings that point at undefined behaviour (or at a program that does not mean what the
/// generator meant). Style warnings (unused variables, sign comparisons, ...) are allowed.
const UB_WARNINGS: &[&str] = &[
    "-Waggressive-loop-optimizations",
    "-Warray-bounds",
    "-Wuninitialized",
    "-Wmaybe-uninitialized",
    "-Wshift-count-overflow",
    "-Wshift-count-negative",
    "-Wshift-negative-value",
    "-Wshift-overflow",
    "-Wdiv-by-zero",
    "-Wsequence-point",
    "-Wreturn-type",
    "-Wimplicit-function-declaration",
    "-Wint-conversion",
    "-Wincompatible-pointer-types",
    "-Wstringop-overflow",
    "-Wreturn-local-addr",
    "-Wnonnull",
    "-Wdiscarded-qualifiers",
    "-Wimplicit-fallthrough",
    "integer overflow in expression",
];

fn gcc(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(std::env::var("CC").unwrap_or_else(|_| "gcc".into()))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run gcc")
}

#[test]
fn gcc_wall_wextra_finds_nothing_undefined() {
    let dir = scratch("warn");
    let inc = include_flag();
    let mut problems = Vec::new();
    for (seed, size) in (1..=6)
        .map(|s| (s, Size::Medium))
        .chain((1..=2).map(|s| (s, Size::Large)))
    {
        let src = dir.join(format!("p{seed}-{}.c", size.name()));
        std::fs::write(&src, program_text(seed, size)).unwrap();
        let out = gcc(
            &[
                "-std=c99",
                "-O2",
                "-Wall",
                "-Wextra",
                "-Wshift-overflow=2",
                "-fsyntax-only",
                &inc,
                src.to_str().unwrap(),
            ],
            &dir,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "gcc rejected seed {seed}:\n{stderr}");
        for line in stderr.lines() {
            if UB_WARNINGS.iter().any(|w| line.contains(w)) {
                problems.push(format!("seed {seed} {size:?}: {line}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Runs programs built with `-fsanitize=undefined,address`: any report of signed overflow,
/// bad shift, division by zero, out-of-bounds access or misaligned access fails the test.
#[test]
fn sanitizers_find_no_undefined_behaviour() {
    let dir = scratch("san");
    let inc = include_flag();
    let mut problems = Vec::new();
    let programs: Vec<(u64, Size)> = (1..=24)
        .map(|s| (s, Size::Small))
        .chain((100..=111).map(|s| (s, Size::Medium)))
        .chain((200..=201).map(|s| (s, Size::Large)))
        .collect();
    for (seed, size) in programs {
        let src = dir.join("p.c");
        let exe = dir.join("p");
        std::fs::write(&src, program_text(seed, size)).unwrap();
        let out = gcc(
            &[
                "-std=c99",
                "-O1",
                "-w",
                "-g",
                "-fsanitize=undefined,address",
                "-fno-sanitize-recover=all",
                &inc,
                src.to_str().unwrap(),
                "-o",
                exe.to_str().unwrap(),
            ],
            &dir,
        );
        assert!(
            out.status.success(),
            "gcc with sanitizers failed (is libubsan/libasan installed?):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run = Command::new(&exe)
            .env("ASAN_OPTIONS", "detect_leaks=0")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        if !run.status.success() && stderr.contains("runtime error")
            || stderr.contains("AddressSanitizer")
            || run.status.code().is_none()
        {
            problems.push(format!(
                "seed {seed} {size:?}: {}",
                stderr.lines().take(3).collect::<Vec<_>>().join(" | ")
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
