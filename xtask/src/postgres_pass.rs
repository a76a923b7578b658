//! The second pass of `cargo xtask test`: the test binaries of the runtime, the MCP door and the
//! CLI, which the first pass built, run again with `SWITCHYARD_TEST_BACKEND=postgres`, so that each
//! test home's store is a PostgreSQL database of its own (`crates/test-support/src/test_home.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// The packages whose integration tests run again, by their folder under `crates/`.
const PACKAGES: [&str; 3] = ["runtime", "mcp", "cli"];

pub fn run(servers: &[(&'static str, String)]) -> Result<()> {
    // Asked of the same build as the first pass: `cargo test -p …` would resolve features for
    // fewer packages than the workspace, and rebuild.
    let output = Command::new(crate::cargo())
        .args(["test", "--workspace", "--locked", "--no-run", "--message-format=json"])
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo test --no-run")?;
    if !output.status.success() {
        bail!("cargo test --workspace --no-run failed ({})", output.status);
    }
    let binaries = test_binaries(&String::from_utf8(output.stdout)?);
    // A pass that found no test binaries would pass silently: each package must have some.
    for package in PACKAGES {
        if !binaries.iter().any(|(folder, _)| folder.ends_with(Path::new("crates").join(package))) {
            bail!("no test binaries of crates/{package} for the Postgres pass");
        }
    }
    for (folder, executable) in &binaries {
        let name = |path: &Path| path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        eprintln!("-- {} {}", name(folder), name(executable));
        // Run from the package's folder, as cargo runs them.
        let status = Command::new(executable)
            .current_dir(folder)
            .env("SWITCHYARD_TEST_BACKEND", "postgres")
            .envs(servers.iter().cloned())
            .stdin(Stdio::null())
            .status()
            .with_context(|| format!("cannot run {}", executable.display()))?;
        if !status.success() {
            bail!("{} failed on PostgreSQL ({status}): the failures are listed above", executable.display());
        }
    }
    Ok(())
}

/// The integration test binaries of [`PACKAGES`] that cargo's JSON messages name, each with its
/// package's folder, in the order cargo built them.
fn test_binaries(messages: &str) -> Vec<(PathBuf, PathBuf)> {
    let mut binaries = Vec::new();
    for message in messages.lines().filter_map(|line| serde_json::from_str::<Value>(line).ok()) {
        let is_test =
            message["reason"] == "compiler-artifact" && message["target"]["kind"] == serde_json::json!(["test"]);
        let (Some(manifest), Some(executable)) = (message["manifest_path"].as_str(), message["executable"].as_str())
        else {
            continue;
        };
        let Some(folder) = Path::new(manifest).parent() else { continue };
        let ours = PACKAGES.iter().any(|package| folder.ends_with(Path::new("crates").join(package)));
        if is_test && ours {
            binaries.push((folder.to_owned(), PathBuf::from(executable)));
        }
    }
    binaries
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::test_binaries;

    #[test]
    fn only_the_integration_tests_of_the_runtime_the_mcp_door_and_the_cli_are_taken() {
        let messages = [
            r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/cli/Cargo.toml","target":{"kind":["test"]},"executable":"/w/target/debug/deps/tidy-1"}"#,
            r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/cli/Cargo.toml","target":{"kind":["bin"]},"executable":"/w/target/debug/switchyard"}"#,
            r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/runtime/Cargo.toml","target":{"kind":["lib"]},"executable":null}"#,
            r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/runtime/Cargo.toml","target":{"kind":["test"]},"executable":"/w/target/debug/deps/runtime-2"}"#,
            r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/store/Cargo.toml","target":{"kind":["test"]},"executable":"/w/target/debug/deps/stored_event_format-3"}"#,
            r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/mcp-extra/Cargo.toml","target":{"kind":["test"]},"executable":"/w/target/debug/deps/other-4"}"#,
            r#"{"reason":"build-finished","success":true}"#,
            "not JSON: a line cargo's tools may print",
        ];
        let found = test_binaries(&messages.join("\n"));
        let expected =
            [("/w/crates/cli", "/w/target/debug/deps/tidy-1"), ("/w/crates/runtime", "/w/target/debug/deps/runtime-2")];
        let expected: Vec<(PathBuf, PathBuf)> =
            expected.iter().map(|(folder, executable)| (PathBuf::from(folder), PathBuf::from(executable))).collect();
        assert_eq!(found, expected);
    }
}
