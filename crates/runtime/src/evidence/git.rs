//! The workspace's content as git sees it: a tree written from a private copy of the index, so
//! tracked files and the untracked ones git does not ignore are recorded as they are, committed
//! or not, without touching the user's index, branch or stash. Only the workspace's folder is
//! read again (a workspace inside a larger repository costs what it holds). The tree's objects go
//! to the repository's object store, unreferenced (git's own `gc` prunes them after two weeks); a
//! workspace in no repository gets a private one under switchyard's home, never a `.git` of its
//! own.
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

/// The most files (not ignored) a workspace outside any repository may hold for a private one.
const MAX_PRIVATE_FILES: usize = 20_000;

/// Adds the workspace's content (its folder only) to a copy of the index (so git's stat cache
/// spares it reading unchanged files). `$1` names a private repository for a workspace in none (empty otherwise):
/// it is created on first use, its file count bounded, and its index kept for the next time.
/// `core.fsmonitor` is off: it names a program the repository's configuration could point anywhere.
const ADD_ALL: &str = r#"set -e
repo="$1"
g() { if [ -n "$repo" ]; then git --git-dir="$repo" --work-tree=. "$@"; else git "$@"; fi; }
if [ -n "$repo" ]; then
  [ -d "$repo" ] || git init -q --bare "$repo"
  files="$(g ls-files --others --exclude-standard | head -n "$3" | wc -l)"
  if [ "$files" -ge "$3" ]; then echo "too many files" >&2; exit 64; fi
fi
index="$(g rev-parse --git-path index)"
if [ -f "$index" ]; then cp "$index" "$TMPDIR/index"; fi
export GIT_INDEX_FILE="$TMPDIR/index"
g -c core.fsmonitor=false add --all -- .
if [ -n "$repo" ]; then cp "$TMPDIR/index" "$index.next" && mv "$index.next" "$index"; fi
"#;

/// Then prints the id of a tree of what was added.
const WRITE_TREE: &str = "g write-tree\n";

/// Then prints what differs between the tree `$2` and what was added, path by path, relative to
/// the workspace, each ended by a NUL.
const CHANGED_SINCE: &str = r#"now="$(g write-tree)"
g diff-tree -r -z --name-only --no-renames --relative "$2" "$now"
"#;

/// The id of a tree holding the workspace's content now.
pub(super) async fn tree(policy: &EvidencePolicy, workspace: &Path) -> Result<String, String> {
    let printed = git(policy, workspace, WRITE_TREE, "").await?;
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
    let printed = git(policy, workspace, CHANGED_SINCE, tree).await?;
    Ok(printed.split('\0').filter(|path| !path.is_empty()).map(str::to_owned).collect())
}

fn is_object_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// Adds the workspace's content, then runs `then` (with `argument` as `$2`), in `workspace`,
/// confined, and returns what it printed; a failure says what git said.
async fn git(policy: &EvidencePolicy, workspace: &Path, then: &str, argument: &str) -> Result<String, String> {
    let repository = repository(policy, workspace).await?;
    let mut sandbox = policy.sandbox(workspace);
    let private = match &repository {
        Repository::Own(folder) => {
            sandbox.writable.push(folder.clone());
            String::new()
        }
        Repository::Private(folder) => {
            let parent = folder.parent().unwrap_or(folder);
            std::fs::create_dir_all(parent)
                .map_err(|error| format!("the folder for private snapshots cannot be made: {error}"))?;
            sandbox.writable.push(parent.to_owned());
            folder.display().to_string()
        }
    };
    let script = format!("{ADD_ALL}{then}");
    let argv =
        ["sh", "-c", &script, "sh", &private, argument, &MAX_PRIVATE_FILES.to_string()].map(str::to_owned).to_vec();
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
    if outcome.exit_code == Some(64) {
        return Err(format!(
            "the workspace is in no git repository and holds more than {MAX_PRIVATE_FILES} files git would not ignore: run `git init` in it, and list what is no work of a step (dependencies, build output) in .gitignore"
        ));
    }
    if !outcome.succeeded() {
        return Err(format!("git failed (exit code {:?}): {}", outcome.exit_code, outcome.stderr.tail.trim()));
    }
    Ok(outcome.stdout.tail)
}

/// Where the workspace's content is recorded: its own repository, or, for a workspace in none,
/// a private one under switchyard's home (`snapshots/<the workspace's path, hashed>.git`).
enum Repository {
    Own(PathBuf),
    Private(PathBuf),
}

async fn repository(policy: &EvidencePolicy, workspace: &Path) -> Result<Repository, String> {
    match repository_folder(policy, workspace).await? {
        Some(folder) => Ok(Repository::Own(folder)),
        None => {
            let snapshots = policy.snapshots.as_ref().ok_or_else(|| NOT_A_REPOSITORY.to_owned())?;
            let real = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_owned());
            let name = switchyard_core::hash::sha256_hex(real.as_os_str().as_encoded_bytes());
            Ok(Repository::Private(snapshots.join(format!("{}.git", &name[..32]))))
        }
    }
}

/// The repository's own folder (where its objects are written), absolute; git is asked, with
/// nothing writable, since the workspace may be a folder inside the repository, or a worktree.
async fn repository_folder(policy: &EvidencePolicy, workspace: &Path) -> Result<Option<PathBuf>, String> {
    let argv = ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"].map(str::to_owned).to_vec();
    let sandbox = policy.sandbox(workspace);
    let limits = Limits { timeout: GIT_TIMEOUT, max_output_bytes: 64 << 10 };
    let outcome =
        switchyard_command::run(&CommandSpec { argv, env: Vec::new() }, &sandbox, &limits, &CancellationToken::new())
            .await
            .map_err(|error| format!("git could not be run: {error}"))?;
    let said = outcome.stderr.tail.trim();
    if said.contains("not a git repository") {
        return Ok(None);
    }
    if !outcome.succeeded() {
        return Err(format!("git could not find the repository (exit code {:?}): {said}", outcome.exit_code));
    }
    Ok(Some(PathBuf::from(outcome.stdout.tail.trim())))
}
