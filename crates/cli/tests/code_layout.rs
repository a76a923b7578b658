//! The hot-code layout of an optimised build (`build.rs` says why it exists): the checked-in list
//! becomes a linker script that rustc's own linker takes, and the probe `build.rs` trusts tells
//! a layout that took effect from one that did not. Dev builds (these tests') link in the
//! default order, so this is where the script meets the linker in CI.

#![cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]

#[path = "../link/linking.rs"]
#[allow(dead_code)]
mod linking;

use std::path::Path;

use linking::{HOT_SECTION, LAYOUT_PROBE, RELR_FLAG, RELR_PROBE, Toolchain};

const TARGET: &str = "x86_64-unknown-linux-gnu";

fn toolchain() -> Toolchain {
    let compiler = cc::Build::new()
        .target(TARGET)
        .host(TARGET)
        .opt_level(0)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .try_get_compiler()
        .expect("a C compiler");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    // rustc's own choice of linker, as a release build with no RUSTFLAGS links: a developer's
    // `-fuse-ld=mold` would rightly turn both extras off.
    Toolchain::new(compiler, TARGET, &rustc, "")
}

fn hot_code_list() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/hot-code.txt");
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn the_checked_in_list_is_a_script_the_linker_takes_and_the_probe_sees_it_work() {
    let list = hot_code_list();
    let patterns = list.lines().filter(|line| !line.is_empty() && !line.starts_with('#')).count();
    assert!(patterns > 1_000, "link/hot-code.txt holds {patterns} patterns: regenerate it with link/hot_code.py");
    let script = linking::hot_code_script(&list).expect("the list is section-name patterns");
    assert!(script.contains(&format!("  {HOT_SECTION} :")) && script.ends_with("INSERT BEFORE .text;\n"));

    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("hot-code.ld");
    std::fs::write(&path, script).unwrap();
    let flag = linking::script_flag(&path).expect("a path without commas");
    let toolchain = toolchain();
    assert!(
        toolchain.probe_runs(folder.path(), "layout-probe", LAYOUT_PROBE, &[&flag]),
        "the probe linked with the hot-code script did not run and find its hot function first"
    );
    // Without the script the probe's cold function comes first: the probe can say no.
    assert!(!toolchain.probe_runs(folder.path(), "default-probe", LAYOUT_PROBE, &[]));
}

#[test]
fn the_packed_relocations_probe_runs_with_rustc_s_linker() {
    let folder = tempfile::tempdir().unwrap();
    assert!(toolchain().probe_runs(folder.path(), "relr-probe", RELR_PROBE, &[RELR_FLAG]));
}

#[test]
fn a_line_that_is_not_a_symbol_pattern_is_refused_rather_than_read_as_script() {
    for line in ["a) } INSERT AFTER .data; SECTIONS { .x : { *(.y", "/DISCARD/", "sqlite3_open a", "a(b)", "[ab]"] {
        let error = linking::hot_code_script(&format!("# a comment\nfine\n{line}\n")).unwrap_err();
        assert!(error.contains(line), "{error}");
    }
    let script = linking::hot_code_script("# only a comment\n\n_RNvCs*_3foo3bar\n").unwrap();
    assert!(
        script.contains("    *(.text._RNvCs*_3foo3bar .text.unlikely._RNvCs*_3foo3bar)\n"),
        "a function's section, and a cold function's: {script}"
    );
}
