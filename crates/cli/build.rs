//! Links the `switchyard` binary with packed relative relocations (`DT_RELR`) when the C toolchain
//! and the C library here support them.
//!
//! A position-independent executable carries a relocation for every pointer in its static data
//! (vtables, string tables); the ordinary format spends 24 bytes on each, and the loader reads
//! them all at start, so they stay resident for the life of the process: about 1.9 MB of them,
//! against 28 KB packed (BENCHMARKS.md, "Issue 48: the speed machinery weighed"). The executable
//! stays position-independent, so address randomisation is unchanged.
//!
//! Packed relocations need a linker that writes them (GNU ld 2.38, lld 15, mold) and glibc 2.36 to
//! load them: the binary gets the flag only if a small C program linked with it starts and finds
//! its pointer relocated (`link/linking.rs`). Cross builds (the probe cannot run here) and other
//! C libraries are linked as usual.
//!
//! An optimised build also places the functions the binary runs in its everyday work side by
//! side, ahead of the rest of its code (`link/hot-code.txt`, written by `link/hot_code.py`). The
//! kernel maps code in aligned stretches around each page a process first runs, so functions the
//! doors run, spread over all of the code, keep most of it resident; grouped, a runner holds
//! about half as much code (BENCHMARKS.md, "Issue 48: the speed machinery weighed"). The list
//! becomes a linker script that adds one output section before `.text`, used only when a probe
//! linked with it finds its hot function placed first: a linker without linker scripts (mold)
//! leaves the default layout, and so does `SWITCHYARD_CODE_LAYOUT=default`.

#[path = "link/linking.rs"]
mod linking;

use std::path::Path;

use crate::linking::{LAYOUT_PROBE, RELR_FLAG, RELR_PROBE, Toolchain};

/// The list of hot functions, one pattern over a symbol per line.
const HOT_CODE: &str = "link/hot-code.txt";

/// Set to `default` to link in the default order (to compare layouts).
const LAYOUT_VARIABLE: &str = "SWITCHYARD_CODE_LAYOUT";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=link/linking.rs");
    println!("cargo::rerun-if-changed={HOT_CODE}");
    println!("cargo::rerun-if-env-changed={LAYOUT_VARIABLE}");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let native_glibc_build =
        var("TARGET") == var("HOST") && var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    if !native_glibc_build {
        return;
    }
    let Ok(compiler) = cc::Build::new().cargo_metadata(false).try_get_compiler() else { return };
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let toolchain = Toolchain::new(compiler, &var("TARGET"), &rustc, &var("CARGO_ENCODED_RUSTFLAGS"));
    let out_dir = var("OUT_DIR");
    let out_dir = Path::new(&out_dir);
    if toolchain.probe_runs(out_dir, "relr-probe", RELR_PROBE, &[RELR_FLAG]) {
        println!("cargo::rustc-link-arg-bins={RELR_FLAG}");
    }
    let optimised = var("OPT_LEVEL") != "0";
    if optimised
        && var(LAYOUT_VARIABLE) != "default"
        && let Some(flag) = hot_code_flag(&toolchain, out_dir)
    {
        println!("cargo::rustc-link-arg-bins={flag}");
    }
}

/// The flag that links with the hot-code script, when the linker takes it.
fn hot_code_flag(toolchain: &Toolchain, out_dir: &Path) -> Option<String> {
    let list = std::fs::read_to_string(HOT_CODE).ok()?;
    let script = match linking::hot_code_script(&list) {
        Ok(script) => script,
        Err(error) => {
            println!("cargo::warning={HOT_CODE}: {error}; the default layout is used");
            return None;
        }
    };
    let path = out_dir.join("hot-code.ld");
    std::fs::write(&path, script).ok()?;
    let flag = linking::script_flag(&path)?;
    toolchain.probe_runs(out_dir, "layout-probe", LAYOUT_PROBE, &[&flag]).then_some(flag)
}
