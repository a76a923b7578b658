//! What the integration tests of several crates share: copying and zipping fixture folders,
//! finding the fixtures (`testdata/`) and the shared corpora (`../shared/testdata/`), reading
//! bundles from them, git repositories to start sessions in, a fake model server
//! ([`fake_llm`]), and test homes on the store backend the run chose ([`test_home`]). A dev-dependency only; every helper panics on an IO failure,
//! naming the path, as a test would.

pub mod fake_llm;
pub mod test_home;

pub use test_home::{Backend, TestDatabase, TestHome, server_url};

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use zip::ZipWriter;
use zip::write::SimpleFileOptions;

/// Runs git in `folder` with a throwaway identity; returns its trimmed standard output.
pub fn git(folder: &Path, arguments: &[&str]) -> String {
    let output = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(arguments)
        .current_dir(folder)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {arguments:?} in {}: {}",
        folder.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("git writes UTF-8").trim().to_owned()
}

/// Makes `folder` a git repository on `branch`, with one empty commit so it has a HEAD.
pub fn git_repository(folder: &Path, branch: &str) {
    git(folder, &["init", "--quiet", "--initial-branch", branch]);
    git(folder, &["commit", "--quiet", "--allow-empty", "-m", "first"]);
}

/// The repository's own fixtures, `testdata/`: the CrewAgent packages the project wrote.
pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// Names the folder holding the shared corpora, overriding where [`corpora`] looks.
pub const CORPORA_VARIABLE: &str = "SWITCHYARD_CORPORA";

/// The corpora of workflows written by others, which the repository does not hold: the WorkRail
/// workflows (`workrail/`) and BMad Method releases (`bmad/`). They are in `shared/testdata/`
/// beside the repository for every developer and CI run (beside a folder of worktrees too: the
/// nearest folder above the workspace holding `shared/testdata` is taken), or where
/// `SWITCHYARD_CORPORA` says.
///
/// # Panics
/// When no such folder is found, saying where it looked and how to provide it: a test that
/// cannot read its corpus fails rather than passing without it.
pub fn corpora() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    find_corpora(std::env::var_os(CORPORA_VARIABLE).map(PathBuf::from), &workspace)
        .unwrap_or_else(|message| panic!("{message}"))
}

/// The folder `chosen` names, else the nearest `shared/testdata` above `workspace`, when it holds
/// both corpora; else what to tell the developer.
fn find_corpora(chosen: Option<PathBuf>, workspace: &Path) -> Result<PathBuf, String> {
    let candidates: Vec<PathBuf> = match chosen {
        Some(folder) => vec![folder],
        None => workspace.ancestors().skip(1).map(|folder| folder.join("shared/testdata")).collect(),
    };
    let holds_corpora = |folder: &&PathBuf| folder.join("workrail").is_dir() && folder.join("bmad").is_dir();
    match candidates.iter().find(holds_corpora) {
        Some(folder) => fs::canonicalize(folder).map_err(|error| format!("cannot read {}: {error}", folder.display())),
        None => {
            let looked: Vec<String> = candidates.iter().map(|folder| format!("  {}", folder.display())).collect();
            Err(format!(
                "the shared test corpora (`workrail/` and `bmad/`) are not in any of:\n{}\n\
                 put the `shared/` folder beside the repository, or set {CORPORA_VARIABLE} to the folder holding them",
                looked.join("\n")
            ))
        }
    }
}

/// The `switchyard` binary a benchmark runs: `SWITCHYARD_BIN` when set (to compare two builds),
/// else the one beside the bench in `target/<profile>/`, which must have been built.
pub fn switchyard_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("SWITCHYARD_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the bench knows where it runs");
    let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>/deps/");
    let candidate = profile_dir.join("switchyard");
    assert!(
        candidate.is_file(),
        "{} is missing: run `cargo build --release -p switchyard` first, or set SWITCHYARD_BIN",
        candidate.display()
    );
    candidate
}

/// Copies the folder `from` to `to`, creating `to` and every folder below it.
pub fn copy_folder(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|error| panic!("cannot create {}: {error}", to.display()));
    for path in entries(from) {
        let target = to.join(path.file_name().expect("a folder entry has a name"));
        if path.is_dir() {
            copy_folder(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap_or_else(|error| panic!("cannot copy {}: {error}", path.display()));
        }
    }
}

/// The text files under `folder` keyed by their `/`-separated path relative to it, as a bundle
/// holds them; files that are not UTF-8 are left out.
pub fn text_files(folder: &Path) -> BTreeMap<String, String> {
    files_under(folder)
        .into_iter()
        .filter_map(|path| Some((relative(folder, &path), fs::read_to_string(&path).ok()?)))
        .collect()
}

/// Zips `folder` into the archive `into`, each entry at its path relative to the folder.
pub fn zip_folder(folder: &Path, into: &Path) {
    zip_folder_under(folder, into, "");
}

