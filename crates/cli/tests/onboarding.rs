//! The first commands a new user runs, through the real binary: `init` (and running it again),
//! the example workflow it writes walked to the end, shell completions and the man pages.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

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

/// The tests that render man pages need `man` (Debian's `man-db`); without it they fail and say
/// how to get it (never a silent skip).
fn require_man() {
    let found = Command::new("man").arg("--version").output().is_ok_and(|output| output.status.success());
    assert!(
        found,
        "rendering the man pages needs `man`, which is not installed: `apt-get install -y man-db` (`cargo xtask test` installs it)"
    );
}

/// A page as `man -l` renders it, 100 columns wide, failing on any warning of the formatter.
fn rendered(page: &Path) -> String {
    let output =
        Command::new("man").arg("-l").arg(page).env("MANPAGER", "cat").env("MANWIDTH", "100").output().unwrap();
    let (text, warnings) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success() && warnings.is_empty(), "man -l {}: {warnings}", page.display());
    text.into_owned()
}

/// The pages a roff page cites (`switchyard\-keys\-rotate(1)`, `\fBswitchyard\fR(1)`), by name.
fn cited_pages(roff: &str) -> Vec<String> {
    let plain = roff.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace("\\fI", "");
    plain
        .match_indices("(1)")
        .filter_map(|(end, _)| {
            let name: String = plain[..end]
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            name.starts_with("switchyard").then_some(name)
        })
        .collect()
}

