//! The layering of `switchyard.toml`, the environment and the flags, and the checks of each layer.

use super::*;

#[test]
fn explicit_store_beats_project_file_which_beats_user_file() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    fs::write(home.path().join("switchyard.toml"), "[store]\npath = \"user.sqlite3\"\n").unwrap();
    let resolve = |store: Option<PathBuf>| {
        Config::resolve(Overrides {
            home: Some(home.path().to_owned()),
            store,
            project_root: Some(project.path().to_owned()),
        })
        .unwrap()
        .store_path
    };
    assert_eq!(resolve(None), home.path().join("user.sqlite3"));
    fs::write(project.path().join("switchyard.toml"), "[store]\npath = \"/tmp/p.sqlite3\"\n").unwrap();
    assert_eq!(resolve(None), PathBuf::from("/tmp/p.sqlite3"));
    assert_eq!(resolve(Some("/x.sqlite3".into())), PathBuf::from("/x.sqlite3"));
}

#[test]
fn protected_places_name_the_configuration_the_workflow_folders_the_keys_the_store_and_the_token() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    write_private(&home.path().join("switchyard.toml"), "[serve]\ntoken_file = \"serve-token\"\n");
    let config = resolve_in(home.path(), Some(project.path())).unwrap();
    let places = config.protected_places();
    let (home, project) = (home.path(), project.path());
    let unwritable = [
        project.join("switchyard.toml"),
        project.join(".switchyard"),
        home.join("switchyard.toml"),
        home.join("workflows"),
        home.join("routines"),
        home.join(ATTACHED_SOURCES_FILE),
        home.join("core"),
    ];
    assert_eq!(places.unwritable, unwritable);
    let store = home.join(DEFAULT_STORE_FILE).display().to_string();
    let secret = [
        home.join("keys"),
        PathBuf::from(&store),
        PathBuf::from(format!("{store}-wal")),
        PathBuf::from(format!("{store}-shm")),
        PathBuf::from(format!("{store}-journal")),
        home.join("serve-token"),
    ];
    assert_eq!(places.secret, secret);
}

#[test]
fn audit_execution_and_validate_sections_are_read_with_their_defaults() {
    let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let config = resolve_in(home.path(), Some(project.path())).unwrap();
    assert_eq!(config.audit, AuditConfig { min_confidence: 0.8 });
    assert_eq!(config.execution, ExecutionConfig { max_revision_attempts: 3, max_replan_attempts: 2 });
    assert_eq!(config.validate, ValidateConfig::default());
    fs::write(home.path().join("switchyard.toml"), "[execution]\nmax_replan_attempts = 5\n").unwrap();
    fs::write(
        project.path().join("switchyard.toml"),
        r#"
[audit]
audit_min_confidence = 0.75
[execution]
max_revision_attempts = 4
[[validate.prompts]]
glob = "commands/**/*.md"
preset = "spw-command"
[[validate.prompts.fields]]
name = "model"
required = true
type = "enum"
values = ["haiku", "sonnet", "opus"]
[[validate.mirrors]]
source = "commands"
mirror = "copy-ready/commands"
"#,
    )
    .unwrap();
    let config = resolve_in(home.path(), Some(project.path())).unwrap();
    assert_eq!(config.audit.min_confidence, 0.75);
    assert_eq!(config.execution, ExecutionConfig { max_revision_attempts: 4, max_replan_attempts: 5 });
    let prompts = config.validate.prompts.unwrap();
    assert_eq!((prompts[0].glob.as_str(), prompts[0].preset.as_deref()), ("commands/**/*.md", Some("spw-command")));
    assert_eq!(prompts[0].fields[0].kind, FieldType::Enum);
    assert_eq!(config.validate.mirrors.unwrap()[0].mirror, PathBuf::from("copy-ready/commands"));
    fs::write(project.path().join("switchyard.toml"), "[audit]\naudit_min_confidence = 1.5\n").unwrap();
    let error = resolve_in(home.path(), Some(project.path())).unwrap_err().to_string();
    assert!(error.contains("between 0.0 and 1.0"), "{error}");
}

