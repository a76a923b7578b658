//! `switchyard doctor`: checks what a working setup needs (the configuration, the key file, the
//! store, the workflow folders, the MCP clients set up to start switchyard) and prints one line
//! per finding, ok, warn or fail, with the fix for each that is not ok.
//!
//! It reads and changes nothing: no key, store or folder is created. Exit 0 when nothing
//! failed (warnings are things to know, not problems), 1 when something did, 2 when it could not
//! run at all.

use std::fmt::Display;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use switchyard_catalog::Catalog;
use switchyard_catalog::Sourced;
use switchyard_config::Environment;
use switchyard_config::keys::unread_variables;
use switchyard_config::{Config, Overrides};
use switchyard_runtime::keys::{self, KeyFileStatus};

use crate::output::{Failure, Outcome, Printer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Ok,
    Warn,
    Fail,
}

/// One thing doctor found.
#[derive(Debug, Serialize)]
struct Finding {
    /// What was checked: `config`, `key file`, `store`, `workflows`, `mcp client`.
    check: &'static str,
    status: Status,
    /// The file or folder the finding is about.
    subject: String,
    message: String,
    /// What to do, for a finding that is not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

impl Finding {
    fn ok(check: &'static str, subject: impl Display, message: impl Into<String>) -> Self {
        Self { check, status: Status::Ok, subject: subject.to_string(), message: message.into(), fix: None }
    }

    fn warn(check: &'static str, subject: impl Display, message: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            check,
            status: Status::Warn,
            subject: subject.to_string(),
            message: message.into(),
            fix: Some(fix.into()),
        }
    }

    fn fail(check: &'static str, subject: impl Display, message: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            check,
            status: Status::Fail,
            subject: subject.to_string(),
            message: message.into(),
            fix: Some(fix.into()),
        }
    }
}

#[derive(Debug, Serialize)]
struct Summary {
    ok: usize,
    warn: usize,
    fail: usize,
}

#[derive(Debug, Serialize)]
struct Report {
    /// The binary doctor compared the MCP client entries with.
    binary: PathBuf,
    findings: Vec<Finding>,
    summary: Summary,
}

pub async fn run(printer: &Printer, overrides: Overrides) -> Result<Outcome, Failure> {
    let binary = std::env::current_exe()
        .and_then(|path| path.canonicalize())
        .map_err(|error| Failure::environment(format!("cannot tell where this switchyard binary is: {error}")))?;
    let project = overrides.project_root.clone();
    if let Some(project) = project.as_deref().filter(|project| !project.is_dir()) {
        return Err(Failure::usage(format!(
            "cannot check the project {}: it is not a folder; pass an existing one with --project",
            project.display()
        )));
    }
    let mut findings = vec![environment_variables()];
    match crate::opened::resolve(overrides) {
        Ok(config) => {
            findings.push(config_loaded(&config));
            findings.push(key_file(&config.home));
            findings.push(match &config.store_url {
                Some(url) => database(url.expose()).await,
                None => store(&config.store_path).await,
            });
            findings.extend(workflow_folders(&config));
        }
        Err(error) => {
            findings.push(Finding::fail(
                "config",
                "switchyard.toml",
                error.message,
                "correct the file and key named above (`switchyard init` in an empty folder writes a documented switchyard.toml to compare with); the key file, the store and the workflows are checked once it loads",
            ));
        }
    }
    findings.extend(mcp_clients(project.as_deref(), &binary));
    let count = |status| findings.iter().filter(|finding| finding.status == status).count();
    let summary = Summary { ok: count(Status::Ok), warn: count(Status::Warn), fail: count(Status::Fail) };
    let outcome = if summary.fail == 0 { Outcome::Success } else { Outcome::RuleViolation };
    let report = Report { binary, findings, summary };
    if printer.json {
        printer.json(&report)?;
        return Ok(outcome);
    }
    let width = report.findings.iter().map(|finding| finding.check.len()).max().unwrap_or(0);
    for finding in &report.findings {
        let status = match finding.status {
            Status::Ok => printer.green("ok  "),
            Status::Warn => printer.yellow("warn"),
            Status::Fail => printer.red("fail"),
        };
        printer.line(&format!("{status} {:<width$}  {}: {}", finding.check, finding.subject, finding.message))?;
        if let Some(fix) = &finding.fix {
            printer.line(&format!("     {:<width$}  {} {fix}", "", printer.bold("fix:")))?;
        }
    }
    let Summary { ok, warn, fail } = report.summary;
    printer.line(&format!("\n{ok} ok, {warn} warning(s), {fail} problem(s)"))?;
    Ok(outcome)
}

