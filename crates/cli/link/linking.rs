//! How the `switchyard` binary is linked beyond rustc's defaults, shared by `build.rs` and
//! `tests/code_layout.rs` (each includes this file with `#[path]`).
//!
//! Each extra is a linker flag a small C program is first linked with, through the linker rustc
//! will use, and then run: the binary gets the flag only if that program starts and shows the
//! flag did its work. So an old linker, another linker (mold has no linker scripts) or a C
//! library that cannot load the result leaves the default, rather than a guess from version
//! numbers breaking the build.

use std::path::Path;
use std::process::Command;

/// Packed relative relocations (`DT_RELR`).
pub const RELR_FLAG: &str = "-Wl,-z,pack-relative-relocs";

/// A pointer in static data needs a relative relocation in a position-independent executable;
/// the program exits 0 only if the loader applied it.
pub const RELR_PROBE: &str =
    "static const char *const word = \"relr\";\nint main(void) { return word[0] == 'r' ? 0 : 1; }\n";

/// Links with the hot-code script: exits 0 only if the hot function, written after the cold one,
/// was placed before it, as the script's section before `.text` puts it.
pub const LAYOUT_PROBE: &str = "int cold(void) { return 2; }\n\
    int switchyard_layout_probe(void) { return 1; }\n\
    int main(void) { return (char *)switchyard_layout_probe < (char *)cold && switchyard_layout_probe() == 1 ? 0 : 1; }\n";

/// The name of the output section that holds the hot functions.
pub const HOT_SECTION: &str = ".text.hot";

/// The linker script that gathers the functions `list` names (`link/hot-code.txt`: one pattern
/// over a symbol per line, `*` for any characters, `#` comments) into one section before
/// `.text`, the probe's hot function last. rustc gives each function a section named after its
/// symbol, `.text.<symbol>`, or `.text.unlikely.<symbol>` for a `#[cold]` one. `INSERT BEFORE`
/// keeps the rest of the default layout.
///
/// # Errors
/// A line that is not a symbol pattern, which the linker would read as script.
pub fn hot_code_script(list: &str) -> Result<String, String> {
    let mut script = format!("SECTIONS\n{{\n  {HOT_SECTION} :\n  {{\n");
    for pattern in list.lines().map(str::trim).filter(|line| !line.is_empty() && !line.starts_with('#')) {
        let symbol_like = pattern.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"._*".contains(&byte));
        if !symbol_like {
            return Err(format!("`{pattern}` is not a pattern over a symbol"));
        }
        script.push_str(&format!("    *(.text.{pattern} .text.unlikely.{pattern})\n"));
    }
    script.push_str("    *(.text.switchyard_layout_probe)\n  }\n}\nINSERT BEFORE .text;\n");
    Ok(script)
}

/// The C compiler and the arguments that make it link as rustc links the binary.
pub struct Toolchain {
    compiler: cc::Tool,
    link_arguments: Vec<String>,
}

impl Toolchain {
    /// `compiler` drives the link; `target` and `rustc` tell which linker rustc picks by default;
    /// `encoded_rustflags` (`CARGO_ENCODED_RUSTFLAGS`) may name another with `-C link-arg`.
    pub fn new(compiler: cc::Tool, target: &str, rustc: &str, encoded_rustflags: &str) -> Toolchain {
        let mut link_arguments = rustc_default_linker(target, rustc);
        link_arguments.extend(link_args(encoded_rustflags));
        Toolchain { compiler, link_arguments }
    }

    /// Whether `source`, linked with `flags` into `out_dir/name`, links and runs.
    pub fn probe_runs(&self, out_dir: &Path, name: &str, source: &str, flags: &[&str]) -> bool {
        let source_file = out_dir.join(format!("{name}.c"));
        let program = out_dir.join(name);
        if std::fs::write(&source_file, source).is_err() {
            return false;
        }
        let linked = self
            .compiler
            .to_command()
            .args(&self.link_arguments)
            .args(["-fPIE", "-pie", "-ffunction-sections"])
            .args(flags)
            .arg("-o")
            .arg(&program)
            .arg(&source_file)
            .output()
            .is_ok_and(|output| output.status.success());
        linked && Command::new(&program).output().is_ok_and(|output| output.status.success())
    }
}

/// The flag that links with the linker script at `path`, unless the path cannot be passed
/// through `-Wl,` (which splits its argument at commas).
pub fn script_flag(path: &Path) -> Option<String> {
    let path = path.to_str().filter(|path| !path.contains(','))?;
    Some(format!("-Wl,-T,{path}"))
}

/// On x86_64 Linux rustc links with its own copy of lld (`-fuse-ld=lld` through its `gcc-ld`
/// folder) unless told otherwise; a `-fuse-ld=` among the link arguments comes later and wins.
fn rustc_default_linker(target: &str, rustc: &str) -> Vec<String> {
    if target != "x86_64-unknown-linux-gnu" {
        return Vec::new();
    }
    let Ok(output) = Command::new(rustc).args(["--print", "sysroot"]).output() else { return Vec::new() };
    let sysroot = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let gcc_ld = Path::new(&sysroot).join("lib/rustlib").join(target).join("bin/gcc-ld");
    if !output.status.success() || !gcc_ld.is_dir() {
        return Vec::new();
    }
    vec![format!("-B{}", gcc_ld.display()), "-fuse-ld=lld".to_owned()]
}

/// The `-C link-arg=` flags in `encoded_rustflags` (`-fuse-ld=mold`, for one): a probe must be
/// linked by the binary's linker, since not every linker that accepts a flag also does what it
/// says (mold 1.10 writes packed relocations without the glibc version they need, and the loader
/// refuses them).
fn link_args(encoded_rustflags: &str) -> Vec<String> {
    let flags: Vec<&str> = encoded_rustflags.split('\x1f').collect();
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
