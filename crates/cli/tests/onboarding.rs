//! The first commands a new user runs, through the real binary: `init` (and running it again),
//! the example workflow it writes walked to the end, shell completions and the man page.

mod support;

use std::process::Command;

use support::{Sandbox, continue_token, string};

#[test]
fn init_writes_a_config_that_loads_and_an_example_that_validates_and_runs_through_its_check_contract_and_gate() {
    let sandbox = Sandbox::new();
    let project = sandbox.project.path();
    let init = sandbox.run(&["init"]).ok();
    let actions: Vec<(String, String)> =
        init["items"].as_array().unwrap().iter().map(|item| (string(&item["path"]), string(&item["action"]))).collect();
    let expected = |action: &str| {
        vec![
            (project.join("switchyard.toml").display().to_string(), action.to_owned()),
            (project.join(".switchyard/workflows").display().to_string(), action.to_owned()),
            (project.join(".switchyard/workflows/small-change.yaml").display().to_string(), action.to_owned()),
        ]
    };
    assert_eq!(actions, expected("created"));
    let next: Vec<String> = init["next"].as_array().unwrap().iter().map(string).collect();
    assert_eq!(next.len(), 3, "{next:?}");
    assert!(next[1].starts_with("switchyard start small-change "), "{next:?}");

    // The config loads: a command that reads it runs, and a misspelled key would stop it.
    sandbox.run(&["list"]).ok();
    let validated = sandbox.run(&["validate", ".switchyard/workflows"]).ok();
    assert_eq!((validated["errors"].as_u64(), validated["warnings"].as_u64()), (Some(0), Some(0)), "{validated:#}");

    let started = sandbox.run(&["start", "small-change", "--goal", "Add a --verbose flag"]).ok();
    let run = string(&started["run"]);
    // The plan's output check blocks notes without a "Check:" line.
    let blocked = sandbox.run(&["continue", &continue_token(&started), "--notes", "Plan: add the flag."]).expect(1);
    assert_eq!(blocked["validation"]["issues"][0]["code"], "OUTPUT_CHECK", "{blocked:#}");
    let planned = sandbox
        .run(&["continue", &continue_token(&blocked), "--notes", "Plan: add the flag.\nCheck: run it with --verbose."])
        .ok();
    assert_eq!(planned["step"]["step"], "change");
    // The change's output contract wants at least one file in the artifacts.
    let refused = sandbox
        .run(&["continue", &continue_token(&planned), "--notes", "done", "--artifacts", r#"{"files": []}"#])
        .expect(1);
    assert_eq!(refused["kind"], "blocked", "{refused:#}");
    let changed = sandbox
        .run(&[
            "continue",
            &continue_token(&refused),
            "--notes",
            "done",
            "--artifacts",
            r#"{"files": ["src/main.rs"]}"#,
        ])
        .ok();
    assert_eq!(changed["kind"], "waiting_gate", "{changed:#}");
    let done = sandbox.run(&["approve", &run]).ok();
    assert_eq!(done["kind"], "complete", "{done:#}");

    // A second run changes nothing and says what is there.
    let config_before = std::fs::read(project.join("switchyard.toml")).unwrap();
    std::fs::write(project.join(".switchyard/workflows/small-change.yaml"), "# mine now\n").unwrap();
    let again = sandbox.run(&["init"]).ok();
    let actions: Vec<(String, String)> = again["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| (string(&item["path"]), string(&item["action"])))
        .collect();
    assert_eq!(actions, expected("exists"));
    assert_eq!(std::fs::read(project.join("switchyard.toml")).unwrap(), config_before);
    assert_eq!(
        std::fs::read_to_string(project.join(".switchyard/workflows/small-change.yaml")).unwrap(),
        "# mine now\n"
    );
    let text = sandbox.run_text(&["init"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.contains("exists, left as is: switchyard.toml"), "{}", text.stdout);
}

#[test]
fn init_with_project_names_the_project_in_the_commands_it_prints() {
    let sandbox = Sandbox::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let project = elsewhere.path().join("my project");
    std::fs::create_dir(&project).unwrap();
    let init = sandbox.run(&["init", "--project", project.to_str().unwrap()]).ok();
    let quoted = format!("--project '{}'", project.display());
    for command in init["next"].as_array().unwrap() {
        assert!(string(command).contains(&quoted) || string(command).starts_with("switchyard validate '"), "{init:#}");
    }
    assert!(project.join("switchyard.toml").is_file());
    let missing = sandbox.run(&["init", "--project", elsewhere.path().join("absent").to_str().unwrap()]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(missing.stderr.contains("create it first"), "{}", missing.stderr);
}

#[test]
fn completions_for_each_shell_name_the_subcommands() {
    let sandbox = Sandbox::new();
    for shell in ["bash", "zsh", "fish"] {
        let script = sandbox.run_text(&["completions", shell]);
        assert_eq!(script.code, 0, "{shell}: {}", script.stderr);
        for subcommand in ["init", "doctor", "start", "continue", "serve", "completions"] {
            assert!(script.stdout.contains(subcommand), "{shell} completion lacks {subcommand}");
        }
    }
    assert!(sandbox.run_text(&["completions", "bash"]).stdout.contains("complete -F _switchyard"));
    assert!(sandbox.run_text(&["completions", "zsh"]).stdout.starts_with("#compdef switchyard"));
    assert!(sandbox.run_text(&["completions", "fish"]).stdout.contains("complete -c switchyard"));
    let unknown = sandbox.run_text(&["completions", "tcsh"]);
    assert_eq!(unknown.code, 2);
}

#[test]
fn the_man_page_is_roff_that_man_renders() {
    let sandbox = Sandbox::new();
    let page = sandbox.run_text(&["man"]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    for section in [".TH switchyard 1", ".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(page.stdout.contains(section), "no {section} in\n{}", page.stdout);
    }
    assert!(
        page.stdout.contains(".SH NAME\nswitchyard \\- a workflow runtime that keeps LLM agents on rails\n"),
        "the NAME line names the program once: {}",
        page.stdout.lines().skip_while(|line| *line != ".SH NAME").nth(1).unwrap_or_default()
    );
    let file = sandbox.home.path().join("switchyard.1");
    std::fs::write(&file, &page.stdout).unwrap();
    // Rendered by man where it is installed; the roff checks above hold everywhere.
    let rendered = Command::new("man").arg("-l").arg(&file).env("MANPAGER", "cat").env("MANWIDTH", "100").output();
    match rendered {
        Ok(rendered) => {
            let text = String::from_utf8_lossy(&rendered.stdout);
            assert!(rendered.status.success(), "man -l failed: {}", String::from_utf8_lossy(&rendered.stderr));
            assert!(text.contains("SYNOPSIS") && text.contains("switchyard-doctor"), "{text}");
        }
        Err(error) => assert_eq!(error.kind(), std::io::ErrorKind::NotFound, "man did not run: {error}"),
    }
}

/// `doctor` at a sandbox whose `HOME` (where Claude Code and Cursor keep their user
/// configuration) is `user_home`.
fn doctor(sandbox: &Sandbox, user_home: &std::path::Path) -> support::Ran {
    let output = sandbox.command(&["--json", "doctor"]).env("HOME", user_home).output().unwrap();
    support::ran(&output)
}

/// `(check, status, subject)` of each finding, and the fix of each that is not ok.
fn findings(report: &serde_json::Value) -> Vec<(String, String, String)> {
    let findings = report["findings"].as_array().unwrap();
    for finding in findings.iter().filter(|finding| finding["status"] != "ok") {
        assert!(finding["fix"].as_str().is_some_and(|fix| !fix.is_empty()), "no fix: {finding:#}");
    }
    findings
        .iter()
        .map(|finding| (string(&finding["check"]), string(&finding["status"]), string(&finding["subject"])))
        .collect()
}

#[test]
fn doctor_finds_a_world_readable_key_a_broken_workflow_and_a_stale_mcp_config_and_says_how_to_fix_each() {
    let sandbox = Sandbox::new();
    let user_home = tempfile::tempdir().unwrap();
    let project = sandbox.project.path().canonicalize().unwrap();
    sandbox.run(&["init"]).ok();
    sandbox.run(&["start", "small-change", "--goal", "a store with a run in it"]).ok();
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_switchyard")).canonicalize().unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        serde_json::json!({ "mcpServers": { "switchyard": { "type": "stdio", "command": binary, "args": ["mcp"] } } })
            .to_string(),
    )
    .unwrap();

    // A healthy setup: nothing fails, exit 0.
    let healthy = doctor(&sandbox, user_home.path());
    let report = healthy.expect(0);
    assert_eq!(report["summary"]["fail"], 0, "{report:#}");
    let healthy_findings = findings(&report);
    assert!(
        healthy_findings.contains(&(
            "mcp client".into(),
            "ok".into(),
            format!("{} (mcpServers.switchyard)", project.join(".mcp.json").display())
        )),
        "{healthy_findings:?}"
    );
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            // Each backend numbers its own schema versions.
            .any(|finding| finding["check"] == "store"
                && string(&finding["message"]).starts_with("opens, schema version ")),
        "{report:#}"
    );

    // Now break three things.
    let key_file = sandbox.home.path().join("keys/keyring.json");
    std::fs::set_permissions(&key_file, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let broken = sandbox.write_workflow("broken.yaml", "id: broken\nversion: \"1\"\ntitle: Broken\nsteps: []\n");
    let missing_binary = user_home.path().join("old-install/bin/switchyard");
    std::fs::write(
        user_home.path().join(".claude.json"),
        serde_json::json!({ "projects": { project.display().to_string(): { "mcpServers": {
            "switchyard": { "command": missing_binary, "args": ["mcp"] } } } } })
        .to_string(),
    )
    .unwrap();
    let ran = doctor(&sandbox, user_home.path());
    let report = ran.expect(1);
    let found = findings(&report);
    let fails: Vec<&(String, String, String)> = found.iter().filter(|(_, status, _)| status == "fail").collect();
    assert_eq!(
        fails,
        [
            &("key file".to_owned(), "fail".to_owned(), key_file.display().to_string()),
            &("workflows".to_owned(), "fail".to_owned(), broken.display().to_string()),
            &(
                "mcp client".to_owned(),
                "fail".to_owned(),
                format!(
                    "{} (projects.{}.mcpServers.switchyard)",
                    user_home.path().join(".claude.json").display(),
                    project.display()
                )
            ),
        ],
        "{report:#}"
    );
    let fix_of = |check: &str| {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|finding| finding["check"] == check && finding["status"] == "fail")
            .map(|finding| string(&finding["fix"]))
            .unwrap()
    };
    assert_eq!(fix_of("key file"), format!("chmod 600 {}", key_file.display()));
    assert!(fix_of("mcp client").contains(&format!("-- {} mcp", binary.display())), "{report:#}");

    // The text says the same, a line per finding; a misspelt variable is named, its value never.
    let text = support::ran(
        &sandbox
            .command(&["doctor"])
            .env("HOME", user_home.path())
            .env("SWITCHYARD_SERVE_PROT", "secret-looking-value")
            .output()
            .unwrap(),
    );
    assert_eq!(text.code, 1, "{}", text.stderr);
    assert!(
        text.stdout.contains(
            "warn environment  SWITCHYARD_*: set but read nowhere, so ignored: SWITCHYARD_SERVE_PROT (did you mean SWITCHYARD_SERVE_PORT?)"
        ),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("secret-looking-value"), "{}", text.stdout);
    assert!(
        text.stdout.contains(&format!("fail key file     {}: other users may read it (mode 644)", key_file.display())),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("fix: chmod 600"), "{}", text.stdout);
    assert!(text.stdout.contains(&format!("`{}`, which does not exist", missing_binary.display())), "{}", text.stdout);
    assert!(text.stdout.ends_with("problem(s)\n"), "{}", text.stdout);

    // Doctor changed nothing: the key is still open, no user workflow folder appeared.
    assert!(!sandbox.home.path().join("workflows").exists());
    let absent = sandbox.run(&["doctor", "--project", "/nonexistent/project"]);
    assert_eq!(absent.code, 2, "{}", absent.stderr);
}