/// Zips `folder` into the archive `into` with every entry's path starting with `root`
/// (`pkg/` puts it all in one folder).
pub fn zip_folder_under(folder: &Path, into: &Path, root: &str) {
    let archive = fs::File::create(into).unwrap_or_else(|error| panic!("cannot create {}: {error}", into.display()));
    let mut writer = ZipWriter::new(archive);
    for path in files_under(folder) {
        let bytes = fs::read(&path).unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
        writer.start_file(format!("{root}{}", relative(folder, &path)), SimpleFileOptions::default()).unwrap();
        writer.write_all(&bytes).unwrap();
    }
    writer.finish().unwrap();
}

/// Every BMad Method sample in the corpora's `bmad/`: the folders holding `workflow.yaml` or
/// `workflow.md`, except the step-file authoring templates (a template, not a workflow), sorted.
pub fn method_bundles() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![corpora().join("bmad")];
    while let Some(folder) = pending.pop() {
        let mut is_bundle = false;
        for path in entries(&folder) {
            if path.is_dir() {
                pending.push(path);
            } else if path.ends_with("workflow.yaml") || path.ends_with("workflow.md") {
                is_bundle = true;
            }
        }
        if is_bundle && !folder.ends_with("docs/workflows/templates") {
            found.push(folder);
        }
    }
    found.sort();
    found
}

/// The files under `folder`, at any depth.
fn files_under(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(current) = pending.pop() {
        for path in entries(&current) {
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

fn entries(folder: &Path) -> Vec<PathBuf> {
    let read = fs::read_dir(folder).unwrap_or_else(|error| panic!("cannot list {}: {error}", folder.display()));
    read.map(|entry| entry.unwrap_or_else(|error| panic!("cannot list {}: {error}", folder.display())).path()).collect()
}

fn relative(folder: &Path, path: &Path) -> String {
    path.strip_prefix(folder).expect("a file under the folder").to_string_lossy().replace('\\', "/")
}

/// `wr.assessment` artifacts rating every assessment the workflow defines, each naming its
/// `assessmentId`: every dimension at its first level that no consequence of the workflow
/// triggers on or, with `trigger`, at that level where the dimension declares it.
pub fn assessments(document: &Value, trigger: Option<&str>) -> Vec<Value> {
    let mut consequence_levels = Vec::new();
    let mut steps: Vec<&Value> = document["steps"].as_array().into_iter().flatten().collect();
    while let Some(step) = steps.pop() {
        steps.extend(step["body"].as_array().into_iter().flatten());
        for consequence in step["assessmentConsequences"].as_array().into_iter().flatten() {
            consequence_levels.extend(consequence["when"]["anyEqualsLevel"].as_str());
        }
    }
    let mut artifacts = Vec::new();
    for assessment in document["assessments"].as_array().into_iter().flatten() {
        let mut dimensions = Map::new();
        for dimension in assessment["dimensions"].as_array().into_iter().flatten() {
            let levels: Vec<&str> =
                dimension["levels"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let level = match trigger {
                Some(trigger) if levels.contains(&trigger) => trigger,
                _ => levels.iter().copied().find(|level| !consequence_levels.contains(level)).unwrap_or_default(),
            };
            dimensions.insert(dimension["id"].as_str().unwrap().to_owned(), json!(level));
        }
        artifacts.push(json!({"kind": "wr.assessment", "assessmentId": assessment["id"], "dimensions": dimensions, "summary": "assessed"}));
    }
    artifacts
}

/// A workflow whose first step is an audit (`audit: true`) and whose second takes a status
/// report, for the audit gate's tests.
pub const AUDITED_WORKFLOW: &str = "id: audited
steps:
  - id: audit
    prompt: Audit the change.
    notes: optional
    audit: true
    next: work
  - id: work
    prompt: Work.
    notes: optional
    status_report: true
    next: done
  - id: done
    prompt: Done.
    notes: optional
";

/// One audit finding: `status` (`pass`, `blocked`) at `confidence`, `validated` or not, with the
/// extended fields present.
pub fn audit_finding(status: &str, confidence: f64, validated: bool) -> Value {
    json!({
        "status": status,
        "summary": format!("{status} at {confidence}"),
        "confidence": confidence,
        "validated": validated,
        "skills_used": [],
        "skills_missing": [],
        "model_override_reason": null
    })
}

#[cfg(test)]
mod tests {
    use super::find_corpora;

    #[test]
    fn missing_corpora_are_reported_with_where_they_were_looked_for_and_what_to_do() {
        let empty = std::env::temp_dir().join("switchyard-no-corpora-here");
        let message = find_corpora(Some(empty.clone()), &empty).unwrap_err();
        assert!(message.contains(&empty.display().to_string()), "{message}");
        assert!(message.contains("SWITCHYARD_CORPORA") && message.contains("`shared/`"), "{message}");
    }
}