#[test]
fn a_prompt_rule_set_that_cannot_work_stops_the_configuration_where_it_is_written() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("switchyard.toml");
    let entry = |rest: &str| format!("[[validate.prompts]]\nglob = \"prompts/*.md\"\n{rest}");
    let field = |rest: &str| entry(&format!("[[validate.prompts.fields]]\nname = \"owner\"\n{rest}"));
    // (switchyard.toml, where, what the message says)
    let cases = [
        (
            field("type = \"string\"\npattern = \"^@[a-z\"\n"),
            "6:11",
            "[[validate.prompts.fields]] pattern: the pattern of field `owner`, `^@[a-z`, is no regular expression: unclosed character class (at character 3)",
        ),
        (
            field("type = \"enum\"\n"),
            "5:8",
            "[[validate.prompts.fields]] type: the enum field `owner` lists no values; add them, as in `values = [\"draft\", \"final\"]`",
        ),
        (
            field("type = \"strng\"\n"),
            "5:8",
            "[[validate.prompts.fields]] type `strng` is no field type; did you mean `string`? The types are string, string_array, enum, number, boolean",
        ),
        (
            field("type = \"enum\"\nvalues = \"draft\"\n"),
            "6:10",
            "[[validate.prompts.fields]] values is the text \"draft\", but it takes a list of strings, such as [\"a\", \"b\"]",
        ),
        (
            field("type = \"string\"\nrequired = \"yes\"\n"),
            "6:12",
            "[[validate.prompts.fields]] required is the text \"yes\", but it takes `true` or `false`",
        ),
        (
            "[[validate.prompts]]\nglob = \"prompts/[.md\"\n".to_owned(),
            "2:8",
            "[[validate.prompts]] glob: `prompts/[.md` is no glob: unclosed character class; missing ']'; write one like `commands/**/*.md` (`*` within a folder, `**` across folders)",
        ),
        (
            entry("preset = \"claude-comand\"\n"),
            "3:10",
            "[[validate.prompts]] preset: there is no preset `claude-comand`; did you mean `claude-command`? The presets are claude-command, claude-agent, claude-skill, spw-command",
        ),
    ];
    for (text, at, message) in cases {
        fs::write(&file, &text).unwrap();
        let error = resolve_in(home.path(), None).unwrap_err();
        assert_eq!(error.code(), "CONFIG_INVALID");
        assert_eq!(error.to_string(), format!("{}:{at}: {message}", file.display()), "{text}");
        assert!(!error.to_string().contains('\n'), "one line: {error}");
    }
}

#[test]
fn keep_presets_keeps_the_presets_after_the_configured_rule_sets() {
    let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let configured = "[[validate.prompts]]\nglob = \"prompts/*.md\"\n";
    fs::write(project.path().join("switchyard.toml"), configured).unwrap();
    let names = |config: &Config| rule_set_names(&config.validate);
    let replaced = resolve_in(home.path(), Some(project.path())).unwrap();
    assert!(!replaced.validate.keep_presets);
    assert_eq!(names(&replaced), ["prompts/*.md"]);
    fs::write(home.path().join("switchyard.toml"), "[validate]\nkeep_presets = true\n").unwrap();
    let kept = resolve_in(home.path(), Some(project.path())).unwrap();
    assert_eq!(names(&kept), ["prompts/*.md", "claude-command", "claude-agent", "claude-skill", "spw-command"]);
    assert!(matches!(kept.origin("validate.keep_presets"), Origin::File { line: 2, .. }));
    let variables = [("SWITCHYARD_VALIDATE_KEEP_PRESETS", "false")];
    let unset = resolve_with_environment(home.path(), project.path(), &variables).unwrap();
    assert_eq!(names(&unset), ["prompts/*.md"]);
    // Nothing configured: the presets, whatever `keep_presets` says.
    let none = rule_set_names(&ValidateConfig { keep_presets: true, ..ValidateConfig::default() });
    assert_eq!(none, ["claude-command", "claude-agent", "claude-skill", "spw-command"]);
}

/// The names of the rule sets `validate` applies under `config`.
fn rule_set_names(config: &ValidateConfig) -> Vec<String> {
    prompt_rules::RuleSet::of(config).unwrap().into_iter().map(|set| set.name).collect()
}

#[test]
fn a_misspelled_key_is_an_error_naming_the_file() {
    let home = tempfile::tempdir().unwrap();
    fs::write(home.path().join("switchyard.toml"), "[store]\npaht = \"x\"\n").unwrap();
    let error = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() }).unwrap_err();
    assert!(error.to_string().contains("switchyard.toml"), "{error}");
}

fn resolve_in(home: &Path, project: Option<&Path>) -> Result<Config, Error> {
    Config::resolve(Overrides { home: Some(home.to_owned()), store: None, project_root: project.map(Path::to_owned) })
}