fn config_loaded(config: &Config) -> Finding {
    let files: Vec<String> = config
        .project_root
        .iter()
        .map(|root| root.join(switchyard_config::CONFIG_FILE))
        .chain(std::iter::once(config.home.join(switchyard_config::CONFIG_FILE)))
        .filter(|file| file.is_file())
        .map(|file| file.display().to_string())
        .collect();
    let message = if files.is_empty() {
        "no switchyard.toml; the defaults apply".to_owned()
    } else {
        format!("loads without errors ({})", files.join(", "))
    };
    Finding::ok("config", "switchyard.toml", message)
}

/// The `SWITCHYARD_*` variables set that switchyard reads nowhere: a misspelt one is otherwise
/// silently ignored. Names only; a value may be a secret.
fn environment_variables() -> Finding {
    let environment = Environment::of_process();
    let unread = unread_variables(environment.names());
    if unread.is_empty() {
        let count = environment.names().count();
        return Finding::ok(
            "environment",
            "SWITCHYARD_*",
            format!("{count} variable(s) set, each one switchyard reads"),
        );
    }
    let named: Vec<String> = unread
        .iter()
        .map(|(name, closest)| match closest {
            Some(closest) => format!("{name} (did you mean {closest}?)"),
            None => name.clone(),
        })
        .collect();
    Finding::warn(
        "environment",
        "SWITCHYARD_*",
        format!("set but read nowhere, so ignored: {}", named.join(", ")),
        "rename or unset them; docs/configuration.md lists every variable switchyard reads",
    )
}

fn key_file(home: &Path) -> Finding {
    let path = keys::key_file_path(home);
    let subject = path.display();
    match keys::status(home) {
        KeyFileStatus::Missing => {
            Finding::ok("key file", subject, "not created yet; the first run creates it (mode 600)")
        }
        KeyFileStatus::Usable => Finding::ok("key file", subject, "private to you (no group or other access)"),
        KeyFileStatus::OpenToOthers { mode } => Finding::fail(
            "key file",
            subject,
            format!(
                "other users may read it (mode {mode:o}), so they could sign tokens for your runs; switchyard refuses to use it"
            ),
            format!("chmod 600 {}", path.display()),
        ),
        KeyFileStatus::Unusable(message) => Finding::fail(
            "key file",
            subject,
            message,
            "restore the key file from a backup, or move it away to start with a new key (tokens already handed out stop working)",
        ),
        _ => Finding::warn("key file", subject, "in a state this doctor does not know", "run `switchyard keys rotate`"),
    }
}

async fn store(path: &Path) -> Finding {
    store_finding(&path.display().to_string(), switchyard_runtime::health::store_health(path).await)
}

/// The PostgreSQL store of `[store] url`, named without its password.
async fn database(url: &str) -> Finding {
    let health = switchyard_runtime::health::database_health(url).await.map(Some);
    store_finding(&switchyard_runtime::store::describe_url(url), health)
}

fn store_finding(
    subject: &str,
    health: Result<Option<switchyard_runtime::health::StoreHealth>, switchyard_runtime::Error>,
) -> Finding {
    match health {
        Ok(None) => Finding::warn(
            "store",
            subject,
            "no store yet",
            "nothing to do: the first `switchyard start` (or MCP start_workflow) creates it; if you expected one here, check --store, SWITCHYARD_STORE and [store] path",
        ),
        Ok(Some(health)) if health.verify.problems.is_empty() => Finding::ok(
            "store",
            subject,
            format!(
                "opens, schema version {}; verify checked {} session(s) and {} event(s): no problem",
                health.schema_version, health.verify.sessions_checked, health.verify.events_checked
            ),
        ),
        Ok(Some(health)) => Finding::fail(
            "store",
            subject,
            format!(
                "opens, schema version {}, but verify found {} problem(s) in {} sessions",
                health.schema_version,
                health.verify.problems.len(),
                health.verify.sessions_checked
            ),
            "run `switchyard verify` for each problem and where it is; restore the store from a backup if a hash chain is broken",
        ),
        Err(error) => Finding::fail(
            "store",
            subject,
            format!("does not open: {error}"),
            "follow the message above; `switchyard doctor --store FILE` checks another store",
        ),
    }
}

