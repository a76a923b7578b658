//! `switchyard validate` over a real repository layout, through the binary: Claude Code commands,
//! agents and skills, SPW commands, a workflow, and a mirrored folder with one divergent file
//! and a broken symlink; its reports as JSON, SARIF and GitHub annotations are golden.

mod support;

use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::Value;
use support::Sandbox;

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const SPW_EXEC: &str = "---\nname: exec\ndescription: Execute one task of a spec\nargument-hint: \"<spec> [task]\"\nallowed-tools: [Read, Edit, Bash]\nmodel: sonnet\n---\nExecute $ARGUMENTS.\n";

/// A repository as people keep one: every prompt kind at its conventional place, one workflow,
/// and `commands/spw` mirrored into `copy-ready/commands/spw`.
fn repository(root: &Path) {
    write(
        root,
        "switchyard.toml",
        "[[validate.mirrors]]\nsource = \"commands/spw\"\nmirror = \"copy-ready/commands/spw\"\n",
    );
    write(
        root,
        ".claude/commands/review.md",
        "---\ndescription: Review the diff\nallowed-tools: Read, Grep, Bash(git diff:*)\nargument-hint: \"[path]\"\n---\nReview $ARGUMENTS.\n",
    );
    write(
        root,
        ".claude/commands/git/commit.md",
        "---\ndescription: Commit\nmodle: haiku\n---\nCommit the staged change.\n",
    );
    write(root, ".claude/commands/plain.md", "Explain the last error.\n");
    write(
        root,
        ".claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews code\ntools: [Read, Grep]\npermissionMode: acceptEdit\n---\nYou review code.\n",
    );
    write(
        root,
        ".claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Fill PDF forms\nallowed-tools: Read\n---\nUse the scripts.\n",
    );
    write(root, ".claude/skills/pdf/reference.md", "Not a skill file: no rule set matches it.\n");
    write(root, "commands/spw/exec.md", SPW_EXEC);
    write(
        root,
        "commands/spw/plan.md",
        "---\nname: plan\ndescription: Plan a spec\nargument-hint: \"<spec>\"\nallowed-tools: Read\n---\nPlan it.\n",
    );
    write(root, "copy-ready/commands/spw/exec.md", &SPW_EXEC.replace("sonnet", "opus"));
    write(
        root,
        "copy-ready/commands/spw/plan.md",
        "---\nname: plan\ndescription: Plan a spec\nargument-hint: \"<spec>\"\nallowed-tools: Read\n---\nPlan it.\n",
    );
    symlink("../../../commands/spw/status.md", root.join("copy-ready/commands/spw/status.md")).unwrap();
    write(
        root,
        ".switchyard/workflows/ship.yaml",
        "id: ship\ntitle: Ship\nsteps:\n  - id: build\n    prompt: Build it.\n",
    );
}