fn write_private(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
fn serve_limits_come_key_by_key_from_the_nearest_file_and_zero_is_refused() {
    let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fs::write(home.path().join("switchyard.toml"), "[serve]\nmax_connections = 50\nmax_sessions = 9\n").unwrap();
    fs::write(project.path().join("switchyard.toml"), "[serve]\nmax_sessions = 4\n").unwrap();
    let limits = resolve_in(home.path(), Some(project.path())).unwrap().serve.limits;
    assert_eq!((limits.max_connections, limits.max_sessions, limits.header_timeout_seconds), (Some(50), Some(4), None));
    fs::write(project.path().join("switchyard.toml"), "[serve]\nheader_timeout_seconds = 0\n").unwrap();
    let error = resolve_in(home.path(), Some(project.path())).unwrap_err().to_string();
    assert!(error.contains("header_timeout_seconds = 0") && error.contains("positive"), "{error}");
}

#[test]
fn serve_settings_come_from_the_project_file_before_the_user_file() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    fs::write(
        home.path().join("switchyard.toml"),
        "[serve]\nhost = \"0.0.0.0\"\nport = 9000\ntoken_file = \"user-token\"\n",
    )
    .unwrap();
    let serve = resolve_in(home.path(), Some(project.path())).unwrap().serve;
    assert_eq!(serve.host, Some("0.0.0.0".parse().unwrap()));
    assert_eq!(serve.port, Some(9000));
    assert!(
        matches!(&serve.token, Some(ServeTokenSource::File(path)) if *path == home.path().join("user-token")),
        "a relative token_file is relative to its switchyard.toml: {serve:?}"
    );
    fs::write(project.path().join("switchyard.toml"), "[serve]\nport = 9100\ntoken_file = \"/etc/sy-token\"\n")
        .unwrap();
    let serve = resolve_in(home.path(), Some(project.path())).unwrap().serve;
    assert_eq!((serve.host, serve.port), (Some("0.0.0.0".parse().unwrap()), Some(9100)));
    assert!(matches!(&serve.token, Some(ServeTokenSource::File(path)) if *path == Path::new("/etc/sy-token")));
}

#[test]
fn a_token_file_is_read_trimmed_and_refused_when_open_to_others_or_empty() {
    let home = tempfile::tempdir().unwrap();
    let token_file = home.path().join("serve-token");
    write_private(&token_file, "  file-secret-1234\n");
    fs::write(home.path().join("switchyard.toml"), "[serve]\ntoken_file = \"serve-token\"\n").unwrap();
    let source = resolve_in(home.path(), None).unwrap().serve.token.unwrap();
    assert_eq!(source.read().unwrap().expose(), "file-secret-1234");
    fs::set_permissions(&token_file, fs::Permissions::from_mode(0o640)).unwrap();
    let open = source.read().unwrap_err().to_string();
    assert!(open.contains("open to other users (mode 640)") && open.contains("chmod 600"), "{open}");
    assert!(!open.contains("file-secret-1234"), "{open}");
    write_private(&token_file, "\n");
    let empty = source.read().unwrap_err().to_string();
    assert!(empty.contains("is empty"), "{empty}");
    fs::remove_file(&token_file).unwrap();
    assert!(source.read().unwrap_err().to_string().contains("cannot read"));
    assert!(resolve_in(home.path(), None).is_ok(), "a missing token file stops only `serve`");
}

