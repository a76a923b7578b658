//! Evidence: what switchyard checks about a step's work itself, rather than taking the agent's
//! word for it.
//!
//! A step's checks ([`EvidenceCheck`]) are data in its workflow, so they are pinned by the
//! workflow's hash and no agent can change, skip or answer them. When the agent reports the step
//! done, the runtime looks at the workspace (the IO: it walks files, runs commands, reads test
//! reports) and writes down what it saw as one [`Observation`] per check; the engine judges the
//! observations (a rule in one place, and a replay decides the same) and records them, passed or
//! not, as an [`EvidenceResult`] list in the `evidence_recorded` event of the advance.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How long a `command` check may run when it does not say.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(600);

/// The most paths one observation lists (missing globs, changed files); the rest are counted.
pub const MAX_LISTED_PATHS: usize = 50;

// The doc comments below are also the descriptions of the native format's published JSON Schema
// (`switchyard schema`), so they speak to workflow authors.
/// A check switchyard runs itself when the agent reports the step done, before anything is recorded. A failed check blocks the advance like any other check and costs an attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "NativeEvidence"))]
#[serde(rename_all = "snake_case", tag = "kind", deny_unknown_fields)]
pub enum EvidenceCheck {
    /// Every glob in `paths` (relative to the workspace, `**` for any depth) matches at least one regular file inside the workspace. Symbolic links are not followed.
    Files {
        /// Globs relative to the workspace, such as `src/**/*.py`.
        paths: Vec<String>,
    },
    /// The workspace's content differs from what it was when the step was handed out, in `paths` (files or folders relative to the workspace) or, without `paths`, anywhere. Judged on content, not commits (through git: the workspace's repository, or a private one for a workspace in none).
    Changed {
        /// Files or folders relative to the workspace. Default: the whole workspace.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        paths: Vec<String>,
    },
    /// switchyard runs a command in the workspace and requires its exit code.
    Command(CommandCheck),
    /// A JUnit XML report that a `command` check before this one wrote while it ran, with at least `min_tests` tests and no failure or error. An older report, or one written outside the command's run, is refused.
    TestReport {
        /// The report's path, relative to the workspace.
        path: String,
        /// Default 1.
        #[serde(default = "one", skip_serializing_if = "is_one")]
        min_tests: u64,
    },
    /// Every path the agent lists in the artifacts field `field` (a string or a list of strings) exists inside the workspace, and with `changed: true` changed since the step was handed out.
    ArtifactPaths {
        /// The artifacts field holding the paths.
        field: String,
        /// Each listed path must also have changed since the step was handed out. Default false.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        changed: bool,
    },
}

/// A command switchyard runs itself: a `command` check, or a step's `run`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "NativeCommand"))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub struct CommandCheck {
    /// The program and its arguments, run as they are (no shell): `["python3", "-m", "pytest", "-q"]`. With `shell: true`, one string `sh -c` runs.
    pub run: CommandLine,
    /// `run` is a shell command line. Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shell: bool,
    /// How long the command may run (`90s`, `5m`, `1h`); its process group is killed then. Default 10 minutes, bounded by `[evidence] max_timeout_seconds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// The exit code that passes. Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub expect_exit: i32,
}

/// What `run` holds: an argv, with `shell: true` a shell command line, or `{project: test_command}`: the project's own command, set in `switchyard.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "NativeCommandLine"))]
#[serde(untagged)]
pub enum CommandLine {
    Argv(Vec<String>),
    Shell(String),
    /// The project's command of this name, as `[project]` in `switchyard.toml` sets it when the run starts. A step switchyard runs whose project command is not set is skipped.
    Project {
        project: ProjectCommand,
    },
}

/// A command a project sets for itself in `switchyard.toml` (`[project] test_command`), for workflows written for any project (the built-in ones) to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ProjectCommand {
    /// The command that runs the project's tests.
    TestCommand,
}

impl ProjectCommand {
    /// Its key under `[project]` in `switchyard.toml`.
    pub fn key(self) -> &'static str {
        match self {
            Self::TestCommand => "test_command",
        }
    }
}

/// The project commands a run was started with, as `[project]` set them then: recorded in its
/// `run_started` event, so the run keeps them whatever `switchyard.toml` says later.
pub type ProjectCommands = std::collections::BTreeMap<ProjectCommand, CommandLine>;

impl CommandCheck {
    /// The argv to execute: `run` itself, or `sh -c <line>` for a shell command line. A project
    /// command is empty until [`CommandCheck::for_project`] has put the project's in its place.
    pub fn argv(&self) -> Vec<String> {
        match &self.run {
            CommandLine::Argv(argv) => argv.clone(),
            CommandLine::Shell(line) => vec!["sh".to_owned(), "-c".to_owned(), line.clone()],
            CommandLine::Project { .. } => Vec::new(),
        }
    }

