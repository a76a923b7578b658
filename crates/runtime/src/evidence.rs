//! Gathering evidence: the IO half of a step's `evidence` checks. The runtime looks at the
//! workspace when the agent reports the step done (files, a change since the step's snapshot, a
//! command it runs, a test report that command wrote, the paths the agent lists) and writes down
//! what it saw, one [`Observation`] per check; the engine judges them.
//!
//! Everything here is bounded: walks stop at 200,000 entries, commands at their time limit with
//! their output's tail kept, reports at 32 MiB. Nothing an agent wrote
//! is followed out of the workspace: walks do not follow symbolic links, and a listed path that
//! resolves outside is reported as such.

mod files;
mod git;
mod junit;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use switchyard_command::{CommandSpec, Limits, Sandbox};
use switchyard_config::Config;
use switchyard_core::NodeId;
use switchyard_core::evidence::{
    CommandCheck, CommandRun, EvidenceCheck, MAX_LISTED_PATHS, Observation, ProjectCommands, Snapshot,
};
use switchyard_core::state::{NodeState, Phase};
use switchyard_core::workflow::Workflow;
use switchyard_engine::LoadedWorkflow;
use tokio_util::sync::CancellationToken;

use crate::Runtime;

/// The most entries a `files` walk visits before it gives up on the globs it has not matched.
pub(crate) const MAX_WALKED: usize = 200_000;

/// The end of a command's output an observation keeps (the engine shows it to the agent; the
/// event records it).
const KEPT_TAIL_BYTES: usize = 4096;

/// Where and how the runtime runs the commands of evidence checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidencePolicy {
    /// Where `command` checks may run.
    pub commands: CommandPlaces,
    /// The longest a command may run, whatever its check asks.
    pub max_timeout: Duration,
    /// The tail of each output stream kept while a command runs.
    pub max_output_bytes: usize,
    /// Places a command may not write (switchyard's configuration and workflow folders outside
    /// the workspace) and may not read (the key folder, the store, the serve token).
    pub unwritable: Vec<PathBuf>,
    pub secret: Vec<PathBuf>,
    /// Where the snapshots of workspaces in no git repository are kept (a private repository
    /// each); `None`: such a workspace cannot be compared.
    pub snapshots: Option<PathBuf>,
    /// The project's own commands (`[project]`), which a run started now is given.
    pub project: ProjectCommands,
}

/// Where evidence commands may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandPlaces {
    /// In any run's workspace: the CLI, the runner, stdio MCP.
    Anywhere,
    /// Nowhere (`[evidence] commands = false`).
    Nowhere,
    /// Only in these workspaces and the folders below them: `switchyard serve`, whose clients may
    /// be anyone its token reaches.
    Trusted(Vec<PathBuf>),
}

impl Default for EvidencePolicy {
    fn default() -> Self {
        Self {
            commands: CommandPlaces::Anywhere,
            max_timeout: Duration::from_secs(3600),
            max_output_bytes: 1 << 20,
            unwritable: Vec::new(),
            secret: Vec::new(),
            snapshots: None,
            project: ProjectCommands::new(),
        }
    }
}

impl EvidencePolicy {
    /// The project commands `workflow` runs, as this policy has them: what a run of it started
    /// now records and keeps.
    pub fn project_commands_for(&self, workflow: &Workflow) -> ProjectCommands {
        workflow
            .project_commands()
            .into_iter()
            .filter_map(|name| Some((name, self.project.get(&name)?.clone())))
            .collect()
    }

    /// The policy `[evidence]` sets for a door that runs commands anywhere (the CLI, the runner,
    /// stdio MCP), with `config`'s protected places kept out of a command's reach. The places
    /// inside a workspace are left writable: the kernel cannot protect a file in a folder and let
    /// the command create its neighbours, and a command that may not create `report.xml` at the
    /// workspace's root is no test command (see `docs/evidence.md`, threat model).
    pub fn of(config: &Config) -> Self {
        let places = config.protected_places();
        Self {
            commands: if config.evidence.commands { CommandPlaces::Anywhere } else { CommandPlaces::Nowhere },
            max_timeout: Duration::from_secs(config.evidence.max_timeout_seconds),
            max_output_bytes: usize::try_from(config.evidence.max_output_bytes).unwrap_or(usize::MAX),
            unwritable: places.unwritable,
            secret: places.secret,
            snapshots: Some(config.home.join("snapshots")),
            project: config.project.clone(),
        }
    }