#[test]
fn an_inline_token_needs_a_config_file_only_its_owner_can_read() {
    let home = tempfile::tempdir().unwrap();
    let config_file = home.path().join("switchyard.toml");
    fs::write(&config_file, "[serve]\ntoken = \"inline-secret-5678\"\n").unwrap();
    fs::set_permissions(&config_file, fs::Permissions::from_mode(0o644)).unwrap();
    let source = resolve_in(home.path(), None).unwrap().serve.token.unwrap();
    let refused = source.read().unwrap_err().to_string();
    assert!(refused.contains("open to other users (mode 644)"), "{refused}");
    assert!(refused.contains("chmod 600") && refused.contains("token_file"), "says how to fix it: {refused}");
    assert!(!refused.contains("inline-secret-5678"), "{refused}");
    fs::set_permissions(&config_file, fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(source.read().unwrap().expose(), "inline-secret-5678");
}

#[test]
fn serve_token_and_token_file_together_or_an_empty_token_are_refused() {
    let home = tempfile::tempdir().unwrap();
    let config_file = home.path().join("switchyard.toml");
    write_private(&config_file, "[serve]\ntoken = \"a\"\ntoken_file = \"b\"\n");
    let both = resolve_in(home.path(), None).unwrap_err().to_string();
    assert!(both.contains("both [serve] token_file and [serve] token"), "{both}");
    write_private(&config_file, "[serve]\ntoken = \" \"\n");
    let empty = resolve_in(home.path(), None).unwrap_err().to_string();
    assert!(empty.contains("empty [serve] token"), "{empty}");
}

#[test]
fn serve_allowed_lists_come_whole_from_the_nearest_file_that_sets_them() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    fs::write(
            home.path().join("switchyard.toml"),
            "[serve]\nallowed_hosts = [\"user.example\", \"user.example:7878\"]\nallowed_origins = [\"https://user.example\"]\n",
        )
        .unwrap();
    let serve = resolve_in(home.path(), Some(project.path())).unwrap().serve;
    assert_eq!(serve.allowed_hosts.as_deref(), Some(&["user.example".to_owned(), "user.example:7878".to_owned()][..]));
    assert_eq!(serve.allowed_origins.as_deref(), Some(&["https://user.example".to_owned()][..]));
    fs::write(project.path().join("switchyard.toml"), "[serve]\nallowed_hosts = [\"project.example\"]\n").unwrap();
    let serve = resolve_in(home.path(), Some(project.path())).unwrap().serve;
    assert_eq!(serve.allowed_hosts.as_deref(), Some(&["project.example".to_owned()][..]), "replaced, not merged");
    assert_eq!(serve.allowed_origins.as_deref(), Some(&["https://user.example".to_owned()][..]), "field by field");
    fs::write(project.path().join("switchyard.toml"), "[serve]\nallowed_hosts = []\n").unwrap();
    let serve = resolve_in(home.path(), Some(project.path())).unwrap().serve;
    assert_eq!(serve.allowed_hosts.as_deref(), Some(&[][..]), "an empty list is a setting too");
}

/// Resolves a home whose `switchyard.toml` holds `serve_section`, and returns the error.
fn serve_error(serve_section: &str) -> String {
    let home = tempfile::tempdir().unwrap();
    fs::write(home.path().join("switchyard.toml"), format!("[serve]\n{serve_section}\n")).unwrap();
    let error = resolve_in(home.path(), None).unwrap_err().to_string();
    let file = home.path().join("switchyard.toml").display().to_string();
    error.strip_prefix(&file).unwrap_or_else(|| panic!("the message starts with the file: {error}")).to_owned()
}

#[test]
fn allowed_entries_that_can_never_match_are_refused_naming_the_file_the_key_and_the_fix() {
    let check = |serve_section: &str, expected: &str| assert_eq!(serve_error(serve_section), expected);
    check(
        r#"allowed_hosts = [""]"#,
        " [serve] allowed_hosts: an empty entry matches no request: remove it, or write a host name such as `app.example`",
    );
    check(
        r#"allowed_hosts = ["https://app.example:8443/mcp"]"#,
        " [serve] allowed_hosts: `https://app.example:8443/mcp` is a URL, but a Host header holds only the name and port: write `app.example:8443`",
    );
    check(
        r#"allowed_hosts = ["app example"]"#,
        " [serve] allowed_hosts: `app example` is not a host: write a name or name:port, such as `app.example` or `app.example:7878`",
    );
    check(
        r#"allowed_origins = [" "]"#,
        " [serve] allowed_origins: an empty entry matches no browser: remove it, or write an origin such as `https://app.example`",
    );
    check(
        r#"allowed_origins = ["app.example:5173"]"#,
        " [serve] allowed_origins: `app.example:5173` has no scheme: write the origin as browsers send it, scheme://host[:port], such as `https://app.example:5173`",
    );
    check(
        r#"allowed_origins = ["https://app.example/"]"#,
        " [serve] allowed_origins: `https://app.example/` has a path, but browsers send an origin without one: write `https://app.example`",
    );
    check(
        r#"allowed_origins = ["://app.example"]"#,
        " [serve] allowed_origins: `://app.example` is not an origin: write scheme://host[:port], such as `https://app.example`",
    );
}

