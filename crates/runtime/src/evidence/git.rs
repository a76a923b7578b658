//! The workspace's content as git sees it: a tree written from a private copy of the index, so
//! tracked files and the untracked ones git does not ignore are recorded as they are, committed
//! or not, without touching the user's index, branch or stash. The tree's objects go to the
//! repository's object store, unreferenced (git's own `gc` prunes them after two weeks).
//!
//! git runs under the same confinement as an evidence command, since it runs what the
//! repository's configuration names (a clean filter, say) and the repository is the agent's to
//! write: it may write only the workspace and the repository's folder, and reads no secret.

use std::path::{Path, PathBuf};
use std::time::Duration;

use switchyard_command::{CommandSpec, Limits};
use tokio_util::sync::CancellationToken;

use super::EvidencePolicy;

/// How long git may take to record or compare the workspace.
const GIT_TIMEOUT: Duration = Duration::from_secs(120);

/// The most bytes of changed paths read back; a larger change is refused as too large to judge.
const MAX_CHANGES_BYTES: usize = 16 << 20;

const NOT_A_REPOSITORY: &str = "the workspace is not in a git repository, which comparing it with the step's start needs: run `git init` in it before the step is handed out";

/// Writes the workspace's content as a tree, from a copy of the index (so git's stat cache spares
/// it reading unchanged files), and prints the tree's id. `core.fsmonitor` is off: it names a
/// program the repository's configuration could point anywhere.
const WRITE_TREE: &str = r#"set -e
index="$(git rev-parse --git-path index)"
if [ -f "$index" ]; then cp "$index" "$TMPDIR/index"; fi
export GIT_INDEX_FILE="$TMPDIR/index"
git -c core.fsmonitor=false add --all
git write-tree
"#;

/// What differs between the tree `$1` and the workspace now, path by path, relative to the
/// workspace, each ended by a NUL.
const CHANGED_SINCE: &str = r#"set -e
index="$(git rev-parse --git-path index)"
if [ -f "$index" ]; then cp "$index" "$TMPDIR/index"; fi
export GIT_INDEX_FILE="$TMPDIR/index"
git -c core.fsmonitor=false add --all
now="$(git write-tree)"
git diff-tree -r -z --name-only --no-renames --relative "$1" "$now"
"#;

/// The id of a tree holding the workspace's content now.
pub(super) async fn tree(policy: &EvidencePolicy, workspace: &Path) -> Result<String, String> {
    let printed = git(policy, workspace, WRITE_TREE, &[]).await?;
    let tree = printed.trim();
    if is_object_id(tree) { Ok(tree.to_owned()) } else { Err(format!("git printed `{tree}` for the tree's id")) }
}

/// The workspace-relative paths whose content differs between `tree` and the workspace now.
pub(super) async fn changed_since(
    policy: &EvidencePolicy,
    workspace: &Path,
    tree: &str,
) -> Result<Vec<String>, String> {
    if !is_object_id(tree) {
        return Err(format!("the recorded snapshot `{tree}` is no git object id"));
    }
    let printed = git(policy, workspace, CHANGED_SINCE, &[tree]).await?;
    Ok(printed.split('\0').filter(|path| !path.is_empty()).map(str::to_owned).collect())
}

fn is_object_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// Runs one of the scripts above in `workspace` with `arguments`, confined, and returns what it
/// printed; a failure says what git said.
async fn git(policy: &EvidencePolicy, workspace: &Path, script: &str, arguments: &[&str]) -> Result<String, String> {
    let mut sandbox = policy.sandbox(workspace);
    sandbox.writable.push(repository_folder(policy, workspace).await?);
    let mut argv = vec!["sh".to_owned(), "-c".to_owned(), script.to_owned(), "sh".to_owned()];
    argv.extend(arguments.iter().map(|argument| (*argument).to_owned()));
    let limits = Limits { timeout: GIT_TIMEOUT, max_output_bytes: MAX_CHANGES_BYTES };
    let outcome =
        switchyard_command::run(&CommandSpec { argv, env: Vec::new() }, &sandbox, &limits, &CancellationToken::new())
            .await
            .map_err(|error| format!("git could not be run: {error}"))?;
    if outcome.timed_out {
        return Err(format!(
            "git took longer than {} s to read the workspace: add what it should not read (build output, dependencies) to .gitignore",
            GIT_TIMEOUT.as_secs()
        ));
    }
    if outcome.stdout.truncated {
        return Err(format!("more than {} MiB of paths changed: too many to judge", MAX_CHANGES_BYTES >> 20));
    }
    if !outcome.succeeded() {
        let said = outcome.stderr.tail.trim();
        return Err(if said.contains("not a git repository") {
            NOT_A_REPOSITORY.to_owned()
        } else {
            format!("git failed (exit code {:?}): {said}", outcome.exit_code)
        });
    }
    Ok(outcome.stdout.tail)
}

/// The repository's own folder (where its objects are written), absolute; git is asked, with
/// nothing writable, since the workspace may be a folder inside the repository, or a worktree.
async fn repository_folder(policy: &EvidencePolicy, workspace: &Path) -> Result<PathBuf, String> {
    let argv = ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"].map(str::to_owned).to_vec();
    let sandbox = policy.sandbox(workspace);
    let limits = Limits { timeout: GIT_TIMEOUT, max_output_bytes: 64 << 10 };
    let outcome =
        switchyard_command::run(&CommandSpec { argv, env: Vec::new() }, &sandbox, &limits, &CancellationToken::new())
            .await
            .map_err(|error| format!("git could not be run: {error}"))?;
    let said = outcome.stderr.tail.trim();
    if said.contains("not a git repository") {
        return Err(NOT_A_REPOSITORY.to_owned());
    }
    if !outcome.succeeded() {
        return Err(format!("git could not find the repository (exit code {:?}): {said}", outcome.exit_code));
    }
    Ok(PathBuf::from(outcome.stdout.tail.trim()))
}