    /// The command as one line for people.
    pub fn display(&self) -> String {
        match &self.run {
            CommandLine::Argv(argv) => argv.join(" "),
            CommandLine::Shell(line) => line.clone(),
            CommandLine::Project { project } => {
                format!("the project's {} ([project] in switchyard.toml)", project.key())
            }
        }
    }

    /// The project command this runs, if it runs one.
    pub fn project_command(&self) -> Option<ProjectCommand> {
        match &self.run {
            CommandLine::Project { project } => Some(*project),
            _ => None,
        }
    }

    /// The command to run in a run started with `project`: itself, or for a project command the
    /// project's (a string is a shell line, a list an argv), keeping its timeout and expected
    /// exit code; `None` when the run has no such project command.
    pub fn for_project(&self, project: &ProjectCommands) -> Option<CommandCheck> {
        let Some(name) = self.project_command() else { return Some(self.clone()) };
        let run = project.get(&name)?.clone();
        let shell = matches!(run, CommandLine::Shell(_));
        Some(CommandCheck { run, shell, ..self.clone() })
    }

    /// The time the command may run: its `timeout`, else [`DEFAULT_COMMAND_TIMEOUT`]. A timeout
    /// the compiler would refuse reads as the default.
    pub fn time_limit(&self) -> Duration {
        self.timeout.as_deref().and_then(|text| parse_timeout(text).ok()).unwrap_or(DEFAULT_COMMAND_TIMEOUT)
    }
}

impl EvidenceCheck {
    /// The kind as written: `files`, `changed`, `command`, `test_report`, `artifact_paths`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Files { .. } => "files",
            Self::Changed { .. } => "changed",
            Self::Command(_) => "command",
            Self::TestReport { .. } => "test_report",
            Self::ArtifactPaths { .. } => "artifact_paths",
        }
    }

    /// Whether judging the check needs the workspace as it was when the step was handed out.
    pub fn needs_snapshot(&self) -> bool {
        matches!(self, Self::Changed { .. } | Self::ArtifactPaths { changed: true, .. })
    }

    /// What the check requires, in one line for people and agents.
    pub fn requirement(&self) -> String {
        match self {
            Self::Files { paths } => format!("files matching {} exist", quoted(paths)),
            Self::Changed { paths } if paths.is_empty() => {
                "the workspace changed since the step was handed out".to_owned()
            }
            Self::Changed { paths } => format!("{} changed since the step was handed out", quoted(paths)),
            Self::Command(command) => match command.expect_exit {
                0 => format!("`{}` succeeds (exit code 0)", command.display()),
                code => format!("`{}` exits with code {code}", command.display()),
            },
            Self::TestReport { path, min_tests } => format!(
                "the command writes the JUnit report `{path}` with at least {min_tests} test{} and no failure",
                if *min_tests == 1 { "" } else { "s" }
            ),
            Self::ArtifactPaths { field, changed: false } => {
                format!("every path listed in the artifacts' `{field}` exists in the workspace")
            }
            Self::ArtifactPaths { field, changed: true } => {
                format!(
                    "every path listed in the artifacts' `{field}` exists and changed since the step was handed out"
                )
            }
        }
    }
}

fn quoted(paths: &[String]) -> String {
    paths.iter().map(|path| format!("`{path}`")).collect::<Vec<_>>().join(", ")
}

fn one() -> u64 {
    1
}

fn is_one(value: &u64) -> bool {
    *value == 1
}

fn is_zero(value: &i32) -> bool {
    *value == 0
}

/// Reads a timeout as written in a workflow: `90s`, `5m`, `1h 30m` (humantime's words), at least
/// one second.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let duration = humantime::parse_duration(text.trim())
        .map_err(|error| format!("`{text}` is not a duration ({error}): write one like `90s`, `5m` or `1h`"))?;
    if duration < Duration::from_secs(1) {
        return Err(format!("`{text}` is shorter than a second: give a command at least `1s`"));
    }
    Ok(duration)
}

/// The workspace as it was when a step was first handed out, kept in the node's state (and so
/// carried to the nodes of its retries) for the checks that compare with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Snapshot {
    /// The id of a git tree holding the workspace's content (tracked files and untracked ones
    /// git does not ignore), written to the repository's object store.
    Git { tree: String },
    /// No snapshot could be taken; the checks that need one fail with this reason.
    Unavailable { reason: String },
}

