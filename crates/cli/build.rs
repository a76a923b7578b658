//! Links the `switchyard` binary with packed relative relocations (`DT_RELR`) when the C toolchain
//! and the C library here support them.
//!
//! A position-independent executable carries a relocation for every pointer in its static data
//! (vtables, string tables); the ordinary format spends 24 bytes on each, some 80,000 of them,
//! and the loader reads all 1.9 MB of them at start, so they stay resident for the life of the
//! process. Packed, they take 28 KB, and a server at rest holds 2–3 MB less (BENCHMARKS.md,
//! "Then: packed relocations"). The executable stays position-independent, so address randomisation is
//! unchanged.
//!
//! Packed relocations need a linker that writes them (GNU ld 2.38, lld 15, mold) and glibc 2.36 to
//! load them. Rather than guess from version numbers, the build links a small C program with
//! the same flag and runs it: only if that program starts, and finds its pointer relocated, does
//! the binary get the flag. Cross builds (the probe cannot run here) and other C libraries are
//! linked as usual.

use std::path::Path;
use std::process::Command;

const FLAG: &str = "-Wl,-z,pack-relative-relocs";

/// A pointer in static data needs a relative relocation in a position-independent executable;
/// the program exits 0 only if the loader applied it.
const PROBE: &str = "static const char *const word = \"relr\";\nint main(void) { return word[0] == 'r' ? 0 : 1; }\n";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out_dir = std::env::var("OUT_DIR").unwrap_or_default();
    if native_glibc_build() && probe_runs(Path::new(&out_dir)) {
        println!("cargo::rustc-link-arg-bins={FLAG}");
    }
}

fn native_glibc_build() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    var("TARGET") == var("HOST") && var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu"
}

fn probe_runs(out_dir: &Path) -> bool {
    let source = out_dir.join("relr-probe.c");
    let program = out_dir.join("relr-probe");
    if std::fs::write(&source, PROBE).is_err() {
        return false;
    }
    let Ok(compiler) = cc::Build::new().cargo_metadata(false).try_get_compiler() else { return false };
    let linked = compiler
        .to_command()
        .args(rustc_link_args())
        .args(["-fPIE", "-pie", FLAG, "-o"])
        .arg(&program)
        .arg(&source)
        .output()
        .is_ok_and(|output| output.status.success());
    linked && Command::new(&program).output().is_ok_and(|output| output.status.success())
}

/// The `-C link-arg=` flags rustc will link the binary with (`-fuse-ld=mold`, for one): the probe
/// must be linked by the same linker, since not every linker that accepts the flag also records
/// the glibc version the packed relocations need (mold 1.10 does not, and the loader refuses it).
fn rustc_link_args() -> Vec<String> {
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let flags: Vec<&str> = flags.split('\x1f').collect();
    let mut arguments = Vec::new();
    for (index, flag) in flags.iter().enumerate() {
        let value = match flag.strip_prefix("-C") {
            Some("") => flags.get(index + 1).copied().unwrap_or_default(),
            Some(value) => value,
            None => continue,
        };
        if let Some(argument) = value.strip_prefix("link-arg=") {
            arguments.push(argument.to_owned());
        }
    }
    arguments
}