#[test]
fn allowed_entries_as_clients_send_them_pass() {
    let hosts = ["app.example", "app.example:7878", "[::1]:7878", "10.0.0.5"].map(str::to_owned);
    let origins = ["https://app.example", "http://10.0.0.5:5173", "vscode-webview://abc123"].map(str::to_owned);
    check_allowed_hosts(&hosts, "--allowed-host").unwrap();
    check_allowed_origins(&origins, "--allowed-origin").unwrap();
    let flag = check_allowed_origins(&["app.example".to_owned()], "--allowed-origin").unwrap_err().to_string();
    assert!(flag.contains("--allowed-origin: `app.example` has no scheme"), "{flag}");
}

#[test]
fn debug_output_of_the_config_never_shows_the_token() {
    let home = tempfile::tempdir().unwrap();
    write_private(&home.path().join("switchyard.toml"), "[serve]\ntoken = \"inline-secret-5678\"\n");
    let config = resolve_in(home.path(), None).unwrap();
    let debug = format!("{config:?}");
    assert!(!debug.contains("inline-secret-5678"), "{debug}");
    assert!(debug.contains("[serve] token in"), "{debug}");
}

/// Resolves `home` and `project` under `variables` as the only environment.
fn resolve_with_environment(home: &Path, project: &Path, variables: &[(&str, &str)]) -> Result<Config, Error> {
    Config::resolve_with(
        Overrides { home: Some(home.to_owned()), store: None, project_root: Some(project.to_owned()) },
        &Environment::from_pairs(variables.iter().copied()),
    )
}

#[test]
fn an_unknown_key_names_the_file_the_line_the_column_and_the_closest_key_even_in_a_shadowed_file() {
    let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let user_file = home.path().join("switchyard.toml");
    fs::write(&user_file, "# mine\n[store]\npath = \"a\"\n[audit]\n   audit_min_confidnce = 0.7\n").unwrap();
    fs::write(project.path().join("switchyard.toml"), "[audit]\naudit_min_confidence = 0.9\n").unwrap();
    let error = resolve_in(home.path(), Some(project.path())).unwrap_err();
    assert_eq!(error.code(), "CONFIG_INVALID");
    assert_eq!(
        error.to_string(),
        format!(
            "{}:5:4: unknown key `audit_min_confidnce` in [audit]; did you mean `audit_min_confidence`?",
            user_file.display()
        )
    );
    fs::write(&user_file, "[adit]\n").unwrap();
    let section = resolve_in(home.path(), Some(project.path())).unwrap_err().to_string();
    assert!(section.ends_with(":1:2: unknown section [adit]; did you mean [audit]?"), "{section}");
    fs::write(
        &user_file,
        "[[validate.prompts]]\nglob = \"*.md\"\n[[validate.prompts.fields]]\nname = \"x\"\ntpye = \"string\"\n",
    )
    .unwrap();
    let nested = resolve_in(home.path(), Some(project.path())).unwrap_err().to_string();
    assert!(
        nested.ends_with(":5:1: unknown key `tpye` in [[validate.prompts.fields]]; did you mean `type`?"),
        "{nested}"
    );
    fs::write(&user_file, "output_root = \"runs\"\n").unwrap();
    let top = resolve_in(home.path(), Some(project.path())).unwrap_err().to_string();
    assert!(
        top.ends_with(":1:1: unknown key `output_root` outside any section; did you mean `output_root` under [runs]?"),
        "{top}"
    );
    fs::write(&user_file, "[serve]\nzzz = 1\n").unwrap();
    let far = resolve_in(home.path(), Some(project.path())).unwrap_err().to_string();
    assert!(far.contains("unknown key `zzz` in [serve]; the keys of [serve] are `host`, `port`"), "{far}");
}

