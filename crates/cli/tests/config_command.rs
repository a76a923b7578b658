//! `switchyard config` through the binary: every setting with where it came from, as text and as
//! a stable JSON object; and a bad `switchyard.toml` stopping any command with its location.

mod support;

use support::Sandbox;

/// Insta settings that name the sandbox's folders `[home]` and `[project]`.
fn folders(sandbox: &Sandbox) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&support::regex_escape(&sandbox.home.path().display().to_string()), "[home]");
    settings.add_filter(&support::regex_escape(&sandbox.project.path().display().to_string()), "[project]");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

/// A home and a project with a `switchyard.toml` each; on SQLite whatever the run chose, as the
/// snapshots show the store keys a SQLite home has.
fn layered_sandbox() -> Sandbox {
    let sandbox = Sandbox::sqlite();
    sandbox.home.write_config("[execution]\nmax_replan_attempts = 4\n");
    std::fs::write(
        sandbox.project.path().join("switchyard.toml"),
        "# the project's\n[serve]\nport = 9000\ntoken = \"project-secret-1357\"\n\n[[validate.mirrors]]\nsource = \"commands\"\nmirror = \"copy/commands\"\n",
    )
    .unwrap();
    sandbox
}

#[test]
fn config_json_gives_every_value_with_its_source_and_redacts_secrets() {
    let sandbox = layered_sandbox();
    let mut command = sandbox.command(&["--json", "config", "--store", "/elsewhere/store.sqlite3"]);
    command.env("SWITCHYARD_AUDIT_MIN_CONFIDENCE", "0.65").env("SWITCHYARD_SERVE_ALLOWED_HOSTS", "a.example,b.example");
    let ran = support::ran(&command.output().unwrap());
    assert!(!ran.stdout.contains("project-secret-1357"), "{}", ran.stdout);
    let json = ran.ok();
    folders(&sandbox).bind(|| insta::assert_json_snapshot!("config_json", json));
}

#[test]
fn config_text_says_where_each_value_came_from() {
    let sandbox = layered_sandbox();
    let ran = support::ran(
        &sandbox.command(&["config"]).env("SWITCHYARD_EXECUTION_MAX_REVISION_ATTEMPTS", "1").output().unwrap(),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = |key: &str| {
        ran.stdout
            .lines()
            .find(|line| line.starts_with(&format!("{key} ")))
            .unwrap_or_else(|| panic!("{key}: {}", ran.stdout))
            .to_owned()
    };
    let project_file = sandbox.project.path().join("switchyard.toml").display().to_string();
    let fields = |key: &str| line(key).split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(fields("serve.port"), ["serve.port", "9000", &format!("({project_file}:3)")]);
    assert_eq!(fields("serve.token"), ["serve.token", "<redacted>", &format!("({project_file}:4)")]);
    assert_eq!(
        fields("execution.max_revision_attempts"),
        ["execution.max_revision_attempts", "1", "(env", "SWITCHYARD_EXECUTION_MAX_REVISION_ATTEMPTS)"]
    );
    assert_eq!(fields("audit.audit_min_confidence"), ["audit.audit_min_confidence", "0.8", "(default)"]);
    assert!(line("home").ends_with("(env SWITCHYARD_HOME)"));
    assert!(!ran.stdout.contains("project-secret-1357"));
}

#[test]
fn a_bad_configuration_stops_every_command_naming_it_and_the_file_line_and_closest_key() {
    let sandbox = Sandbox::new();
    let file = sandbox.project.path().join("switchyard.toml");
    std::fs::write(&file, "[audit]\naudit_min_confidence = 0.9\n\naudit_min_confidnce = 0.7\n").unwrap();
    let expected = |command: &str| {
        format!(
            "switchyard: `{command}` stopped: {}:4:1: unknown key `audit_min_confidnce` in [audit]; did you mean `audit_min_confidence`?",
            file.display()
        )
    };
    for args in [&["start", "dev-cycle", "--goal", "x"][..], &["list"], &["config"], &["serve"]] {
        let ran = support::ran(&sandbox.command(args).output().unwrap());
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains(&expected(args[0])), "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains("[CONFIG_INVALID]"), "{}", ran.stderr);
    }
    let ran = support::ran(&sandbox.command(&["status", "run_x"]).env("SWITCHYARD_SERVE_PORT", "x").output().unwrap());
    assert!(ran.stderr.contains("switchyard: `status` stopped: "), "{}", ran.stderr);
}

#[test]
fn a_prompt_rule_set_that_cannot_work_stops_every_command_at_the_key_with_one_line() {
    let sandbox = Sandbox::new();
    let file = sandbox.project.path().join("switchyard.toml");
    std::fs::write(
        &file,
        "[[validate.prompts]]\nglob = \"prompts/*.md\"\n[[validate.prompts.fields]]\nname = \"owner\"\ntype = \"string\"\npattern = \"^@(team\"\n",
    )
    .unwrap();
    let located = format!(
        "{}:6:11: [[validate.prompts.fields]] pattern: the pattern of field `owner`, `^@(team`, is no regular expression: unclosed group (at character 3)",
        file.display()
    );
    for args in [&["validate"][..], &["config"], &["list"]] {
        let ran = support::ran(&sandbox.command(args).output().unwrap());
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains(&format!("switchyard: `{}` stopped: {located}", args[0])),
            "{args:?}: {}",
            ran.stderr
        );
        assert!(!ran.stderr.contains("regex parse error"), "{}", ran.stderr);
    }
    let doctor = support::ran(&sandbox.command(&["doctor"]).output().unwrap());
    assert_eq!(doctor.code, 1, "{}", doctor.stdout);
    assert!(doctor.stdout.contains("fail config") && doctor.stdout.contains(&located), "{}", doctor.stdout);
    std::fs::write(&file, "[[validate.prompts]]\nglob = \"prompts/*.md\"\n[[validate.prompts.fields]]\nname = \"stage\"\ntype = \"strng\"\n")
        .unwrap();
    let ran = support::ran(&sandbox.command(&["validate"]).output().unwrap());
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(&format!(
            "switchyard: `validate` stopped: {}:5:8: [[validate.prompts.fields]] type `strng` is no field type; did you mean `string`?",
            file.display()
        )),
        "{}",
        ran.stderr
    );
}