    /// The same policy for `switchyard serve`: commands only in `[evidence] trusted_workspaces`.
    #[must_use]
    pub fn served(mut self, config: &Config) -> Self {
        if self.commands == CommandPlaces::Anywhere {
            self.commands = CommandPlaces::Trusted(config.evidence.trusted_workspaces.clone());
        }
        self
    }

    /// Why commands may not run in `workspace`, if they may not.
    pub fn refuses_commands_in(&self, workspace: Option<&Path>) -> Option<String> {
        let Some(workspace) = workspace else {
            return Some(
                "the run has no workspace to run commands in: start it with one (`--workspace`, or the `workspace` argument)"
                    .to_owned(),
            );
        };
        match &self.commands {
            CommandPlaces::Anywhere => None,
            CommandPlaces::Nowhere => Some(
                "`[evidence] commands = false` in switchyard.toml turns commands off: set it to true to run this workflow"
                    .to_owned(),
            ),
            CommandPlaces::Trusted(trusted) => {
                let real = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_owned());
                let inside = trusted
                    .iter()
                    .any(|place| std::fs::canonicalize(place).is_ok_and(|place| real.starts_with(place)));
                (!inside).then(|| {
                    format!(
                        "this server runs commands only in the workspaces it was told to trust, and {} is not one: add it to `[evidence] trusted_workspaces` in switchyard.toml",
                        workspace.display()
                    )
                })
            }
        }
    }

    /// Why a run of `workflow` in `workspace` could never pass its evidence, if it could not: a
    /// `command` check or a `run` step where commands may not run. Checked when a run starts.
    pub fn refuses_workflow(&self, workflow: &Workflow, workspace: Option<&Path>) -> Option<String> {
        let runs_commands = workflow.rules.values().any(|rules| {
            rules.run.is_some() || rules.evidence.iter().any(|check| matches!(check, EvidenceCheck::Command(_)))
        });
        if !runs_commands {
            return None;
        }
        self.refuses_commands_in(workspace)
            .map(|reason| format!("workflow `{}` runs commands to check its steps' work, but {reason}", workflow.id))
    }

    /// The workspace as it is now, for a step whose evidence compares with it.
    pub async fn snapshot(&self, workspace: Option<&Path>) -> Snapshot {
        let Some(workspace) = workspace else {
            return Snapshot::Unavailable { reason: NO_WORKSPACE.to_owned() };
        };
        match git::tree(self, workspace).await {
            Ok(tree) => Snapshot::Git { tree },
            Err(reason) => Snapshot::Unavailable { reason },
        }
    }

    /// What the runtime observes for each of `checks`, in their order.
    pub async fn gather(
        &self,
        checks: &[EvidenceCheck],
        workspace: Option<&Path>,
        snapshot: Option<&Snapshot>,
        artifacts: Option<&Value>,
    ) -> Vec<Observation> {
        let Some(workspace) = workspace else {
            let unavailable = Observation::Unavailable { reason: NO_WORKSPACE.to_owned() };
            return vec![unavailable; checks.len()];
        };
        // Each report as it is before any command runs, to tell whether a command wrote it.
        let mut reports = Vec::new();
        for check in checks {
            if let EvidenceCheck::TestReport { path, .. } = check {
                reports.push((path.clone(), junit::fingerprint(workspace, path).await));
            }
        }
        let mut gathering = Gathering { policy: self, workspace, snapshot, changes: None, last_command: None, reports };
        let mut observed = Vec::with_capacity(checks.len());
        for check in checks {
            observed.push(gathering.observe(check, artifacts).await);
        }
        observed
    }

    /// Runs `command` in `workspace`, confined and bounded, and says how it ended; why not, where
    /// it may not run.
    pub(crate) async fn run(&self, command: &CommandCheck, workspace: Option<&Path>) -> Observation {
        let workspace = match (workspace, self.refuses_commands_in(workspace)) {
            (Some(workspace), None) => workspace,
            (_, reason) => {
                return Observation::Unavailable { reason: reason.unwrap_or_else(|| NO_WORKSPACE.to_owned()) };
            }
        };
        let limits =
            Limits { timeout: command.time_limit().min(self.max_timeout), max_output_bytes: self.max_output_bytes };
        let spec = CommandSpec { argv: command.argv(), env: Vec::new() };
        let sandbox = self.sandbox(workspace);
        match switchyard_command::run(&spec, &sandbox, &limits, &CancellationToken::new()).await {
            Ok(outcome) => {
                let mut output = outcome.stdout.tail.clone();
                if !outcome.stderr.tail.is_empty() {
                    output.push_str(&outcome.stderr.tail);
                }
                Observation::Command(CommandRun {
                    exit_code: outcome.exit_code,
                    signal: outcome.signal,
                    timed_out: outcome.timed_out,
                    duration_ms: u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
                    output_tail: tail(&output, KEPT_TAIL_BYTES).to_owned(),
                    output_bytes: outcome.stdout.total_bytes + outcome.stderr.total_bytes,
                    stdout_sha256: outcome.stdout.sha256,
                    stderr_sha256: outcome.stderr.sha256,
                    confined: outcome.confined,
                })
            }
            Err(error) => Observation::Unavailable { reason: format!("the command did not start: {error}") },
        }
    }

    fn sandbox(&self, workspace: &Path) -> Sandbox {
        Sandbox {
            workspace: workspace.to_owned(),
            writable: Vec::new(),
            unwritable: self.unwritable.iter().filter(|place| !place.starts_with(workspace)).cloned().collect(),
            secret: self.secret.clone(),
            network: false,
        }
    }
}

