//! What the test suite needs besides Rust, provisioned and started before it runs: each step says
//! on stderr what it installs and why before installing it, skips what is there already, and when
//! it cannot (no root for apt-get, no network) says what to do instead.
//!
//! Debian's packages come from apt-get, the MCP test clients from PyPI and npm into
//! `target/test-tools/` (the layout and markers `crates/cli/tests/support/test_tools.rs` reuses),
//! and the PostgreSQL cluster and its hot standby from `.ci/postgres` and `.ci/postgres-standby`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// The official Python SDK the real-client tests drive switchyard with.
const PYTHON_MCP: &str = "mcp==2.3.0";
/// Node 22 (npm's `node` package), the MCP conformance suite and the MCP Inspector.
const NODE_TOOLS: [&str; 3] =
    ["node@22", "@modelcontextprotocol/conformance@0.1.16", "@modelcontextprotocol/inspector@2.12.0"];
/// The browser driver of the console's tests, for Debian's Chromium.
const PLAYWRIGHT: &str = "playwright-core@1.65.1";

/// The variables the tests read to find the PostgreSQL servers.
const POSTGRES_URL: &str = "SWITCHYARD_TEST_POSTGRES_URL";
const POSTGRES_STANDBY_URL: &str = "SWITCHYARD_TEST_POSTGRES_STANDBY_URL";

/// Provisions everything and returns the variables the test runs need (the PostgreSQL URLs).
pub fn everything(root: &Path) -> Result<Vec<(&'static str, String)>> {
    corpora(root)?;
    if !is_root() {
        eprintln!(
            "note: not running as root: the tests that put a store on a small tmpfs (a full disk, a read-only mount) will fail, saying why"
        );
    }
    let mut apt = Apt::default();
    let tools = root.join("target/test-tools");
    python_client(&tools, &mut apt)?;
    node_tools(&tools, &mut apt)?;
    browser(root, &tools, &mut apt)?;

    eprintln!(
        "== tmux, for the tests that type into a real terminal (crates/cli/tests/first_hour.rs, runner_display.rs)"
    );
    apt.install_missing("tmux", &["tmux"])?;
    eprintln!("== man (Debian's man-db), which renders every man page (crates/cli/tests/onboarding.rs)");
    apt.install_missing("man", &["--no-install-recommends", "man-db"])?;
    eprintln!(
        "== Graphviz, which checks the DOT that inspect --format dot writes (crates/compiler/tests/diagram_export.rs)"
    );
    apt.install_missing("dot", &["--no-install-recommends", "graphviz"])?;

    postgres(&mut apt)
}

/// The corpora of workflows written by others, which no step here can fetch: checked first, so a
/// missing one is said before a build of several minutes rather than after it.
fn corpora(root: &Path) -> Result<()> {
    let holds_both = |folder: &Path| folder.join("workrail").is_dir() && folder.join("bmad").is_dir();
    if let Some(chosen) = std::env::var_os("SWITCHYARD_CORPORA") {
        if holds_both(Path::new(&chosen)) {
            return Ok(());
        }
        bail!("SWITCHYARD_CORPORA names {}, which does not hold `workrail/` and `bmad/`", Path::new(&chosen).display());
    }
    if root.ancestors().skip(1).any(|folder| holds_both(&folder.join("shared/testdata"))) {
        return Ok(());
    }
    bail!(
        "the shared test corpora (`workrail/` and `bmad/` in `shared/testdata/`) are not beside the repository: \
         put the `shared/` folder beside it, or set SWITCHYARD_CORPORA to the folder holding them"
    )
}

/// The Python SDK in a virtual environment of its own.
fn python_client(tools: &Path, apt: &mut Apt) -> Result<()> {
    let venv = tools.join("venv");
    let marker = venv.join(".switchyard-provisioned");
    if marker.is_file() {
        return Ok(());
    }
    eprintln!(
        "== the official MCP Python SDK ({PYTHON_MCP} from PyPI) into target/test-tools/venv, for the tests that drive switchyard with real MCP clients"
    );
    apt.install_missing("python3", &["python3"])?;
    // Debian's python3 makes virtual environments only with python3-venv (it brings ensurepip).
    let has_ensurepip = Command::new("python3").args(["-c", "import ensurepip"]).stderr(Stdio::null()).status();
    if !has_ensurepip.is_ok_and(|status| status.success()) {
        apt.install("python3's venv module", &["python3-venv"])?;
    }
    std::fs::create_dir_all(tools)?;
    run(
        Command::new("python3").arg("-m").arg("venv").arg(&venv),
        "python3 -m venv target/test-tools/venv",
        "see its output above",
    )?;
    run(
        Command::new(venv.join("bin/python")).args(["-m", "pip", "install", "--quiet", PYTHON_MCP]),
        &format!("pip install {PYTHON_MCP}"),
        "PyPI may be out of reach: check the network and pip's index and proxy settings",
    )?;
    std::fs::write(&marker, format!("{PYTHON_MCP}\n"))?;
    Ok(())
}

/// Node 22, the conformance suite and the Inspector, from npm.
fn node_tools(tools: &Path, apt: &mut Apt) -> Result<()> {
    let node = tools.join("node");
    let marker = node.join(".switchyard-provisioned");
    if marker.is_file() {
        return Ok(());
    }
    eprintln!(
        "== Node 22, the MCP conformance suite and the MCP Inspector ({} from npm) into target/test-tools/node, for the MCP conformance and real-client tests",
        NODE_TOOLS.join(" ")
    );
    apt.install_missing("npm", &["npm"])?;
    npm_folder(&node)?;
    npm_install(&node, &NODE_TOOLS)?;
    let installed = node.join("node_modules/node/bin/node");
    run(Command::new(installed).arg("--version"), "node 22 from npm", "see its output above")?;
    std::fs::write(&marker, "node@22\n")?;
    Ok(())
}

