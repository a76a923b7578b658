//! Facts about the workspace a run starts in: its git branch and HEAD, when it is a repository.

use std::path::Path;
use std::process::{Command, Stdio};

/// The branch and HEAD commit of the git repository at `dir`, when there is one and git is
/// installed. Never fails: a workspace that is not a repository, or a repository without a commit
/// yet, simply has no git facts. A detached HEAD's branch is `HEAD`, as git names it.
///
/// One `git rev-parse` names both (a process start costs a millisecond or two), on a blocking
/// thread, so the caller's async thread keeps serving others meanwhile.
pub async fn git_facts(dir: &Path) -> (Option<String>, Option<String>) {
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || ask_git(&dir)).await.unwrap_or_default()
}

fn ask_git(dir: &Path) -> (Option<String>, Option<String>) {
    // `--abbrev-ref` applies to the revisions after it: the first line is the commit, the second
    // the branch.
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "HEAD", "--abbrev-ref", "HEAD"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(output) = output else { return (None, None) };
    if !output.status.success() {
        return (None, None);
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty()).map(str::to_owned);
    let head = lines.next();
    let branch = lines.next();
    (branch, head)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, arguments: &[&str]) -> String {
        let output = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=switchyard", "-c", "user.email=test@switchyard.invalid"])
            .args(arguments)
            .output()
            .expect("git runs");
        assert!(output.status.success(), "git {arguments:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    #[tokio::test]
    async fn a_repository_gives_its_branch_and_head_and_anything_else_gives_none() {
        let folder = tempfile::tempdir().unwrap();
        assert_eq!(git_facts(folder.path()).await, (None, None), "not a repository");
        git(folder.path(), &["init", "--quiet", "--initial-branch", "feature/okapi"]);
        assert_eq!(git_facts(folder.path()).await, (None, None), "no commit yet");
        git(folder.path(), &["commit", "--quiet", "--allow-empty", "-m", "first"]);
        let head = git(folder.path(), &["rev-parse", "HEAD"]);
        assert_eq!(git_facts(folder.path()).await, (Some("feature/okapi".to_owned()), Some(head.clone())));
        git(folder.path(), &["checkout", "--quiet", "--detach"]);
        assert_eq!(git_facts(folder.path()).await, (Some("HEAD".to_owned()), Some(head)));
    }
}