/// `code file` for each violation of a report, in order.
fn codes(report: &Value) -> Vec<String> {
    report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|violation| {
            format!(
                "{} {} {}",
                violation["severity"].as_str().unwrap(),
                violation["code"].as_str().unwrap(),
                violation["file"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_repository_layout_is_validated_with_prompts_and_in_strict_mode_mirrors() {
    let sandbox = Sandbox::new();
    let root = sandbox.project.path();
    repository(root);

    let report = sandbox.run(&["validate"]).expect(1);
    assert_eq!(
        codes(&report),
        [
            // Claude Code's permission modes are its own and grow: an undocumented one warns.
            "warning prompt-unknown-value .claude/agents/reviewer.md",
            "warning prompt-unknown-field .claude/commands/git/commit.md",
            "error prompt-missing-field commands/spw/plan.md",
            "error prompt-invalid-type commands/spw/plan.md",
        ],
        "{report:#}"
    );
    assert_eq!(
        report["stats"],
        serde_json::json!({"files_checked": 8, "files_passed": 7, "files_failed": 1, "total_violations": 4})
    );
    assert_eq!(report["summary"], "1 workflow(s), 7 prompt file(s): 2 error(s), 2 warning(s)");
    let rules: Vec<&str> =
        report["files"].as_array().unwrap().iter().filter_map(|file| file["rules"].as_str()).collect();
    assert_eq!(
        rules,
        [
            "claude-agent",
            "claude-command",
            "claude-command",
            "claude-command",
            "claude-skill",
            "spw-command",
            "spw-command"
        ]
    );

    let strict = sandbox.run(&["validate", "--strict"]).expect(1);
    assert_eq!(
        codes(&strict),
        [
            "error prompt-unknown-value .claude/agents/reviewer.md",
            "error prompt-unknown-field .claude/commands/git/commit.md",
            "error prompt-missing-field commands/spw/plan.md",
            "error prompt-invalid-type commands/spw/plan.md",
            "error mirror-divergent copy-ready/commands/spw/exec.md",
            // A broken link is reported as that, not also as an extra file.
            "error mirror-broken-symlink copy-ready/commands/spw/status.md",
        ],
        "{strict:#}"
    );
}

#[test]
fn warnings_alone_exit_0_and_the_text_report_reads_like_workflow_diagnostics() {
    let sandbox = Sandbox::new();
    let root = sandbox.project.path();
    write(root, ".claude/commands/commit.md", "---\ndescription: Commit\nmodle: haiku\n---\nCommit.\n");
    let text = sandbox.run_text(&["validate"]);
    assert_eq!(text.code, 0, "{}{}", text.stdout, text.stderr);
    assert_eq!(
        text.stdout,
        ".claude/commands/commit.md:3:1: warning[prompt-unknown-field]: `modle` is not a field of the rule set `claude-command`\n  help: did you mean `model`? Otherwise remove the field\nok .claude/commands/commit.md\n1 prompt file(s): 0 error(s), 1 warning(s)\n"
    );
    assert_eq!(sandbox.run_text(&["validate", "--strict"]).code, 1);
}

#[test]
fn named_files_are_checked_by_the_rule_set_their_place_gets() {
    let sandbox = Sandbox::new();
    let root = sandbox.project.path();
    repository(root);
    let one = sandbox.run(&["validate", ".claude/agents/reviewer.md"]).expect(0);
    assert_eq!(codes(&one), ["warning prompt-unknown-value .claude/agents/reviewer.md"]);
    let folder = sandbox.run(&["validate", "commands"]).expect(1);
    assert_eq!(
        codes(&folder),
        ["error prompt-missing-field commands/spw/plan.md", "error prompt-invalid-type commands/spw/plan.md"]
    );
    // `--json` and `--format json` are one report.
    let formatted = sandbox.run_text(&["validate", "--format", "json", "commands"]);
    assert_eq!(serde_json::from_str::<Value>(&formatted.stdout).unwrap(), folder);
    // A Markdown file no rule set matches is no prompt and no workflow.
    let refused = sandbox.run_text(&["validate", ".claude/skills/pdf/reference.md"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("no prompt rule set matches"), "{}", refused.stderr);
}

#[test]
fn what_stops_validation_itself_exits_2() {
    let sandbox = Sandbox::new();
    let root = sandbox.project.path();
    let nothing = sandbox.run_text(&["validate"]);
    assert_eq!(nothing.code, 2);
    assert!(
        nothing.stderr.contains("nothing to validate") && nothing.stderr.contains(".claude/commands/**/*.md"),
        "{}",
        nothing.stderr
    );
    let missing = sandbox.run_text(&["validate", "nowhere.md"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("nowhere.md"), "{}", missing.stderr);
    write(root, "switchyard.toml", "[[validate.prompts]]\nglob = \"prompts/*.md\"\npreset = \"claude-comand\"\n");
    write(root, "prompts/a.md", "---\ndescription: d\n---\nx\n");
    let unknown = sandbox.run_text(&["validate"]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("no preset `claude-comand`"), "{}", unknown.stderr);
}

#[test]
fn reports_keep_their_shape_as_json_sarif_and_github_annotations() {
    let sandbox = Sandbox::new();
    let root = sandbox.project.path();
    repository(root);
    write(
        root,
        ".switchyard/workflows/broken.yaml",
        "id: broken\ntitle: Broken\nsteps:\n  - id: a\n    title: A\n    prompt: Do it.\n    next: b\n",
    );
    let json = sandbox.run(&["validate", "--strict"]).expect(1);
    let sarif = sandbox.run_text(&["validate", "--strict", "--format", "sarif"]);
    assert_eq!(sarif.code, 1, "{}", sarif.stderr);
    let sarif: Value = serde_json::from_str(&sarif.stdout).unwrap();
    let github = sandbox.run_text(&["validate", "--strict", "--format", "github"]);
    assert_eq!(github.code, 1, "{}", github.stderr);
    // The release's version is the only part that changes without the shape changing.
    let mut sarif = sarif;
    sarif["runs"][0]["tool"]["driver"]["semanticVersion"] = "[version]".into();
    insta::assert_json_snapshot!("validate_report_json", json);
    insta::assert_json_snapshot!("validate_report_sarif", sarif);
    insta::assert_snapshot!("validate_report_github", github.stdout);

    // Status reports, which the project check does not search for: named, in every format.
    write(root, "run/impl/status.json", "{\n  \"status\": \"done\",\n  \"summary\": null,\n  \"skills_used\": []\n}\n");
    write(
        root,
        "run/audit.status.json",
        "{\"status\": \"pass\", \"summary\": \"audit\", \"confidence\": 1.0, \"validated\": true,\n\"skills_used\": [], \"skills_missing\": [], \"model_override_reason\": null,\n\"findings\": [\n{\"status\": \"blocked\", \"summary\": \"race in resume\", \"validated\": true}\n]}\n",
    );
    let status = sandbox.run(&["validate", "--strict", "run"]).expect(1);
    let status_sarif = sandbox.run_text(&["validate", "--strict", "--format", "sarif", "run"]);
    let mut status_sarif: Value = serde_json::from_str(&status_sarif.stdout).unwrap();
    status_sarif["runs"][0]["tool"]["driver"]["semanticVersion"] = "[version]".into();
    let status_github = sandbox.run_text(&["validate", "--strict", "--format", "github", "run"]);
    insta::assert_json_snapshot!("validate_report_status_json", status);
    insta::assert_json_snapshot!("validate_report_status_sarif", status_sarif);
    insta::assert_snapshot!("validate_report_status_github", status_github.stdout);
}

#[test]
fn status_reports_in_a_run_folder_are_checked_graduated_and_audits_gated_at_the_configured_threshold() {
    let sandbox = Sandbox::new();
    let root = sandbox.project.path();
    let extended = r#""skills_used": [], "skills_missing": [], "model_override_reason": null"#;
    write(root, "run/impl/status.json", &format!("{{\"status\": \"pass\", \"summary\": \"done\", {extended}}}"));
    write(root, "run/review/status.json", "{\"status\": \"pass\",\n \"summary\": \"reviewed\"}\n");
    write(
        root,
        "run/audit.status.json",
        &format!(
            "{{\"status\": \"pass\", \"summary\": \"audit\", \"confidence\": 1.0, \"validated\": true, {extended},\n\"findings\": [\n{{\"status\": \"blocked\", \"summary\": \"race in resume\", \"confidence\": 0.75, \"validated\": true, {extended}}}\n]}}\n"
        ),
    );
    // Core fields only: warnings; the audit finding at 0.75 is downgraded below the default 0.8.
    let relaxed = sandbox.run(&["validate", "run"]).expect(0);
    assert_eq!(
        codes(&relaxed),
        [
            "warning audit-downgraded run/audit.status.json",
            "warning status-field run/review/status.json",
            "warning status-field run/review/status.json",
            "warning status-field run/review/status.json",
        ],
        "{relaxed:#}"
    );
    let downgraded =
        relaxed["violations"].as_array().unwrap().iter().find(|v| v["code"] == "audit-downgraded").unwrap();
    assert_eq!((downgraded["line"].as_u64(), downgraded["kind"].as_str()), (Some(3), Some("status")));
    // Strict requires the extended fields; a lower threshold makes the finding block.
    let strict = sandbox.run(&["validate", "--strict", "run/review/status.json"]).expect(1);
    assert!(codes(&strict).iter().all(|code| code == "error status-field run/review/status.json"), "{strict:#}");
    write(root, "switchyard.toml", "[audit]\naudit_min_confidence = 0.7\n");
    let blocked = sandbox.run(&["validate", "run/audit.status.json"]).expect(1);
    assert_eq!(codes(&blocked), ["error audit-blocked run/audit.status.json"], "{blocked:#}");
}
