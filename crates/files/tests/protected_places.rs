//! Switchyard's own places through the file door: configuration, workflow folders, keys and the
//! store are never written (keys and store never read), whatever the mounts say, and what an
//! agent writes never widens what a later host allows.

mod common;

use std::os::unix::fs::symlink;
use std::path::PathBuf;

use serde_json::{Value, json};
use switchyard_config::{Config, Overrides};
use switchyard_core::RunId;
use switchyard_files::{FileHost, HostConfig, ToolResult, codes};

const PROJECT_CONFIG: &str = "[files]\nproject_writable = true\n";
const ESCAPING_CONFIG: &str = "[files]\nproject_writable = true\ncore_root = \"/\"\n";

struct Project {
    world: common::World,
    run: RunId,
    root: PathBuf,
    _folder: Option<tempfile::TempDir>,
}

impl Project {
    /// A run and a project in a folder of its own, or (`in_home`) the home itself.
    async fn new(in_home: bool) -> Self {
        let world = common::World::new().await;
        let run = world.start("code-review").await.run;
        let (folder, root) = if in_home {
            (None, world.home.path().to_owned())
        } else {
            let folder = tempfile::tempdir().unwrap();
            let root = folder.path().to_owned();
            (Some(folder), root)
        };
        Self { world, run, root, _folder: folder }
    }

    /// A host built as `switchyard tool` and `switchyard serve` build theirs: from the
    /// configuration as the files say it at this moment.
    fn host(&self) -> FileHost {
        let config = Config::resolve(Overrides {
            home: Some(self.world.home.path().to_owned()),
            store: Some(self.world.home.path().join("store.sqlite3")),
            project_root: Some(self.root.clone()),
        })
        .unwrap();
        self.world.host(HostConfig::from_config(&config))
    }

    async fn call(&self, host: &FileHost, tool: &str, arguments: Value) -> ToolResult {
        host.call(tool, arguments, Some(self.run)).await
    }
}

fn refused(result: &ToolResult, case: &str) {
    match result {
        Err(error) => {
            assert_eq!(error.code, codes::PROTECTED, "{case}: {error}");
            assert!(error.message.contains("never"), "{case}: the message says why: {error}");
        }
        Ok(content) => panic!("{case}: expected {}, got success: {content}", codes::PROTECTED),
    }
}

