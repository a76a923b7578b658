//! Facts about the workspace a run starts in: its git branch and HEAD, when it is a repository.

use std::path::Path;
use std::process::{Command, Stdio};

/// The branch and HEAD commit of the git repository at `dir`, when there is one and git is
/// installed. Never fails: a workspace that is not a repository simply has no git facts.
pub fn git_facts(dir: &Path) -> (Option<String>, Option<String>) {
    let ask = |args: &[&str]| {
        let output = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8(output.stdout).ok()?.trim().to_owned();
        (output.status.success() && !text.is_empty()).then_some(text)
    };
    (ask(&["rev-parse", "--abbrev-ref", "HEAD"]), ask(&["rev-parse", "HEAD"]))
}
