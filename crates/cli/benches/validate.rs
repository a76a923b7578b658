//! Benchmark: `switchyard validate` over 1,000 workflow files (SPEC section 6: under 2 s on a
//! 2-core machine), timed as a user meets it: a fresh process per run, output discarded.
//!
//! - `workrail_1000`: the 27 WorkRail workflows of the corpora's `workrail/workflows` (2–91 KB of
//!   agentic prompts each, with many conditions), copied 37 times under distinct ids.
//! - `workrail_27`: the same 27 once each. Copies share their conditions, which a process parses
//!   once each (`expressions::parse_condition`), so this row shows the cost of a file whose
//!   conditions are new.
//! - `native_1000`: the 3 built-in workflows (native and stage list), copied likewise.
//! - `mixed_1000_strict`: a project validated as a whole (`switchyard --project <dir> validate
//!   --strict`, no paths): 400 copies of the built-in workflows in `.switchyard/workflows/` and
//!   600 prompt files at the presets' places (200 Claude Code commands, 150 subagents, 100
//!   skills, 150 SPW commands), the SPW commands mirrored into a second folder and compared.
//!
//! `SWITCHYARD_BIN=<path>` times another build of the binary (to compare two builds alternately).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const FILES: usize = 1_000;

fn validate(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validate-bench");
    let _ = std::fs::remove_dir_all(&root);
    let workrail = workrail_sources();
    let mixed = root.join("mixed-1000");
    mixed_project(&mixed);
    let folder_case = |name: &'static str, (folder, files): (PathBuf, usize)| {
        (name, vec![OsString::from("validate"), folder.into_os_string()], files)
    };
    let cases = [
        folder_case("workrail_1000", folder(&root.join("workrail-1000"), &workrail, FILES)),
        folder_case("workrail_27", folder(&root.join("workrail-27"), &workrail, workrail.len())),
        folder_case("native_1000", folder(&root.join("native-1000"), &native_sources(), FILES)),
        (
            "mixed_1000_strict",
            vec![OsString::from("--project"), mixed.into_os_string(), "validate".into(), "--strict".into()],
            FILES,
        ),
    ];
    let mut group = c.benchmark_group("validate");
    group.sample_size(10).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_secs(1));
    for (name, arguments, files) in &cases {
        run(arguments, &root);
        group.bench_function(BenchmarkId::new(*name, files), |b| {
            b.iter_custom(|iters| {
                let began = Instant::now();
                for _ in 0..iters {
                    run(arguments, &root);
                }
                began.elapsed()
            });
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&root);
}

/// Runs `switchyard <arguments>` (with a home of its own under `root`) and checks it found no
/// error.
fn run(arguments: &[OsString], root: &Path) {
    let binary = std::env::var_os("SWITCHYARD_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_switchyard").into());
    let status = Command::new(binary)
        .args(arguments)
        .env("SWITCHYARD_HOME", root.join("home"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run switchyard validate");
    assert!(status.success(), "switchyard {arguments:?} found errors");
}

/// A project of 400 workflows and 600 prompt files of every preset, its SPW commands mirrored.
fn mixed_project(project: &Path) {
    folder(&project.join(".switchyard/workflows"), &native_sources(), 400);
    let prompts: [(&str, usize, &str); 4] = [
        (
            ".claude/commands/group-{group}/command-{n}.md",
            200,
            "---\ndescription: Review the change\nallowed-tools: Read, Grep, Bash(git diff:*)\nargument-hint: \"[path]\"\n---\nReview $ARGUMENTS and report what breaks.\n",
        ),
        (
            ".claude/agents/agent-{n}.md",
            150,
            "---\nname: reviewer-{n}\ndescription: Reviews code for correctness\ntools: [Read, Grep, Glob]\nmodel: sonnet\npermissionMode: plan\n---\nYou review code. Report findings by severity.\n",
        ),
        (
            ".claude/skills/skill-{n}/SKILL.md",
            100,
            "---\nname: skill-{n}\ndescription: Fills PDF forms from a JSON description\nallowed-tools: Read, Bash(python:*)\nlicense: Apache-2.0\n---\nRun the scripts in this folder.\n",
        ),
        (
            "commands/spw/command-{n}.md",
            150,
            "---\nname: command-{n}\ndescription: Execute one task of a spec\nargument-hint: \"<spec> [task]\"\nallowed-tools: [Read, Edit, Bash]\nmodel: sonnet\n---\nExecute $ARGUMENTS.\n",
        ),
    ];
    for (pattern, count, text) in prompts {
        for n in 0..count {
            let name = pattern.replace("{group}", &(n % 10).to_string()).replace("{n}", &n.to_string());
            let path = project.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).expect("create a prompt folder");
            let text = text.replace("{n}", &n.to_string());
            std::fs::write(&path, &text).expect("write a prompt file");
            if let Ok(spw) = path.strip_prefix(project.join("commands/spw")) {
                let mirrored = project.join("copy-ready/commands/spw").join(spw);
                std::fs::create_dir_all(mirrored.parent().unwrap()).expect("create the mirror");
                std::fs::write(mirrored, &text).expect("write a mirrored file");
            }
        }
    }
    std::fs::write(
        project.join("switchyard.toml"),
        "[[validate.mirrors]]\nsource = \"commands/spw\"\nmirror = \"copy-ready/commands/spw\"\n",
    )
    .expect("write switchyard.toml");
}

/// A source to copy: its id, its text, the file extension.
struct Template {
    id: String,
    text: String,
    extension: &'static str,
}

fn workrail_sources() -> Vec<Template> {
    let corpus = switchyard_test_support::corpora().join("workrail/workflows");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("read the WorkRail corpus")
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("read a corpus file");
            let document: serde_json::Value = serde_json::from_str(&text).expect("a corpus file is JSON");
            let id = document["id"].as_str().expect("a WorkRail workflow has an id").to_owned();
            Template { id, text, extension: "json" }
        })
        .collect()
}

fn native_sources() -> Vec<Template> {
    switchyard_compiler::builtins()
        .map(|builtin| Template { id: builtin.name.to_owned(), text: builtin.source.text, extension: "yaml" })
        .collect()
}

/// Writes `count` files into `folder`, cycling through `templates`, each under an id of its own.
fn folder(folder: &Path, templates: &[Template], count: usize) -> (PathBuf, usize) {
    std::fs::create_dir_all(folder).expect("create the bench folder");
    for n in 0..count {
        let template = &templates[n % templates.len()];
        let id = if count == templates.len() { template.id.clone() } else { format!("{}-copy{n:04}", template.id) };
        // The first occurrence of the id is the document's own (`"id": "…"`, `id: …`, `name: …`).
        let (from, to) = match template.extension {
            "json" => (format!("\"{}\"", template.id), format!("\"{id}\"")),
            _ => (format!(": {}\n", template.id), format!(": {id}\n")),
        };
        assert!(template.text.contains(&from), "{} does not name itself as expected", template.id);
        let text = template.text.replacen(&from, &to, 1);
        std::fs::write(folder.join(format!("{id}.{}", template.extension)), text).expect("write a bench file");
    }
    (folder.to_owned(), count)
}

criterion_group!(benches, validate);
criterion_main!(benches);