impl Runtime {
    /// A snapshot of the workspace for `created`, when it is a node that hands out a step whose
    /// evidence compares with the workspace, and holds none yet (it arrived at the step, rather
    /// than retrying it).
    pub(crate) async fn snapshot_for(
        &self,
        loaded: &LoadedWorkflow,
        created: Option<&(NodeId, NodeState)>,
        workspace: Option<&Path>,
    ) -> Option<Snapshot> {
        let (_, state) = created?;
        let arrived = matches!(state.phase, Phase::Pending) && state.snapshot.is_none();
        if !arrived || !loaded.workflow.needs_snapshot(&state.step) {
            return None;
        }
        Some(self.evidence.snapshot(workspace).await)
    }
}

const NO_WORKSPACE: &str =
    "the run has no workspace to look at: start it with one (`--workspace`, or the `workspace` argument)";

/// One report's checks being gathered: what earlier checks found that later ones use.
struct Gathering<'a> {
    policy: &'a EvidencePolicy,
    workspace: &'a Path,
    snapshot: Option<&'a Snapshot>,
    /// Every path changed since the snapshot, read once for all the checks that compare.
    changes: Option<Result<Vec<String>, String>>,
    /// When the last `command` check's command started and ended: the window a test report must
    /// have been written in.
    last_command: Option<(SystemTime, SystemTime)>,
    /// Each test report's path, and the file as it was before any command ran.
    reports: Vec<(String, Option<junit::Fingerprint>)>,
}