#[test]
fn a_value_of_the_wrong_type_names_the_file_the_line_and_the_key() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("switchyard.toml");
    fs::write(&file, "[serve]\nhost = \"127.0.0.1\"\nport = \"eighty\"\n").unwrap();
    let error = resolve_in(home.path(), None).unwrap_err().to_string();
    let expected = format!("{}:3:8: [serve] port is the text \"eighty\", but it takes a whole number", file.display());
    assert_eq!(error, expected);
    // In switchyard's words, never serde's (`invalid type: string`, `expected f64`).
    for (text, at, message) in [
        (
            "[serve]\nport = 70000\n",
            "2:8",
            "[serve] port: `70000` is out of range: it takes a whole number from 0 to 65535",
        ),
        (
            "[audit]\naudit_min_confidence = \"high\"\n",
            "2:24",
            "[audit] audit_min_confidence is the text \"high\", but it takes a number such as 0.8",
        ),
        (
            "[files]\nproject_writable = \"yes\"\n",
            "2:20",
            "[files] project_writable is the text \"yes\", but it takes `true` or `false`",
        ),
        (
            "[serve]\nallowed_hosts = \"a.example\"\n",
            "2:17",
            "[serve] allowed_hosts is the text \"a.example\", but it takes a list of strings, such as [\"a\", \"b\"]",
        ),
        (
            "[serve]\nallowed_hosts = [\"a\", 2]\n",
            "2:23",
            "item 2 of [serve] allowed_hosts is the whole number 2, but each item is text in quotes",
        ),
        ("[serve]\ntoken = 12345\n", "2:9", "[serve] token is the whole number 12345, but it takes text in quotes"),
        (
            "[validate]\nprompts = \"x\"\n",
            "2:11",
            "[validate] prompts is the text \"x\", but it takes a list of tables, each written as a [[…]] section",
        ),
        (
            "[[validate.mirrors]]\nsource = 1\nmirror = \"b\"\n",
            "2:10",
            "[[validate.mirrors]] source is the whole number 1, but it takes a path in quotes",
        ),
    ] {
        fs::write(&file, text).unwrap();
        let error = resolve_in(home.path(), None).unwrap_err().to_string();
        assert_eq!(error, format!("{}:{at}: {message}", file.display()), "{text}");
        for serde in ["invalid type", "invalid value", "expected u16", "expected f64", "expected a"] {
            assert!(!error.contains(serde), "{error}");
        }
    }
    fs::write(&file, "[serve\n").unwrap();
    let syntax = resolve_in(home.path(), None).unwrap_err().to_string();
    assert!(
        syntax.starts_with(&format!("{}:1:", file.display())) && syntax.contains("fix the TOML syntax"),
        "{syntax}"
    );
}

#[test]
fn the_environment_overrides_the_files_and_the_flags_override_the_environment() {
    let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fs::write(
        project.path().join("switchyard.toml"),
        "[audit]\naudit_min_confidence = 0.9\n[serve]\nport = 9000\nallowed_hosts = [\"file.example\"]\n[store]\npath = \"p.sqlite3\"\n",
    )
    .unwrap();
    let variables = [
        ("SWITCHYARD_AUDIT_MIN_CONFIDENCE", "0.5"),
        ("SWITCHYARD_SERVE_PORT", "9100"),
        ("SWITCHYARD_EXECUTION_MAX_REVISION_ATTEMPTS", "1"),
        ("SWITCHYARD_SERVE_ALLOWED_HOSTS", "a.example, b.example:7878"),
        ("SWITCHYARD_FILES_PROJECT_WRITABLE", "true"),
        ("SWITCHYARD_STORE", "/env/store.sqlite3"),
        ("SWITCHYARD_RUNS_OUTPUT_ROOT", ""),
    ];
    let config = resolve_with_environment(home.path(), project.path(), &variables).unwrap();
    assert_eq!(config.audit.min_confidence, 0.5);
    assert_eq!(config.serve.port, Some(9100));
    assert_eq!(config.execution, ExecutionConfig { max_revision_attempts: 1, max_replan_attempts: 2 });
    assert_eq!(config.serve.allowed_hosts, Some(vec!["a.example".to_owned(), "b.example:7878".to_owned()]));
    assert!(config.project_writable);
    assert_eq!(config.store_path, PathBuf::from("/env/store.sqlite3"));
    assert_eq!(config.output_root, home.path().join("runs"), "an empty variable is unset");
    assert_eq!(
        config.origin("audit.audit_min_confidence"),
        Origin::Environment("SWITCHYARD_AUDIT_MIN_CONFIDENCE".into())
    );
    assert_eq!(config.origin("store.path"), Origin::Environment("SWITCHYARD_STORE".into()));
    assert_eq!(config.origin("home"), Origin::Flag("--home"));
    assert_eq!(config.origin("execution.max_replan_attempts"), Origin::Default);
    let flagged = Config::resolve_with(
        Overrides { home: None, store: Some("/flag.sqlite3".into()), project_root: Some(project.path().to_owned()) },
        &Environment::from_pairs([
            ("SWITCHYARD_HOME", home.path().to_str().unwrap()),
            ("SWITCHYARD_STORE", "/env.sqlite3"),
        ]),
    )
    .unwrap();
    assert_eq!(flagged.store_path, PathBuf::from("/flag.sqlite3"));
    assert_eq!((flagged.origin("store.path"), flagged.home.as_path()), (Origin::Flag("--store"), home.path()));
    assert_eq!(flagged.origin("home"), Origin::Environment("SWITCHYARD_HOME".into()));
    let from_file = resolve_with_environment(home.path(), project.path(), &[]).unwrap();
    let file = project.path().join("switchyard.toml");
    assert_eq!(from_file.origin("serve.port"), Origin::File { path: file.clone(), line: 4, column: 1 });
    assert_eq!(from_file.origin("serve.port").to_string(), format!("{}:4", file.display()));
}