/// Regression (issue 17): with `project_writable`, an agent rewrote `{project-root}/switchyard.toml`
/// to `core_root = "/"` through `write_file`, and the next host read any file on the machine.
#[tokio::test]
async fn an_agent_never_writes_the_configuration_or_the_workflows_whatever_the_mounts_say() {
    let project = Project::new(false).await;
    let root = &project.root;
    std::fs::write(root.join("switchyard.toml"), PROJECT_CONFIG).unwrap();
    std::fs::create_dir_all(root.join(".switchyard/workflows")).unwrap();
    std::fs::write(root.join(".switchyard/workflows/mine.md"), "---\nid: mine\n---\nkept\n").unwrap();
    symlink(".switchyard", root.join("door")).unwrap();
    let host = project.host();
    let wrote = project.call(&host, "write_file", json!({ "path": "{project-root}/notes.md", "content": "x" })).await;
    assert!(wrote.is_ok(), "the project is writable: {wrote:?}");
    let absolute = root.join("switchyard.toml").display().to_string();
    let cases: Vec<(&str, &str, Value)> = vec![
        ("the project's config", "write_file", json!({ "path": "{project-root}/switchyard.toml" })),
        ("the config by its absolute path", "write_file", json!({ "path": absolute })),
        ("the config by another case", "write_file", json!({ "path": "{project-root}/SWITCHYARD.toml" })),
        ("the config after a dot", "write_file", json!({ "path": "{project-root}/./switchyard.toml" })),
        (
            "the config with a stale ifMatchSha256",
            "write_file",
            json!({ "path": "{project-root}/switchyard.toml", "ifMatchSha256": "00" }),
        ),
        ("a workflow", "write_file", json!({ "path": "{project-root}/.switchyard/workflows/mine.md" })),
        ("a new workflow", "write_file", json!({ "path": "{project-root}/.switchyard/workflows/new.yaml" })),
        ("a routine", "write_file", json!({ "path": "{project-root}/.switchyard/routines/r.json" })),
        ("a workflow through a symlink", "write_file", json!({ "path": "{project-root}/door/workflows/new.yaml" })),
        ("a new folder through a symlink", "write_file", json!({ "path": "{project-root}/door/workflows/x/w.yaml" })),
        (
            "the config patched",
            "apply_patch",
            json!({ "path": "{project-root}/switchyard.toml", "hunks": [{ "search": "[files]", "replace": "[files]\ncore_root = \"/\"" }] }),
        ),
        (
            "a workflow's frontmatter",
            "update_frontmatter",
            json!({ "path": "{project-root}/.switchyard/workflows/mine.md", "operations": [{ "op": "set", "key": "id", "value": "x" }] }),
        ),
    ];
    let before = host.counters().violations;
    for (case, tool, mut arguments) in cases.clone() {
        if tool == "write_file" {
            arguments["content"] = json!(ESCAPING_CONFIG);
        }
        refused(&project.call(&host, tool, arguments).await, case);
    }
    assert_eq!(host.counters().violations, before + cases.len() as u64, "each refusal is a security event");
    assert_eq!(std::fs::read_to_string(root.join("switchyard.toml")).unwrap(), PROJECT_CONFIG);
    assert_eq!(
        std::fs::read_to_string(root.join(".switchyard/workflows/mine.md")).unwrap(),
        "---\nid: mine\n---\nkept\n"
    );
    let names: Vec<_> = std::fs::read_dir(root.join(".switchyard/workflows"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, vec!["mine.md"], "nothing was created among the workflows");
    assert!(!root.join("SWITCHYARD.toml").exists() && !root.join(".switchyard/routines").exists());

    // Neither file nor folder existing yet: creating them is refused as well.
    std::fs::remove_file(root.join("switchyard.toml")).unwrap();
    std::fs::remove_dir_all(root.join(".switchyard")).unwrap();
    for (case, path) in [
        ("a config created", "{project-root}/switchyard.toml"),
        ("a workflow folder created", "{project-root}/.switchyard/workflows/new.yaml"),
    ] {
        refused(&project.call(&host, "write_file", json!({ "path": path, "content": ESCAPING_CONFIG })).await, case);
    }
    assert!(!root.join("switchyard.toml").exists() && !root.join(".switchyard").exists());

    // The next host, built from the files as they are now, reaches no further than before.
    std::fs::write(root.join("switchyard.toml"), PROJECT_CONFIG).unwrap();
    let next = project.host();
    let escaped = project.call(&next, "read_file", json!({ "path": "{core-root}/etc/hostname" })).await;
    assert!(escaped.is_err(), "the core root is still the configured one: {escaped:?}");
}

/// The home inside the project (or the project being the home): keys and store are neither read
/// nor listed, the home's config and workflows are not written, and other runs' folders are not
/// written around `{output-root}`.
#[tokio::test]
async fn a_project_holding_the_home_never_reads_keys_or_store_nor_writes_what_the_runtime_keeps() {
    let project = Project::new(true).await;
    let root = project.root.clone();
    std::fs::write(root.join("switchyard.toml"), PROJECT_CONFIG).unwrap();
    symlink("keys/keyring.json", root.join("innocent.txt")).unwrap();
    symlink("store.sqlite3", root.join("notes.db")).unwrap();
    let host = project.host();
    let keyring = std::fs::read_dir(root.join("keys")).unwrap().next().unwrap().unwrap().file_name();
    let keyring = format!("{{project-root}}/keys/{}", keyring.to_string_lossy());
    let session = std::fs::read_dir(root.join("runs")).unwrap().next().unwrap().unwrap().file_name();
    let run_folder = format!("{{project-root}}/runs/{}", session.to_string_lossy());
    for (case, path) in [
        ("a key", keyring.clone()),
        ("a key through a symlink", "{project-root}/innocent.txt".to_owned()),
        ("the store", "{project-root}/store.sqlite3".to_owned()),
        ("the store through a symlink", "{project-root}/notes.db".to_owned()),
    ] {
        refused(&project.call(&host, "read_file", json!({ "path": path })).await, case);
    }
    refused(&project.call(&host, "list_files", json!({ "path": "{project-root}/keys" })).await, "list the keys");
    let listing = project.call(&host, "list_files", json!({ "path": "{project-root}" })).await.unwrap();
    assert!(!listing.contains("keyring") && !listing.contains("store.sqlite3\t"), "{listing}");
    assert!(listing.contains("switchyard.toml"), "{listing}");
    for (case, path) in [
        ("a key", keyring),
        ("the home's config", "{project-root}/switchyard.toml".to_owned()),
        ("a user workflow", "{project-root}/workflows/new.yaml".to_owned()),
        ("a user routine", "{project-root}/routines/r.json".to_owned()),
        ("the store's journal", "{project-root}/store.sqlite3-journal".to_owned()),
        ("a run's state document around {output-root}", format!("{run_folder}/state/workflow.md")),
        ("a run's manifest around {output-root}", format!("{run_folder}/manifest.json")),
        ("a new file among the runs", "{project-root}/runs/new.md".to_owned()),
    ] {
        refused(&project.call(&host, "write_file", json!({ "path": path, "content": "x" })).await, case);
    }
    assert!(!root.join("workflows").exists() && !root.join("routines").exists());
    let wrote = project.call(&host, "write_file", json!({ "path": "{project-root}/notes.md", "content": "x" })).await;
    assert!(wrote.is_ok(), "the rest of the project stays writable: {wrote:?}");
    let saved = project.call(&host, "save_output", json!({ "path": "report.md", "content": "x" })).await;
    assert!(saved.is_ok(), "the run's own folder stays writable: {saved:?}");
    let references =
        vec![switchyard_files::Reference { path: "{project-root}/innocent.txt".into(), conditional: false }];
    let mounts = host.mounts(project.run).await.unwrap();
    let preload: Value = serde_json::from_str(&host.preload(mounts, &references).await.unwrap()).unwrap();
    assert_eq!(preload["files"], json!([]));
    assert_eq!(preload["missing"][0]["code"], codes::PROTECTED);
}

/// Regression (issue 17): the project and core roots were opened again by path on every call, so
/// whatever the path named later (another folder, a symbolic link to `/`) became the mount.
#[tokio::test]
async fn mounts_are_fixed_when_the_host_is_built_not_opened_again_by_path() {
    let world = common::World::new().await;
    let run = world.start("code-review").await.run;
    let parent = tempfile::tempdir().unwrap();
    let (project, moved, core) =
        (parent.path().join("project"), parent.path().join("moved"), parent.path().join("core"));
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("readme.md"), "project\n").unwrap();
    let config =
        HostConfig { project_root: Some(project.clone()), core_root: Some(core.clone()), ..HostConfig::default() };
    let host = world.host(config);
    std::fs::rename(&project, &moved).unwrap();
    symlink("/", &project).unwrap();
    symlink("/", &core).unwrap();
    let read = |path: &'static str| host.call("read_file", json!({ "path": path }), Some(run));
    assert_eq!(read("{project-root}/readme.md").await.unwrap(), "project\n", "the folder opened at first");
    assert_eq!(read("{project-root}/etc/hostname").await.unwrap_err().code, codes::NOT_FOUND);
    assert_eq!(
        read("{core-root}/etc/hostname").await.unwrap_err().code,
        codes::NOT_FOUND,
        "no core root then, none now"
    );
}