impl Gathering<'_> {
    async fn observe(&mut self, check: &EvidenceCheck, artifacts: Option<&Value>) -> Observation {
        match check {
            EvidenceCheck::Files { paths } => files::unmatched(self.workspace, paths).await,
            EvidenceCheck::Changed { paths } => match self.changes().await {
                Ok(changes) => {
                    let changed: Vec<&String> = changes.iter().filter(|path| within_any(path, paths)).collect();
                    Observation::Changed {
                        count: changed.len() as u64,
                        changed: changed.into_iter().take(MAX_LISTED_PATHS).cloned().collect(),
                    }
                }
                Err(reason) => Observation::Unavailable { reason },
            },
            EvidenceCheck::Command(command) => {
                let started = SystemTime::now();
                let observation = self.policy.run(command, Some(self.workspace)).await;
                self.last_command = Some((started, SystemTime::now()));
                observation
            }
            EvidenceCheck::TestReport { path, .. } => {
                let before =
                    self.reports.iter().find(|(report, _)| report == path).and_then(|(_, before)| before.as_ref());
                junit::read(self.workspace, path, before, self.last_command).await
            }
            EvidenceCheck::ArtifactPaths { field, changed } => self.artifact_paths(field, *changed, artifacts).await,
        }
    }

    async fn changes(&mut self) -> Result<Vec<String>, String> {
        if self.changes.is_none() {
            let changes = match self.snapshot {
                Some(Snapshot::Git { tree }) => git::changed_since(self.policy, self.workspace, tree).await,
                Some(Snapshot::Unavailable { reason }) => {
                    Err(format!("switchyard could not record the workspace when the step was handed out: {reason}"))
                }
                None => Err("the step was handed out without a record of the workspace (by a switchyard before evidence, or a fork of such a node): fork the run from the step before it".to_owned()),
            };
            self.changes = Some(changes);
        }
        self.changes.clone().unwrap_or_else(|| Err("no changes were read".to_owned()))
    }

    async fn artifact_paths(&mut self, field: &str, changed: bool, artifacts: Option<&Value>) -> Observation {
        let listed: Vec<String> = match artifacts.and_then(|artifacts| artifacts.get(field)) {
            Some(Value::String(path)) => vec![path.clone()],
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                items.iter().filter_map(Value::as_str).map(str::to_owned).collect()
            }
            Some(_) => {
                let reason = format!(
                    "the artifacts' `{field}` is neither a path nor a list of paths: send it as a list of strings"
                );
                return Observation::Unavailable { reason };
            }
            None => Vec::new(),
        };
        let (mut missing, mut outside, mut unchanged) = (Vec::new(), Vec::new(), Vec::new());
        let mut present = Vec::new();
        for path in listed.iter().take(files::MAX_LISTED_ARTIFACTS) {
            match files::locate(self.workspace, path).await {
                files::Located::Inside(relative) => present.push((path, relative)),
                files::Located::Missing => missing.push(path.clone()),
                files::Located::Outside => outside.push(path.clone()),
            }
        }
        if changed && !present.is_empty() {
            match self.changes().await {
                Ok(changes) => {
                    for (path, relative) in present {
                        if !changes.iter().any(|changed| within(changed, &relative)) {
                            unchanged.push(path.clone());
                        }
                    }
                }
                Err(reason) => return Observation::Unavailable { reason },
            }
        }
        let cut = |mut paths: Vec<String>| {
            paths.truncate(MAX_LISTED_PATHS);
            paths
        };
        Observation::ArtifactPaths {
            listed: listed.len() as u64,
            missing: cut(missing),
            outside: cut(outside),
            unchanged: cut(unchanged),
        }
    }
}

/// Whether the workspace-relative `path` is `place` or lies below it (`.` and the empty place
/// hold everything).
fn within(path: &str, place: &str) -> bool {
    let place = place.trim_start_matches("./").trim_end_matches('/');
    place.is_empty()
        || place == "."
        || path == place
        || path.strip_prefix(place).is_some_and(|rest| rest.starts_with('/'))
}

/// Whether `path` lies within one of `places`; anywhere when there are none.
fn within_any(path: &str, places: &[String]) -> bool {
    places.is_empty() || places.iter().any(|place| within(path, place))
}

/// The last `max` bytes of `text`, from a character boundary.
fn tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_hold_what_lies_below_them() {
        assert!(within("src/lib.rs", "src/"));
        assert!(within("src/lib.rs", "./src"));
        assert!(within("src", "src"));
        assert!(!within("srcs/lib.rs", "src"));
        assert!(within("anything", "."));
        assert!(within_any("a/b", &[]));
        assert!(!within_any("a/b", &["b".to_owned()]));
    }

    #[test]
    fn a_tail_starts_on_a_character() {
        assert_eq!(tail("héllo", 4), "llo");
        assert_eq!(tail("abc", 10), "abc");
    }
}