#[test]
fn a_bad_value_in_a_variable_is_an_error_naming_the_variable() {
    let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let check = |variable: &str, value: &str, expected: &str| {
        let error = resolve_with_environment(home.path(), project.path(), &[(variable, value)]).unwrap_err();
        assert_eq!(error.code(), "CONFIG_INVALID");
        assert_eq!(error.to_string(), expected);
    };
    check(
        "SWITCHYARD_SERVE_PORT",
        "eighty",
        "the environment variable SWITCHYARD_SERVE_PORT = `eighty` is not a valid [serve] port: expected a whole number; fix or unset it",
    );
    check(
        "SWITCHYARD_SERVE_PORT",
        "70000",
        "the environment variable SWITCHYARD_SERVE_PORT = `70000` is not a valid [serve] port: `70000` is out of range: it takes a whole number from 0 to 65535; fix or unset it",
    );
    check(
        "SWITCHYARD_FILES_PROJECT_WRITABLE",
        "yes",
        "the environment variable SWITCHYARD_FILES_PROJECT_WRITABLE = `yes` is not a valid [files] project_writable: expected `true` or `false`; fix or unset it",
    );
    check(
        "SWITCHYARD_AUDIT_MIN_CONFIDENCE",
        "1.5",
        "SWITCHYARD_AUDIT_MIN_CONFIDENCE sets [audit] audit_min_confidence = 1.5, but a confidence is between 0.0 and 1.0: set a value in that range, or remove the line for the default 0.8",
    );
    check(
        "SWITCHYARD_SERVE_ALLOWED_ORIGINS",
        "https://a.example,app.example",
        "SWITCHYARD_SERVE_ALLOWED_ORIGINS [serve] allowed_origins: `app.example` has no scheme: write the origin as browsers send it, scheme://host[:port], such as `https://app.example`",
    );
    check(
        "SWITCHYARD_SERVE_MAX_SESSIONS",
        "0",
        "SWITCHYARD_SERVE_MAX_SESSIONS sets [serve] max_sessions = 0, which would refuse every client: set a positive number, or remove the line for the default",
    );
    let both = resolve_with_environment(
        home.path(),
        project.path(),
        &[("SWITCHYARD_STORE", "/a.sqlite3"), ("SWITCHYARD_STORE_PATH", "/b.sqlite3")],
    )
    .unwrap_err()
    .to_string();
    assert!(both.contains("SWITCHYARD_STORE_PATH and SWITCHYARD_STORE name different stores"), "{both}");
}

#[test]
fn a_token_from_the_environment_beats_the_files_and_never_shows() {
    let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_private(&home.path().join("switchyard.toml"), "[serve]\ntoken_file = \"serve-token\"\n");
    let environment = Environment::from_pairs([("SWITCHYARD_SERVE_TOKEN", "env-secret-4321")]);
    let config = Config::resolve_with(
        Overrides { home: Some(home.path().to_owned()), store: None, project_root: Some(project.path().to_owned()) },
        &environment,
    )
    .unwrap();
    let source = config.serve.token.clone().unwrap();
    assert_eq!(source.describe(), "SWITCHYARD_SERVE_TOKEN");
    assert_eq!(source.read().unwrap().expose(), "env-secret-4321");
    for shown in [format!("{config:?}"), format!("{environment:?}"), format!("{:?}", config.settings(&str::to_owned))] {
        assert!(!shown.contains("env-secret-4321"), "{shown}");
    }
    assert_eq!(config.origin("serve.token"), Origin::Environment("SWITCHYARD_SERVE_TOKEN".into()));
    assert_eq!(config.origin("serve.token_file"), Origin::Default, "shadowed by the variable");
    let both = [("SWITCHYARD_SERVE_TOKEN", "env-secret-4321"), ("SWITCHYARD_SERVE_TOKEN_FILE", "/t")];
    let error = resolve_with_environment(home.path(), project.path(), &both).unwrap_err().to_string();
    assert!(
        error.contains("both SWITCHYARD_SERVE_TOKEN_FILE and SWITCHYARD_SERVE_TOKEN") && !error.contains("env-secret"),
        "{error}"
    );
}

