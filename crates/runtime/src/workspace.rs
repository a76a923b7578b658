//! Facts about the workspace a run starts in: its git branch and HEAD, when it is a repository.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{LazyLock, Mutex};

/// A workspace's branch and HEAD commit, `None` where there is none.
type Facts = (Option<String>, Option<String>);

/// The branch and HEAD commit of the git repository at `dir`, when there is one and git is
/// installed. Never fails: a workspace that is not a repository, or a repository without a commit
/// yet, simply has no git facts. A detached HEAD's branch is `HEAD`, as git names it.
///
/// Asking git starts a process, 1–3 ms and most of a `start_workflow`
/// (BENCHMARKS.md, "Advance (in process and over MCP)"), so each workspace's answer is remembered
/// for the process with the files it was read from (the repository's `HEAD`, the branch's ref,
/// `packed-refs`, and where git looked for a repository on the way up), and given again while
/// none of them has changed: a commit, a checkout or a new repository changes one.
/// git runs on a blocking thread, so the caller's async thread keeps serving others meanwhile.
pub async fn git_facts(dir: &Path) -> Facts {
    if let Some(facts) = remembered(dir) {
        return facts;
    }
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || {
        let (facts, witnesses) = ask_git(&dir);
        if let Some(witnesses) = witnesses {
            remember(dir, facts.clone(), witnesses);
        }
        facts
    })
    .await
    .unwrap_or_default()
}

/// How many workspaces' facts a process remembers before it starts over.
const REMEMBERED_WORKSPACES: usize = 64;

/// An answer of git and the files it was read from, as they were when it was read.
struct Remembered {
    facts: Facts,
    witnesses: Vec<Witness>,
}

static REMEMBERED: LazyLock<Mutex<HashMap<PathBuf, Remembered>>> = LazyLock::new(Default::default);

fn remembered(dir: &Path) -> Option<Facts> {
    let remembered = REMEMBERED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let entry = remembered.get(dir)?;
    entry.witnesses.iter().all(Witness::unchanged).then(|| entry.facts.clone())
}

fn remember(dir: PathBuf, facts: Facts, witnesses: Vec<Witness>) {
    let mut remembered = REMEMBERED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if remembered.len() >= REMEMBERED_WORKSPACES && !remembered.contains_key(&dir) {
        remembered.clear();
    }
    remembered.insert(dir, Remembered { facts, witnesses });
}

/// A file git's answer depended on, and its identity then (`None`: it did not exist). A file git
/// rewrites is replaced by a rename, so its inode changes even within one timestamp tick.
struct Witness {
    path: PathBuf,
    seen: Option<Identity>,
}

type Identity = (u64, u64, i64, i64, u64);

impl Witness {
    fn now(path: PathBuf) -> Self {
        let seen = identity(&path);
        Self { path, seen }
    }

    fn unchanged(&self) -> bool {
        identity(&self.path) == self.seen
    }
}

fn identity(path: &Path) -> Option<Identity> {
    let metadata = std::fs::metadata(path).ok()?;
    Some((metadata.dev(), metadata.ino(), metadata.mtime(), metadata.mtime_nsec(), metadata.len()))
}

/// What, in `dir` or above it, would make git find a repository there: a `.git` (directory or
/// file), or the makings of a bare repository (`HEAD`, `objects`).
fn discovery_witnesses(ancestors: impl Iterator<Item = PathBuf>) -> Vec<Witness> {
    ancestors.flat_map(|ancestor| [".git", "HEAD", "objects"].map(|name| Witness::now(ancestor.join(name)))).collect()
}

/// git's answer for `dir`, and the files it depends on when the answer can be remembered.
fn ask_git(dir: &Path) -> (Facts, Option<Vec<Witness>>) {
    // git walks up the physical path, so the witnesses do too. Taken before git runs, so a change
    // while it runs shows as a change afterwards.
    let physical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    let outside = discovery_witnesses(physical.ancestors().map(Path::to_owned));
    let answer = match rev_parse(dir) {
        RevParse::Answered(answer) => answer,
        // Not a repository, remembered only where git had nothing to find.
        RevParse::Refused if outside.iter().all(|witness| witness.seen.is_none()) => {
            return ((None, None), Some(outside));
        }
        // A repository without a commit yet, a bare one, one git refuses to read, or a git that
        // does not know `--path-format`: asked the plain way, and again next time.
        RevParse::Refused | RevParse::Unreadable => return (ask_git_plainly(dir), None),
    };
    let below_top = physical.ancestors().take_while(|ancestor| *ancestor != answer.top).map(Path::to_owned);
    let mut witnesses = discovery_witnesses(below_top);
    witnesses.push(Witness::now(answer.top.join(".git")));
    witnesses.push(Witness::now(answer.git_dir.join("HEAD")));
    witnesses.push(Witness::now(answer.common_dir.join("packed-refs")));
    if answer.full_name.starts_with("refs/") {
        witnesses.push(Witness::now(answer.common_dir.join(&answer.full_name)));
    }
    // The witnesses were taken after the answer: a commit in between would be remembered as
    // unchanged. Asked again, an answer that still agrees is at least as old as the witnesses.
    let agrees = matches!(rev_parse(dir), RevParse::Answered(again) if again == answer);
    // The reftable format keeps refs in files this does not know how to watch.
    let reftable = answer.common_dir.join("reftable").exists();
    (answer.facts(), (agrees && !reftable).then_some(witnesses))
}