/// The project's and the user's workflow folders, each validated as `switchyard validate` does.
fn workflow_folders(config: &Config) -> Vec<Finding> {
    let catalog = Catalog::new(config.project_root.as_deref(), &config.home);
    let mut findings = Vec::new();
    let folders =
        catalog.project_dir.iter().map(|dir| (dir, "project")).chain(catalog.user_dir.iter().map(|dir| (dir, "user")));
    for (folder, whose) in folders {
        if !folder.is_dir() {
            let fix = if whose == "project" {
                "run `switchyard init` to create it with an example workflow"
            } else {
                "nothing to do unless you want workflows for every project: create it and put them there"
            };
            findings.push(Finding::warn("workflows", folder.display(), format!("no {whose} workflow folder"), fix));
            continue;
        }
        let (mut valid, mut broken) = (0, Vec::new());
        for (source, result) in Catalog::sources(folder) {
            match result {
                Ok(Sourced::Workflows(found)) => {
                    for found in found {
                        if found.compiled.workflow.is_some() {
                            valid += 1;
                        } else {
                            let errors: Vec<String> = found
                                .compiled
                                .diagnostics
                                .iter()
                                .filter(|diagnostic| diagnostic.is_error())
                                .map(|diagnostic| diagnostic.to_string().replace('\n', " "))
                                .collect();
                            broken.push((
                                source.clone(),
                                format!("{} does not compile: {}", found.name, errors.join("; ")),
                            ));
                        }
                    }
                }
                Ok(Sourced::NotAWorkflow(_)) => {}
                Err(error) => broken.push((source, error.to_string())),
            }
        }
        findings.push(Finding::ok("workflows", folder.display(), format!("{valid} valid {whose} workflow(s)")));
        for (source, message) in broken {
            findings.push(Finding::fail(
                "workflows",
                source.display(),
                message,
                format!(
                    "run `switchyard validate {}` and fix what it reports, or move the file out of the folder",
                    source.display()
                ),
            ));
        }
    }
    findings
}

/// One MCP client configuration file and where in it the servers are.
struct ClientFile {
    client: &'static str,
    path: PathBuf,
    /// `claude mcp add` scope for the fix, for Claude Code's files.
    scope: Option<&'static str>,
}

/// The MCP client configurations doctor knows, project files first.
fn client_files(project: Option<&Path>, home: Option<&Path>) -> Vec<ClientFile> {
    let mut files = Vec::new();
    if let Some(project) = project {
        files.push(ClientFile { client: "Claude Code", path: project.join(".mcp.json"), scope: Some("project") });
        files.push(ClientFile { client: "Cursor", path: project.join(".cursor").join("mcp.json"), scope: None });
    }
    if let Some(home) = home {
        files.push(ClientFile { client: "Claude Code", path: home.join(".claude.json"), scope: Some("user") });
        files.push(ClientFile { client: "Cursor", path: home.join(".cursor").join("mcp.json"), scope: None });
    }
    files
}

fn mcp_clients(project: Option<&Path>, binary: &Path) -> Vec<Finding> {
    let home = dirs::home_dir();
    let mut findings = Vec::new();
    let mut entries = 0;
    for file in client_files(project, home.as_deref()) {
        let text = match std::fs::read_to_string(&file.path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => {
                findings.push(Finding::warn(
                    "mcp client",
                    file.path.display(),
                    format!("cannot read {}'s configuration: {error}", file.client),
                    "check the file's permissions",
                ));
                continue;
            }
        };
        let document: Value = match serde_json::from_str(&text) {
            Ok(document) => document,
            Err(error) => {
                findings.push(Finding::fail(
                    "mcp client",
                    file.path.display(),
                    format!("is not valid JSON, so {} reads none of its servers: {error}", file.client),
                    "correct the JSON at the line and column named",
                ));
                continue;
            }
        };
        let mut servers: Vec<(String, &Value)> = Vec::new();
        collect_servers(&document["mcpServers"], "", &mut servers);
        // Claude Code keeps servers added with the default (local) scope under the project's path.
        if file.scope == Some("user")
            && let Some(project) = project
            && let Some(projects) = document["projects"].as_object()
        {
            for (path, settings) in projects {
                if same_path(Path::new(path), project) {
                    collect_servers(&settings["mcpServers"], &format!("projects.{path}."), &mut servers);
                }
            }
        }
        for (name, server) in servers {
            entries += 1;
            findings.push(check_server(&file, &name, server, binary));
        }
    }
    if entries == 0 {
        findings.push(Finding::warn(
            "mcp client",
            "Claude Code, Cursor",
            "no MCP client configuration found here starts switchyard",
            format!(
                "`claude mcp add --scope project switchyard -- {} mcp` (Claude Code), or add {{\"mcpServers\": {{\"switchyard\": {{\"command\": \"{}\", \"args\": [\"mcp\"]}}}}}} to .cursor/mcp.json (Cursor)",
                binary.display(),
                binary.display()
            ),
        ));
    }
    findings
}