/// What the runtime saw for one check. The engine judges it against the check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Observation {
    /// The globs that matched no regular file.
    Files {
        unmatched: Vec<String>,
    },
    /// The paths that changed since the snapshot (at most [`MAX_LISTED_PATHS`]) and how many did.
    Changed {
        changed: Vec<String>,
        count: u64,
    },
    Command(CommandRun),
    TestReport(TestReport),
    /// The listed paths that were not usable: missing, outside the workspace, or unchanged.
    ArtifactPaths {
        listed: u64,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        missing: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        outside: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unchanged: Vec<String>,
    },
    /// The check could not be carried out (no workspace, commands are off, no snapshot, the
    /// artifacts field is not a list of paths): it fails with this reason.
    Unavailable {
        reason: String,
    },
}

impl Observation {
    /// What was observed, in one line for people: `command: exit code 1 after 2.3 s`.
    pub fn summary(&self) -> String {
        match self {
            Self::Files { unmatched } if unmatched.is_empty() => "files: every glob matched a file".to_owned(),
            Self::Files { unmatched } => format!("files: nothing matches {}", quoted(unmatched)),
            Self::Changed { count, .. } => format!("changed: {count} path(s) changed since the step was handed out"),
            Self::Command(run) => {
                let seconds = run.duration_ms as f64 / 1000.0;
                match (run.timed_out, run.exit_code, run.signal) {
                    (true, _, _) => format!("command: killed at its time limit after {seconds:.1} s"),
                    (false, Some(code), _) => format!("command: exit code {code} after {seconds:.1} s"),
                    (false, None, Some(signal)) => format!("command: ended by signal {signal} after {seconds:.1} s"),
                    (false, None, None) => format!("command: ended without an exit code after {seconds:.1} s"),
                }
            }
            Self::TestReport(report) => match &report.problem {
                Some(problem) => format!("test report: {problem}"),
                None => format!(
                    "test report: {} test(s), {} failed, {} error(s), {} skipped",
                    report.tests, report.failures, report.errors, report.skipped
                ),
            },
            Self::ArtifactPaths { listed, missing, outside, unchanged } => format!(
                "artifact paths: {listed} listed, {} missing, {} outside the workspace, {} unchanged",
                missing.len(),
                outside.len(),
                unchanged.len()
            ),
            Self::Unavailable { reason } => format!("not checked: {reason}"),
        }
    }
}

/// How a command switchyard ran ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct CommandRun {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    pub duration_ms: u64,
    /// The end of what it wrote, both streams, bounded.
    pub output_tail: String,
    /// Every byte it wrote to both streams.
    pub output_bytes: u64,
    /// The SHA-256 of all it wrote to each stream, as lowercase hex.
    pub stdout_sha256: String,
    pub stderr_sha256: String,
    /// Whether the kernel confined it (Landlock).
    pub confined: bool,
}

/// What a JUnit report said, or why it could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct TestReport {
    pub tests: u64,
    pub failures: u64,
    pub errors: u64,
    pub skipped: u64,
    /// Why the report was not usable (missing, older than the command, unreadable), if it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// One check's observation and the engine's verdict on it, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct EvidenceResult {
    /// The check's position in the step's `evidence` list.
    pub check: u32,
    pub passed: bool,
    pub observation: Observation,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_read_as_durations_of_a_second_or_more() {
        assert_eq!(parse_timeout("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_timeout(" 90s "), Ok(Duration::from_secs(90)));
        assert_eq!(parse_timeout("1h 30m"), Ok(Duration::from_secs(5400)));
        assert!(parse_timeout("soon").unwrap_err().contains("`5m`"));
        assert!(parse_timeout("10ms").unwrap_err().contains("shorter than a second"));
    }

    #[test]
    fn checks_read_in_the_shape_workflows_write() {
        let written = serde_json::json!([
            {"kind": "files", "paths": ["src/**/*.py"]},
            {"kind": "changed"},
            {"kind": "command", "run": ["make", "test"], "timeout": "5m"},
            {"kind": "command", "run": "make test | tee log", "shell": true, "expect_exit": 2},
            {"kind": "test_report", "path": "report.xml"},
            {"kind": "artifact_paths", "field": "files_changed", "changed": true},
        ]);
        let checks: Vec<EvidenceCheck> = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(checks[4], EvidenceCheck::TestReport { path: "report.xml".into(), min_tests: 1 });
        assert_eq!(checks[3].kind(), "command");
        let EvidenceCheck::Command(shell) = &checks[3] else { panic!("{:?}", checks[3]) };
        assert_eq!(shell.argv(), ["sh", "-c", "make test | tee log"]);
        assert_eq!(serde_json::to_value(&checks).unwrap(), written, "defaults are left out when written back");
        let unknown = serde_json::json!([{"kind": "files", "paths": [], "bogus": 1}]);
        assert!(serde_json::from_value::<Vec<EvidenceCheck>>(unknown).is_err());
    }
}