#[test]
fn the_configuration_docs_list_every_key_with_its_variable() {
    let docs = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md")).unwrap();
    for key in keys::KEYS {
        let row = match key.kind {
            keys::Kind::Tables => format!("[[{}.{}]]", key.section, key.name),
            _ => format!("`[{}] {}`", key.section, key.name),
        };
        assert!(docs.contains(&row), "docs/configuration.md has no row for `{}`", key.dotted());
        if let Some(variable) = key.variable() {
            assert!(docs.contains(&format!("`{variable}`")), "docs/configuration.md does not name {variable}");
        }
    }
}

#[test]
fn a_store_url_comes_from_the_flag_or_the_file_and_is_never_shown_with_its_password() {
    let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let url = "postgres://team:hunter2-secret@db.example:5433/teamstore";
    write_private(&project.path().join("switchyard.toml"), &format!("[store]\nurl = \"{url}\"\n"));
    let from_file = resolve_in(home.path(), Some(project.path())).unwrap();
    assert_eq!(from_file.store_url.as_ref().map(Secret::expose), Some(url));
    assert!(matches!(from_file.origin("store.url"), Origin::File { .. }));
    // The settings show the URL as the runtime describes it, which drops the password.
    let shown = format!("{from_file:?} {:?}", from_file.settings(&|url: &str| url.replace(":hunter2-secret", "")));
    assert!(!shown.contains("hunter2-secret"), "{shown}");
    assert!(shown.contains("postgres://team@db.example:5433/teamstore"), "{shown}");

    let flagged = Config::resolve(Overrides {
        home: Some(home.path().to_owned()),
        store: Some("postgresql://other@localhost/elsewhere".into()),
        project_root: Some(project.path().to_owned()),
    })
    .unwrap();
    assert_eq!(flagged.store_url.as_ref().map(Secret::expose), Some("postgresql://other@localhost/elsewhere"));
    assert_eq!(flagged.origin("store.url"), Origin::Flag("--store"));
    assert_eq!(flagged.origin("store.path"), Origin::Default, "a URL is no store file");

    write_private(&project.path().join("switchyard.toml"), "[store]\nurl = \"mysql://db.example/x\"\n");
    let error = resolve_in(home.path(), Some(project.path())).unwrap_err();
    assert_eq!(error.code(), "CONFIG_INVALID", "{error}");
    assert!(error.to_string().contains("[store] url is not a PostgreSQL URL"), "{error}");
}

#[test]
fn a_store_file_named_nearer_beats_a_database_url_named_farther() {
    let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let url = "postgres://team@db.example:5433/teamstore";
    write_private(&home.path().join("switchyard.toml"), &format!("[store]\nurl = \"{url}\"\n"));
    assert_eq!(
        resolve_in(home.path(), Some(project.path())).unwrap().store_url.as_ref().map(Secret::expose),
        Some(url)
    );

    let flagged = Config::resolve(Overrides {
        home: Some(home.path().to_owned()),
        store: Some("/flag.sqlite3".into()),
        project_root: Some(project.path().to_owned()),
    })
    .unwrap();
    assert!(flagged.store_url.is_none(), "--store with a file opens that file, not the user file's database");
    assert_eq!(flagged.store_path, PathBuf::from("/flag.sqlite3"));
    assert_eq!(flagged.origin("store.url"), Origin::Default);

    let variable =
        resolve_with_environment(home.path(), project.path(), &[("SWITCHYARD_STORE", "/env.sqlite3")]).unwrap();
    assert!(variable.store_url.is_none(), "the variable is nearer than the user file");
    assert_eq!(variable.store_path, PathBuf::from("/env.sqlite3"));
    assert_eq!(variable.origin("store.url"), Origin::Default, "a shadowed URL is not shown as the store");

    fs::write(project.path().join("switchyard.toml"), "[store]\npath = \"project.sqlite3\"\n").unwrap();
    let project_file = resolve_in(home.path(), Some(project.path())).unwrap();
    assert!(project_file.store_url.is_none(), "the project file is nearer than the user file");
    assert_eq!(project_file.store_path, project.path().join("project.sqlite3"));
}