#[test]
fn every_command_has_a_man_page_that_man_renders_and_every_page_it_cites_exists() {
    require_man();
    let sandbox = Sandbox::new();
    let folder = sandbox.home.path().join("man1");
    let wrote = sandbox.run_text(&["man", "--out", folder.to_str().unwrap()]);
    assert_eq!(wrote.code, 0, "{}", wrote.stderr);
    let pages: BTreeSet<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(wrote.stdout.starts_with(&format!("wrote {} man pages to ", pages.len())), "{}", wrote.stdout);
    for expected in [
        "switchyard.1",
        "switchyard-init.1",
        "switchyard-start.1",
        "switchyard-continue.1",
        "switchyard-man.1",
        "switchyard-keys.1",
        "switchyard-keys-rotate.1",
        "switchyard-store-copy.1",
    ] {
        assert!(pages.contains(expected), "no {expected} in {pages:?}");
    }
    assert!(!pages.contains("switchyard-help.1"), "`--help` is an option on every page, not a command: {pages:?}");

    let mut cited = BTreeSet::new();
    for page in &pages {
        let roff = std::fs::read_to_string(folder.join(page)).unwrap();
        let text = rendered(&folder.join(page));
        assert!(text.contains("SYNOPSIS") && text.contains("--help"), "{page}:\n{text}");
        for name in cited_pages(&roff) {
            assert!(pages.contains(&format!("{name}.1")), "{page} cites {name}(1), which was not written");
            cited.insert(name);
        }
        if page != "switchyard.1" {
            assert!(text.contains("SEE ALSO") && text.contains("switchyard(1)"), "{page}:\n{text}");
        }
    }
    // Every page but the whole command line's is cited by the page of the command above it.
    let uncited: Vec<&String> =
        pages.iter().filter(|page| *page != "switchyard.1" && !cited.contains(page.trim_end_matches(".1"))).collect();
    assert!(uncited.is_empty(), "{uncited:?}");

    // A command's page says every option it takes, its own and the global ones.
    let start = rendered(&folder.join("switchyard-start.1"));
    for option in ["--goal", "--file", "--context", "--json", "--store", "--log-format"] {
        assert!(start.contains(option), "no {option} on switchyard-start(1):\n{start}");
    }
    let start_roff = std::fs::read_to_string(folder.join("switchyard-start.1")).unwrap();
    assert!(start_roff.contains(".SH SYNOPSIS\n\\fBswitchyard start\\fR"), "run as `switchyard start`: {start_roff}");
    let root = std::fs::read_to_string(folder.join("switchyard.1")).unwrap();
    assert!(
        root.contains(".SH NAME\nswitchyard \\- a workflow runtime that keeps LLM agents on rails\n"),
        "the NAME line names the program once: {}",
        root.lines().skip_while(|line| *line != ".SH NAME").nth(1).unwrap_or_default()
    );

    // One page on stdout is the file `--out` writes.
    for (words, page) in [
        (&[][..], "switchyard.1"),
        (&["start"][..], "switchyard-start.1"),
        (&["keys", "rotate"][..], "switchyard-keys-rotate.1"),
    ] {
        let printed = sandbox.run_text(&[&["man"][..], words].concat());
        assert_eq!(printed.code, 0, "{}", printed.stderr);
        assert_eq!(printed.stdout, std::fs::read_to_string(folder.join(page)).unwrap(), "man {words:?}");
    }
    let unknown = sandbox.run_text(&["man", "strat"]);
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("no command `switchyard strat`") && unknown.stderr.contains("start"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn completions_and_man_end_quietly_when_the_reader_goes_away() {
    let sandbox = Sandbox::new();
    for args in [&["completions", "bash"][..], &["man"], &["man", "start"]] {
        // `switchyard completions bash | head -1`: the reader is gone before the script is written.
        let mut child = sandbox.command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        let ended = support::ran(&child.wait_with_output().unwrap());
        assert_eq!((ended.code, ended.stderr.as_str()), (0, ""), "{args:?}: {ended:?}");
    }
}

/// `doctor` at a sandbox whose `HOME` (where Claude Code and Cursor keep their user
/// configuration) is `user_home`.
fn doctor(sandbox: &Sandbox, user_home: &Path) -> support::Ran {
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
    let binary = Path::new(env!("CARGO_BIN_EXE_switchyard")).canonicalize().unwrap();
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

/// Insta settings for `init` and `doctor` text: each folder by its role, the binary by its name,
/// and the count of `SWITCHYARD_*` variables (a test run may set its own).
fn onboarding_settings(sandbox: &Sandbox, user_home: &Path) -> insta::Settings {
    let mut settings = support::redactions(&[]);
    let project = sandbox.project.path().canonicalize().unwrap();
    let binary = Path::new(env!("CARGO_BIN_EXE_switchyard")).canonicalize().unwrap();
    for (path, name) in [
        (binary.as_path(), "[switchyard]"),
        (sandbox.home.path(), "[home]"),
        (project.as_path(), "[project]"),
        (sandbox.project.path(), "[project]"),
        (user_home, "[user home]"),
    ] {
        settings.add_filter(&support::regex_escape(&path.display().to_string()), name);
    }
    settings.add_filter(r"\d+ variable\(s\) set", "[n] variable(s) set");
    settings
}

#[test]
fn init_and_doctor_read_as_a_person_expects_healthy_and_with_problems() {
    // The SQLite store of the home, so the store's line reads the same on every test backend.
    let sandbox = Sandbox::sqlite();
    let user_home = tempfile::tempdir().unwrap();
    let settings = onboarding_settings(&sandbox, user_home.path());
    let init = sandbox.run_text(&["init"]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    let init_again = sandbox.run_text(&["init"]);
    assert_eq!(init_again.code, 0, "{}", init_again.stderr);
    sandbox.run(&["start", "small-change", "--goal", "a store with a run in it"]).ok();
    let binary = Path::new(env!("CARGO_BIN_EXE_switchyard")).canonicalize().unwrap();
    std::fs::write(
        sandbox.project.path().join(".mcp.json"),
        serde_json::json!({ "mcpServers": { "switchyard": { "command": binary, "args": ["mcp"] } } }).to_string(),
    )
    .unwrap();
    let doctor = |expected: i32| {
        let ran = support::ran(&sandbox.command(&["doctor"]).env("HOME", user_home.path()).output().unwrap());
        assert_eq!(ran.code, expected, "{}\n{}", ran.stdout, ran.stderr);
        ran.stdout
    };
    let healthy = doctor(0);

    let key_file = sandbox.home.path().join("keys/keyring.json");
    std::fs::set_permissions(&key_file, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    sandbox.write_workflow("broken.yaml", "id: broken\nversion: \"1\"\ntitle: Broken\nsteps: []\n");
    let project = sandbox.project.path().canonicalize().unwrap();
    std::fs::write(
        user_home.path().join(".claude.json"),
        serde_json::json!({ "projects": { project.display().to_string(): { "mcpServers": {
            "switchyard": { "command": user_home.path().join("old-install/bin/switchyard"), "args": ["mcp"] } } } } })
        .to_string(),
    )
    .unwrap();
    let with_problems = doctor(1);
    settings.bind(|| {
        insta::assert_snapshot!("text_init", init.stdout);
        insta::assert_snapshot!("text_init_again", init_again.stdout);
        insta::assert_snapshot!("text_doctor_healthy", healthy);
        insta::assert_snapshot!("text_doctor_with_problems", with_problems);
    });
}