/// Debian's Chromium and playwright-core, for the console's tests in a real browser.
fn browser(root: &Path, tools: &Path, apt: &mut Apt) -> Result<()> {
    eprintln!(
        "== Chromium (Debian's package) and {PLAYWRIGHT} (npm), for the console's tests in a real browser (crates/cli/tests/console_browser.rs)"
    );
    apt.install_missing("chromium", &["chromium"])?;
    let node = tools.join("node");
    if !node.join("node_modules/playwright-core/package.json").is_file() {
        apt.install_missing("npm", &["npm"])?;
        npm_folder(&node)?;
        npm_install(&node, &[PLAYWRIGHT])?;
    }
    std::fs::create_dir_all(root.join("target/console-screenshots"))?;
    Ok(())
}

fn npm_folder(node: &Path) -> Result<()> {
    std::fs::create_dir_all(node)?;
    let manifest = node.join("package.json");
    if !manifest.is_file() {
        std::fs::write(&manifest, "{\"name\":\"switchyard-test-tools\",\"private\":true}\n")?;
    }
    Ok(())
}

fn npm_install(node: &Path, packages: &[&str]) -> Result<()> {
    run(
        Command::new("npm").current_dir(node).args(["install", "--no-fund", "--no-audit"]).args(packages),
        &format!("npm install {}", packages.join(" ")),
        "the npm registry may be out of reach: check the network and npm's registry and proxy settings (`npm config list`)",
    )
}

/// The PostgreSQL servers the tests use: the ones the variables name, else the machine's cluster
/// and a hot standby of it, started by `.ci/postgres` and `.ci/postgres-standby`.
fn postgres(apt: &mut Apt) -> Result<Vec<(&'static str, String)>> {
    eprintln!(
        "== PostgreSQL for the Postgres store's tests (crates/store-postgres/tests, and every test home in the second pass)"
    );
    let primary = match std::env::var(POSTGRES_URL) {
        Ok(url) => {
            eprintln!("   using the server {POSTGRES_URL} names");
            url
        }
        Err(_) => {
            apt.install_missing("pg_ctlcluster", &["postgresql"])?;
            started_by(".ci/postgres")?
        }
    };
    eprintln!(
        "== a hot standby of that cluster, which the store must refuse (crates/store-postgres/tests/read_only_advice.rs)"
    );
    let standby = match std::env::var(POSTGRES_STANDBY_URL) {
        Ok(url) => {
            eprintln!("   using the standby {POSTGRES_STANDBY_URL} names");
            url
        }
        Err(_) => started_by(".ci/postgres-standby")?,
    };
    Ok(vec![(POSTGRES_URL, primary), (POSTGRES_STANDBY_URL, standby)])
}

/// Runs one of the PostgreSQL scripts and returns the URL it prints.
fn started_by(script: &str) -> Result<String> {
    let output = Command::new("bash")
        .arg(script)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run bash {script}"))?;
    if !output.status.success() {
        bail!(
            "{script} could not start a server ({}): it runs Debian's cluster as the postgres user, which needs root; \
             without root, start a server yourself and set {POSTGRES_URL} (a role with CREATEDB and membership of \
             pg_signal_backend) and {POSTGRES_STANDBY_URL} (a hot standby of it)",
            output.status
        );
    }
    let url = String::from_utf8(output.stdout)?.trim().to_owned();
    eprintln!("   {script} prints {}", url.split('@').next_back().unwrap_or_default());
    Ok(url)
}

/// Debian's packages, through apt-get: its package lists are updated once, before the first
/// install.
#[derive(Default)]
struct Apt {
    updated: bool,
}

impl Apt {
    /// Installs `arguments` (packages, and apt-get's options) when `command` is not on the PATH.
    fn install_missing(&mut self, command: &str, arguments: &[&str]) -> Result<()> {
        if on_path(command) {
            return Ok(());
        }
        self.install(&format!("`{command}`"), arguments)
    }

    fn install(&mut self, what: &str, arguments: &[&str]) -> Result<()> {
        let packages: Vec<&str> = arguments.iter().copied().filter(|argument| !argument.starts_with('-')).collect();
        let packages = packages.join(" ");
        if !on_path("apt-get") {
            bail!(
                "{what} is missing and this machine has no apt-get: install it ({packages} on Debian) yourself, then run `cargo xtask test` again"
            );
        }
        if !is_root() {
            bail!(
                "{what} is missing, and apt-get needs root to install it: run `sudo apt-get install -y {packages}`, then `cargo xtask test` again"
            );
        }
        eprintln!("   {what} is missing: installing Debian's {packages} with apt-get");
        let no_network = "Debian's package mirrors may be out of reach: check the network and apt's proxy settings";
        if !self.updated {
            run(Command::new("apt-get").arg("update"), "apt-get update", no_network)?;
            self.updated = true;
        }
        run(
            Command::new("apt-get").env("DEBIAN_FRONTEND", "noninteractive").args(["install", "-y"]).args(arguments),
            &format!("apt-get install {packages}"),
            no_network,
        )
    }
}

/// Whether `command` is a file in a folder of the PATH.
fn on_path(command: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|folder: PathBuf| folder.join(command)).any(|candidate| candidate.is_file())
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

/// Runs a provisioning step with stdout and stderr shown; when it fails, says which step and what
/// to look at.
fn run(command: &mut Command, what: &str, advice: &str) -> Result<()> {
    let status = command.stdin(Stdio::null()).status().with_context(|| format!("cannot run {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status}); {advice}; then run `cargo xtask test` again");
    }
    Ok(())
}