/// What `git rev-parse` said about a work tree.
#[derive(PartialEq)]
struct Answer {
    git_dir: PathBuf,
    common_dir: PathBuf,
    top: PathBuf,
    head: String,
    full_name: String,
    branch: String,
}

impl Answer {
    fn facts(&self) -> Facts {
        (Some(self.branch.clone()), Some(self.head.clone()))
    }
}

enum RevParse {
    Answered(Answer),
    /// git said no: not a repository, no commit yet, or not one it will read.
    Refused,
    /// git did not run, or answered in a way this does not read (before 2.31, without
    /// `--path-format`).
    Unreadable,
}

fn rev_parse(dir: &Path) -> RevParse {
    // `--abbrev-ref` and `--symbolic-full-name` apply to the revisions after them: the lines are
    // the git directory, the common directory, the top of the work tree, the commit, the branch's
    // full ref name and the branch.
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel"])
        .args(["HEAD", "--symbolic-full-name", "HEAD", "--abbrev-ref", "HEAD"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(output) = output else { return RevParse::Unreadable };
    if !output.status.success() {
        return RevParse::Refused;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let [git_dir, common_dir, top, head, full_name, branch] = lines[..] else { return RevParse::Unreadable };
    let answer = Answer {
        git_dir: PathBuf::from(git_dir),
        common_dir: PathBuf::from(common_dir),
        top: PathBuf::from(top),
        head: head.to_owned(),
        full_name: full_name.to_owned(),
        branch: branch.to_owned(),
    };
    let absolute = answer.git_dir.is_absolute() && answer.common_dir.is_absolute() && answer.top.is_absolute();
    if !absolute || answer.head.is_empty() {
        return RevParse::Unreadable;
    }
    RevParse::Answered(answer)
}

/// git's answer for `dir` by the plainest question, where the longer one was refused or not understood.
fn ask_git_plainly(dir: &Path) -> Facts {
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

    #[tokio::test]
    async fn a_workspace_s_facts_are_remembered_until_its_repository_changes() {
        let folder = tempfile::tempdir().unwrap();
        let workspace = folder.path().join("service");
        std::fs::create_dir(&workspace).unwrap();
        assert_eq!(git_facts(&workspace).await, (None, None));
        assert_eq!(remembered(&workspace), Some((None, None)), "no repository anywhere above: remembered");

        git(folder.path(), &["init", "--quiet", "--initial-branch", "main"]);
        assert_eq!(remembered(&workspace), None, "a repository above the workspace");
        git(folder.path(), &["commit", "--quiet", "--allow-empty", "-m", "first"]);
        let first = git(folder.path(), &["rev-parse", "HEAD"]);
        assert_eq!(git_facts(&workspace).await, (Some("main".to_owned()), Some(first.clone())));
        assert_eq!(remembered(&workspace), Some((Some("main".to_owned()), Some(first))), "nothing changed");

        git(folder.path(), &["commit", "--quiet", "--allow-empty", "-m", "second"]);
        let second = git(folder.path(), &["rev-parse", "HEAD"]);
        assert_eq!(git_facts(&workspace).await, (Some("main".to_owned()), Some(second.clone())), "a commit");

        git(folder.path(), &["pack-refs", "--all"]);
        git(folder.path(), &["commit", "--quiet", "--allow-empty", "-m", "third"]);
        let third = git(folder.path(), &["rev-parse", "HEAD"]);
        assert_eq!(git_facts(&workspace).await, (Some("main".to_owned()), Some(third.clone())), "packed refs");

        git(folder.path(), &["checkout", "--quiet", "-b", "feature/okapi"]);
        assert_eq!(git_facts(&workspace).await, (Some("feature/okapi".to_owned()), Some(third)), "a checkout");

        git(&workspace, &["init", "--quiet", "--initial-branch", "inner"]);
        git(&workspace, &["commit", "--quiet", "--allow-empty", "-m", "inner"]);
        let inner = git(&workspace, &["rev-parse", "HEAD"]);
        assert_eq!(git_facts(&workspace).await, (Some("inner".to_owned()), Some(inner)), "a repository nearer");
    }
}