/// The servers of an `mcpServers` object that are switchyard's: named for it, or starting a
/// program called `switchyard`.
fn collect_servers<'a>(servers: &'a Value, prefix: &str, into: &mut Vec<(String, &'a Value)>) {
    let Some(servers) = servers.as_object() else { return };
    for (name, server) in servers {
        let command = server["command"].as_str().unwrap_or("");
        let program = Path::new(command).file_name().and_then(|name| name.to_str()).unwrap_or("");
        if name.to_ascii_lowercase().contains("switchyard") || program == "switchyard" {
            into.push((format!("{prefix}mcpServers.{name}"), server));
        }
    }
}

fn check_server(file: &ClientFile, name: &str, server: &Value, binary: &Path) -> Finding {
    let subject = format!("{} ({name})", file.path.display());
    let key = name.rsplit('.').next().unwrap_or(name);
    let re_add = match file.scope {
        Some(scope) => {
            let scope_flag = if name.starts_with("projects.") { String::new() } else { format!(" --scope {scope}") };
            format!(
                "`claude mcp remove{scope_flag} {key}` then `claude mcp add{scope_flag} {key} -- {} mcp`",
                binary.display()
            )
        }
        None => format!(
            "in {}, set \"command\" of \"{key}\" to \"{}\" and \"args\" to [\"mcp\"]",
            file.path.display(),
            binary.display()
        ),
    };
    if let Some(url) = server["url"].as_str() {
        return Finding::ok(
            "mcp client",
            subject,
            format!("{} connects over HTTP to {url}; `switchyard serve` must be running there", file.client),
        );
    }
    let Some(command) = server["command"].as_str().filter(|command| !command.is_empty()) else {
        return Finding::fail(
            "mcp client",
            subject,
            format!("{}'s entry has neither a command nor a url", file.client),
            re_add,
        );
    };
    let arguments: Vec<&str> =
        server["args"].as_array().map(|args| args.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let Some(program) = resolve_program(command) else {
        return Finding::fail(
            "mcp client",
            subject,
            format!("{} would start `{command}`, which does not exist", file.client),
            re_add,
        );
    };
    if arguments.first() != Some(&"mcp") {
        return Finding::fail(
            "mcp client",
            subject,
            format!("{} starts `{command} {}`, not `switchyard mcp`", file.client, arguments.join(" ")),
            re_add,
        );
    }
    if program != binary {
        return Finding::warn(
            "mcp client",
            subject,
            format!(
                "{} starts {}, another switchyard than this one ({})",
                file.client,
                program.display(),
                binary.display()
            ),
            format!("if this binary is the one to use: {re_add}"),
        );
    }
    Finding::ok("mcp client", subject, format!("{} starts this switchyard (`{command} mcp`)", file.client))
}

/// The program a client would start for `command`: a path as written, or the first match on
/// `PATH` for a bare name; canonical, so links compare equal to what they point at.
fn resolve_program(command: &str) -> Option<PathBuf> {
    let command = match command.strip_prefix("~/") {
        Some(rest) => dirs::home_dir()?.join(rest),
        None => PathBuf::from(command),
    };
    if command.components().count() > 1 {
        return command.canonicalize().ok().filter(|path| path.is_file());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|folder| folder.join(&command))
        .find(|candidate| candidate.is_file())
        .and_then(|found| found.canonicalize().ok())
}

fn same_path(left: &Path, right: &Path) -> bool {
    left == right || left.canonicalize().ok().zip(right.canonicalize().ok()).is_some_and(|(left, right)| left == right)
}
