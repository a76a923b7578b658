//! Starting a command. Everything that blocks (finding the program, making its temporary folder,
//! walking the folders its rules are built from) and the confinement itself happen on a thread
//! started for this one command, which confines itself, starts the program and ends: Landlock
//! confines a thread and what it starts later, so no thread of the runner's is ever confined.
//!
//! The program is started with `std::process::Command` on that thread, not tokio's: tokio's spawn
//! would register the child with the runtime's process driver from a confined thread, and nothing
//! the runtime does lazily should ever happen there. The pipes are handed to tokio afterwards, on
//! the caller's side, and the exit is watched by [`crate::supervise`].

use std::io;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Stdio;

use tempfile::TempDir;

use crate::supervise::Process;
use crate::{CommandSpec, Confinement, Error, Sandbox, environment, program};

/// A program started in its own process group, with its private temporary folder.
#[derive(Debug)]
pub(crate) struct Started {
    pub(crate) process: Process,
    pub(crate) temporary: TempDir,
    pub(crate) confined: bool,
}

/// Starts `spec` in `sandbox` from a thread of its own, and waits for that thread without
/// blocking the caller's runtime.
pub(crate) async fn start(spec: &CommandSpec, sandbox: &Sandbox) -> Result<Started, Error> {
    let program = spec.argv.first().cloned().unwrap_or_default();
    let (spec, sandbox) = (spec.clone(), sandbox.clone());
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("switchyard-command-start".to_owned())
        .spawn(move || {
            // A command nobody receives (its caller went away) is dropped, here or with the
            // channel, and dropping it kills it; this thread may: they share their Landlock domain.
            let _ = sender.send(start_here(&spec, &sandbox));
        })
        .map_err(|source| Error::Spawn { program: program.clone(), source })?;
    receiver.await.unwrap_or_else(|_| {
        Err(Error::Spawn { program, source: io::Error::other("the thread starting it stopped without an answer") })
    })
}

/// The starting thread's work; when it returns `Ok`, this thread is confined for good.
fn start_here(spec: &CommandSpec, sandbox: &Sandbox) -> Result<Started, Error> {
    let Some(name) = spec.argv.first() else { return Err(Error::Empty) };
    let workspace = resolve_workspace(sandbox)?;
    let program = program::resolve(name, std::env::var_os("PATH").as_deref(), &workspace)?;
    let temporary = tempfile::Builder::new()
        .prefix("switchyard-command-")
        .tempdir()
        .map_err(|source| Error::TemporaryFolder { source })?;
    let environment = environment::scrubbed(&spec.env, temporary.path(), |name| std::env::var_os(name));
    let confined = match crate::confinement() {
        #[cfg(target_os = "linux")]
        Confinement::Landlock { .. } => crate::confine::restrict_current_thread(sandbox, &workspace, temporary.path())?,
        // Only Linux has Landlock, so only Linux probes it as available.
        #[cfg(not(target_os = "linux"))]
        Confinement::Landlock { .. } => false,
        Confinement::Unavailable { .. } => false,
    };
    let child = std::process::Command::new(&program)
        .arg0(name)
        .args(&spec.argv[1..])
        .env_clear()
        .envs(&environment)
        .current_dir(&workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so that a timeout kills what it started too.
        .process_group(0)
        .spawn()
        .map_err(|source| Error::Spawn { program: name.clone(), source })?;
    Ok(Started { process: Process::new(child), temporary, confined })
}

/// The workspace, resolved; it must be an existing folder.
fn resolve_workspace(sandbox: &Sandbox) -> Result<PathBuf, Error> {
    let resolved = sandbox.workspace.canonicalize().and_then(|resolved| {
        if resolved.is_dir() { Ok(resolved) } else { Err(io::Error::new(io::ErrorKind::NotADirectory, "not a folder")) }
    });
    resolved.map_err(|source| Error::Workspace { path: sandbox.workspace.clone(), source })
}
