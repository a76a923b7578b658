//! Repository hygiene, tested like code: file headers, the purity of the core crates, and the
//! shortcuts that must not land.

use std::fs;
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/cli sits two levels below the root")
        .to_owned()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
        if path.is_dir() {
            if !matches!(name, "target" | ".git" | "node_modules") {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The workspace's own Rust files: its crates and `xtask/`.
fn all_rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&workspace_root().join("crates"), &mut files);
    rust_files(&workspace_root().join("xtask"), &mut files);
    assert!(files.len() > 10, "the tidy test found too few files; is the root right?");
    files
}

#[test]
fn every_rust_file_starts_with_a_module_doc_line() {
    let missing: Vec<String> = all_rust_files()
        .into_iter()
        .filter(|path| !fs::read_to_string(path).unwrap_or_default().starts_with("//!"))
        .map(|path| path.display().to_string())
        .collect();
    assert!(missing.is_empty(), "files without a leading `//!` line saying what they are for:\n{}", missing.join("\n"));
}

#[test]
fn no_grab_bag_modules() {
    let grab_bags: Vec<String> = all_rust_files()
        .into_iter()
        .filter(|path| {
            matches!(
                path.file_name().and_then(|n| n.to_str()),
                Some("utils.rs" | "helpers.rs" | "misc.rs" | "common.rs")
            )
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(grab_bags.is_empty(), "name modules after what they do:\n{}", grab_bags.join("\n"));
}

/// The pure core does no IO, reads no clock and draws no randomness.
#[test]
fn pure_crates_do_no_io() {
    const PURE: [&str; 3] = ["core", "compiler", "engine"];
    const FORBIDDEN_CRATES: [&str; 8] =
        ["tokio", "rusqlite", "reqwest", "rand", "getrandom", "dirs", "tempfile", "sqlx"];
    const FORBIDDEN_CALLS: [&str; 8] = [
        "std::fs",
        "std::net",
        "std::process",
        "std::env::var",
        "SystemTime::now",
        "Instant::now",
        "thread_rng",
        "std::io::stdin",
    ];
    let root = workspace_root();
    let mut problems = Vec::new();
    for name in PURE {
        let crate_dir = root.join("crates").join(name);
        let manifest = fs::read_to_string(crate_dir.join("Cargo.toml")).expect("pure crate manifest");
        let dependencies = manifest.split("[dev-dependencies]").next().unwrap_or_default();
        for forbidden in FORBIDDEN_CRATES {
            if dependencies.lines().any(|line| {
                line.trim_start().starts_with(&format!("{forbidden} "))
                    || line.trim_start().starts_with(&format!("{forbidden}."))
                    || line.trim_start().starts_with(&format!("{forbidden}="))
            }) {
                problems.push(format!("crates/{name}/Cargo.toml depends on `{forbidden}`"));
            }
        }
        let mut files = Vec::new();
        rust_files(&crate_dir.join("src"), &mut files);
        for file in files {
            let text = fs::read_to_string(&file).unwrap_or_default();
            // Unit tests may touch the file system (fixtures); the code they test may not.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for call in FORBIDDEN_CALLS {
                if code.contains(call) {
                    problems.push(format!("{} uses `{call}`", file.display()));
                }
            }
        }
    }
    assert!(problems.is_empty(), "the pure core must not do IO:\n{}", problems.join("\n"));
}

#[test]
fn no_skipped_or_stubbed_tests() {
    let needles = ["#[ignore", "#[should_panic", "todo!(", "unimplemented!(", "dbg!("];
    let this_file = Path::new(file!()).file_name().map(|name| name.to_owned());
    let mut problems = Vec::new();
    for path in all_rust_files() {
        if path.file_name().map(|name| name.to_owned()) == this_file {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap_or_default();
        for needle in needles {
            if text.contains(needle) {
                problems.push(format!("{} contains `{needle}`", path.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Doors reach the engine, the compiler and the store backends only through the runtime, the one
/// API they use: a door that needs an engine rule asks the runtime, it cannot re-implement it
/// with the engine's own parts. The store's contract crate (`switchyard-store`) is no backend.
#[test]
fn doors_depend_on_the_runtime_never_on_the_engine_the_compiler_or_a_store_backend() {
    /// Door crates, present and coming; a door without a folder yet is skipped.
    const DOORS: [&str; 5] = ["cli", "mcp", "files", "runner", "console"];
    /// Dev-dependencies of a door on a crate it must not use, each with why; nothing else.
    const ALLOWED_FOR_TESTS: [(&str, &str, &str); 2] = [
        (
            "files",
            "switchyard-store-sqlite",
            "its tests and benchmark assemble a runtime from parts (`Runtime::from_parts`) over a real SQLite file",
        ),
        ("cli", "switchyard-compiler", "the validate benchmark builds its corpus from the compiler's built-in sources"),
    ];
    let forbidden = |package: &str| {
        matches!(package, "switchyard-engine" | "switchyard-compiler") || package.starts_with("switchyard-store-")
    };
    let root = workspace_root();
    let mut problems = Vec::new();
    let mut allowances_used = Vec::new();
    for door in DOORS {
        let path = root.join("crates").join(door).join("Cargo.toml");
        let Ok(text) = fs::read_to_string(&path) else { continue };
        let manifest: toml::Table = text.parse().unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        // The manifest's own sections, then each `[target.<cfg>.…]`'s.
        let mut owners: Vec<(String, &toml::Table)> = vec![(String::new(), &manifest)];
        for (target, owner) in manifest.get("target").and_then(toml::Value::as_table).into_iter().flatten() {
            if let Some(owner) = owner.as_table() {
                owners.push((format!("target.{target}."), owner));
            }
        }
        let mut tables: Vec<(String, &toml::Table)> = Vec::new();
        for (prefix, owner) in owners {
            for table in ["dependencies", "build-dependencies", "dev-dependencies"] {
                if let Some(dependencies) = owner.get(table).and_then(toml::Value::as_table) {
                    tables.push((format!("{prefix}{table}"), dependencies));
                }
            }
        }
        for (section, dependencies) in tables {
            for (name, spec) in dependencies {
                // A renamed dependency names its package.
                let package = spec.get("package").and_then(toml::Value::as_str).unwrap_or(name);
                if !forbidden(package) {
                    continue;
                }
                let allowed = section.ends_with("dev-dependencies")
                    && ALLOWED_FOR_TESTS
                        .iter()
                        .any(|(crate_name, allowed, _)| *crate_name == door && *allowed == package);
                if allowed {
                    allowances_used.push((door, package.to_owned()));
                } else {
                    problems.push(format!(
                        "crates/{door}/Cargo.toml: [{section}] has `{package}`: ask the runtime (add the API the door needs to switchyard-runtime)"
                    ));
                }
            }
        }
    }
    for (door, package, _) in ALLOWED_FOR_TESTS {
        if !allowances_used.iter().any(|(used_door, used)| *used_door == door && used == package) {
            problems.push(format!("the allowance of `{package}` for crates/{door} is no longer used: remove it"));
        }
    }
    assert!(problems.is_empty(), "doors depend on the runtime only:\n{}", problems.join("\n"));
}

/// Each crate has a floor, and a crate depends only on crates of lower floors, so the crate graph
/// reads as the design does: the pure core, the contracts and the configuration, the backends and
/// the catalog, the runtime and the validation suite, the run folders that follow the runtime,
/// then the doors. A crate also names what it must never know even where its floor would allow
/// it: the catalog, the configuration and the validation suite know no store; the runtime knows no
/// door and no projection kept beside the log. Dev-dependencies are free (tests assemble whatever
/// they test), so only `[dependencies]` and `[build-dependencies]` are read.
#[test]
fn every_crate_stays_on_its_floor() {
    const FLOORS: [(&str, u8); 21] = [
        ("core", 0),
        ("llm", 0),
        ("command", 0),
        ("test-support", 0),
        ("compiler", 1),
        ("engine", 1),
        ("store", 1),
        ("config", 1),
        ("store-sqlite", 2),
        ("store-postgres", 2),
        ("catalog", 2),
        ("runtime", 3),
        ("validate", 3),
        ("run-folder", 4),
        ("files", 5),
        ("mcp", 5),
        ("console", 5),
        ("runner", 6),
        ("cli", 7),
        ("xtask", 7),
        ("fuzz", 7),
    ];
    const MUST_NOT_KNOW: [(&str, &[&str]); 4] = [
        ("config", &["switchyard-store", "switchyard-compiler", "switchyard-engine"]),
        ("catalog", &["switchyard-store", "switchyard-engine"]),
        ("validate", &["switchyard-store", "switchyard-runtime"]),
        ("runtime", &["switchyard-run-folder", "switchyard-validate"]),
    ];
    let root = workspace_root();
    let floor_of = |folder: &str| FLOORS.iter().find(|(name, _)| *name == folder).map(|(_, floor)| *floor);
    let mut problems = Vec::new();
    let mut folders: Vec<String> = fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().join("Cargo.toml").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    for folder in &folders {
        let Some(floor) = floor_of(folder) else {
            problems.push(format!("crates/{folder} has no floor: add it to FLOORS and to ARCHITECTURE.md"));
            continue;
        };
        let path = root.join("crates").join(folder).join("Cargo.toml");
        let manifest: toml::Table = fs::read_to_string(&path).unwrap().parse().unwrap();
        let forbidden = MUST_NOT_KNOW.iter().find(|(name, _)| name == folder).map_or(&[][..], |(_, list)| *list);
        for table in ["dependencies", "build-dependencies"] {
            for (name, spec) in manifest.get(table).and_then(toml::Value::as_table).into_iter().flatten() {
                let package = spec.get("package").and_then(toml::Value::as_str).unwrap_or(name);
                let Some(dependency) = package.strip_prefix("switchyard-") else { continue };
                match floor_of(dependency) {
                    Some(below) if below < floor => {}
                    Some(below) => problems.push(format!(
                        "crates/{folder} (floor {floor}) depends on switchyard-{dependency} (floor {below}): a crate depends only on lower floors"
                    )),
                    None => problems.push(format!("crates/{folder} depends on `{package}`, which has no floor")),
                }
                if forbidden.contains(&package) {
                    problems.push(format!("crates/{folder} must not know `{package}`"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "crates off their floors:\n{}", problems.join("\n"));
}
