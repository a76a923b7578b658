//! What a person reads: every table and message of the text output, through the real binary,
//! snapshotted with ids, tokens, times and folders made stable, so a change in what a person reads
//! shows in review. Colour is asserted apart: codes only where asked for, never in JSON.

mod support;

use support::{Ran, Sandbox, continue_token, redactions, string};

/// A small workflow with a check that blocks a careless report, then a gate a human approves.
const GREETING: &str = include_str!("support/greeting.yaml");

/// The text output of `switchyard <args>` at UTC, without colour unless the arguments ask.
fn text(sandbox: &Sandbox, args: &[&str]) -> Ran {
    support::ran(&sandbox.command(args).env("TZ", "UTC").output().expect("the switchyard binary runs"))
}

/// The shared redactions plus what only text shows: local times, ages, hashes, and the project
/// folder's name (the workspace column). Every replacement has one width wherever it stands, so
/// the columns of a table stay as they were.
fn settings(sandbox: &Sandbox) -> insta::Settings {
    let mut settings = redactions(&[sandbox.home.path(), sandbox.project.path()]);
    settings.add_filter(r"\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\b", "[local time]       ");
    // An age in a table is padded to 8 characters, then 2 spaces before the next column.
    settings.add_filter(r"\b(?:just now|\d+[smhd] ago) +", "[age]     ");
    settings.add_filter(r"\b(?:just now|\d+[smhd] ago)", "[age]");
    settings.add_filter(r"sha256:[0-9a-f]{64}", "sha256:[hash]");
    let folder = sandbox.project.path().file_name().unwrap().to_string_lossy().into_owned();
    settings.add_filter(&regex_escape(&folder), "[project]");
    settings
}

/// A temporary folder's name as a pattern: letters, digits and dots.
fn regex_escape(text: &str) -> String {
    text.replace('.', "\\.")
}

fn ok(ran: &Ran) -> &str {
    assert_eq!(ran.code, 0, "stdout:\n{}\nstderr:\n{}", ran.stdout, ran.stderr);
    &ran.stdout
}

#[test]
fn a_run_from_start_to_finish_reads_as_a_person_expects() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("greeting.yaml", GREETING);
    let settings = settings(&sandbox);

    let started = text(&sandbox, &["start", "greeting", "--goal", "Greet new contributors in the README"]);
    let start = sandbox.run(&["show", &last_run(&sandbox)]).ok();
    let blocked = text(&sandbox, &["continue", &continue_token(&start), "--notes", "Welcome aboard!"]);
    assert_eq!(blocked.code, 1, "a blocked attempt exits 1: {blocked:?}");
    let retry = sandbox.run(&["show", &string(&start["run"])]).ok();
    let drafted = text(&sandbox, &["continue", &continue_token(&retry), "--notes", "Welcome, and hello!"]);
    let review = sandbox.run(&["show", &string(&start["run"])]).ok();
    let gated = text(&sandbox, &["continue", &continue_token(&review), "--notes", "Reads warmly."]);
    let run = string(&start["run"]);
    let status_waiting = text(&sandbox, &["status", &run]);
    let approved = text(&sandbox, &["approve", &run]);
    let status_completed = text(&sandbox, &["status", &run]);
    let sessions = text(&sandbox, &["sessions"]);
    let log = text(&sandbox, &["log", &run]);

    settings.bind(|| {
        insta::assert_snapshot!("text_start", ok(&started));
        insta::assert_snapshot!("text_blocked", blocked.stdout);
        insta::assert_snapshot!("text_drafted", ok(&drafted));
        insta::assert_snapshot!("text_gate_waiting", ok(&gated));
        insta::assert_snapshot!("text_status_waiting_gate", ok(&status_waiting));
        insta::assert_snapshot!("text_approved", ok(&approved));
        insta::assert_snapshot!("text_status_completed", ok(&status_completed));
        insta::assert_snapshot!("text_sessions", ok(&sessions));
        insta::assert_snapshot!("text_log", ok(&log));
    });
}

fn last_run(sandbox: &Sandbox) -> String {
    string(&sandbox.run(&["sessions", "--limit", "1"]).ok()[0]["run"])
}

#[test]
fn status_text_uses_the_words_of_json() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "Add a --verbose flag"]).ok();
    let run = string(&start["run"]);
    let json = sandbox.run(&["status", &run]).ok();
    let status = text(&sandbox, &["status", &run]);
    let shown = ok(&status);
    assert_eq!(json["control"], "running");
    assert!(shown.contains("active · control running"), "{shown}");
    assert!(!shown.contains("Running"), "one vocabulary: {shown}");
    assert!(shown.contains("failed attempts 0 of 3") && shown.contains("cycles 0 of 10"), "{shown}");
}

#[test]
fn log_shows_local_times_not_epoch_milliseconds() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "Log me"]).ok();
    let run = string(&start["run"]);
    let at_ms = sandbox.run(&["log", &run]).ok()[0]["at_ms"].as_i64().unwrap();
    let log = text(&sandbox, &["log", &run]);
    let shown = ok(&log);
    assert!(!shown.contains(&at_ms.to_string()), "{shown}");
    let expected = jiff_free_utc(at_ms);
    assert!(shown.contains(&expected), "the event's time at UTC, {expected}:\n{shown}");
}

/// `YYYY-MM-DD HH:MM:SS` at UTC, computed by hand so the test does not share the code it checks.
fn jiff_free_utc(at_ms: i64) -> String {
    let seconds = at_ms.div_euclid(1000);
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}", rest / 3600, rest % 3600 / 60, rest % 60)
}

#[test]
fn sessions_is_a_table_with_a_header_and_sensible_goals() {
    let sandbox = Sandbox::new();
    assert_eq!(
        ok(&text(&sandbox, &["sessions"])).trim(),
        "no sessions (start one with `switchyard start <workflow> --goal \"…\"`)"
    );
    let long_goal = "Rewrite the greeter so that it reads its greetings from a file, \
                     with a fallback\nand a second line nobody needs in a table";
    sandbox.run(&["start", "dev-cycle", "--goal", long_goal]).ok();
    sandbox.run(&["start", "code-review", "--goal", "Review it"]).ok();
    let sessions = text(&sandbox, &["sessions"]);
    let shown = ok(&sessions);
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 3, "{shown}");
    assert!(lines[0].starts_with("SESSION") && lines[0].contains("STATUS") && lines[0].contains("GOAL"), "{shown}");
    // Aligned: every column starts where its header does.
    let column = lines[0].find("WORKFLOW").unwrap();
    assert!(
        lines[1..]
            .iter()
            .all(|line| line[column..].starts_with("code-review") || line[column..].starts_with("dev-cycle")),
        "{shown}"
    );
    assert!(
        shown.contains("Rewrite the greeter so that it reads its…"),
        "cut at a word, within 48 characters: {shown}"
    );
    assert!(!shown.contains("nobody needs"), "{shown}");
}

#[test]
fn sessions_filtered_to_nothing_say_so_and_a_wrong_status_lists_the_statuses() {
    let sandbox = Sandbox::new();
    sandbox.run(&["start", "dev-cycle", "--goal", "One session"]).ok();
    let none = text(&sandbox, &["sessions", "--status", "completed"]);
    let shown = ok(&none).trim();
    assert!(shown.starts_with("no sessions match --status completed"), "not as if there were none: {shown}");
    assert!(shown.contains("`switchyard sessions` lists every one"), "{shown}");
    let wrong = text(&sandbox, &["sessions", "--status", "bogus"]);
    assert_eq!(wrong.code, 2, "{wrong:?}");
    for status in
        ["active", "waiting_gate", "blocked", "paused", "waiting_for_human_decision", "completed", "stopped", "failed"]
    {
        assert!(wrong.stderr.contains(status), "{status} is listed: {}", wrong.stderr);
    }
    assert_eq!(ok(&text(&sandbox, &["sessions", "--status", "active"])).lines().count(), 2, "a header and the session");
}

#[test]
fn tool_list_prints_a_list_for_people_and_json_on_request() {
    let sandbox = Sandbox::new();
    let listed = text(&sandbox, &["tool", "list"]);
    let shown = ok(&listed);
    assert!(serde_json::from_str::<serde_json::Value>(shown).is_err(), "not JSON without --json: {shown}");
    let json = sandbox.run(&["tool", "list"]).ok();
    assert!(json.as_array().is_some_and(|tools| tools.iter().any(|tool| tool["name"] == "read_file")), "{json}");
    insta::with_settings!({ prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("text_tool_list", shown);
    });
}

#[test]
fn help_keeps_global_options_apart_from_the_commands_own() {
    let sandbox = Sandbox::new();
    let help = text(&sandbox, &["continue", "--help"]);
    let shown = ok(&help);
    let own = shown.find("Options:").expect("the command's own options");
    let global = shown.find("Global options:").expect("a Global options heading");
    assert!(own < global, "{shown}");
    assert!(shown[own..global].contains("--notes-file") && !shown[own..global].contains("--json"), "{shown}");
    assert!(shown[global..].contains("--json") && shown[global..].contains("--color"), "{shown}");
    settings(&sandbox).bind(|| insta::assert_snapshot!("text_continue_help", shown));
}

#[test]
fn help_and_usage_errors_follow_the_color_option() {
    let sandbox = Sandbox::new();
    for arguments in [&["continue", "--help", "--color", "always"][..], &["--color=always", "continue", "--help"]] {
        let help = text(&sandbox, arguments);
        assert!(ok(&help).contains("\x1b["), "{arguments:?} paints the help: {:?}", help.stdout);
    }
    let plain = text(&sandbox, &["--color", "never", "continue", "--help"]);
    assert!(!ok(&plain).contains('\x1b'), "{:?}", plain.stdout);
    let refused = text(&sandbox, &["--color", "always", "continue"]);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("\x1b["), "the usage error is painted too: {:?}", refused.stderr);
}

#[test]
fn colour_always_paints_headings_statuses_ids_and_the_next_hint() {
    let sandbox = Sandbox::new();
    let start = text(&sandbox, &["--color", "always", "start", "dev-cycle", "--goal", "Colour me"]);
    let started = ok(&start);
    assert!(started.contains("\x1b[34mactive\x1b[0m"), "a coloured status: {started:?}");
    assert!(
        started.contains("\x1b[32m\x1b[1mNext:\x1b[0m") || started.contains("\x1b[1m\x1b[32mNext:\x1b[0m"),
        "{started:?}"
    );
    assert!(started.contains("\x1b[36mrun_"), "a coloured run id: {started:?}");
    let sessions = text(&sandbox, &["--color", "always", "sessions"]);
    let table = ok(&sessions);
    assert!(table.starts_with("\x1b[1mSESSION\x1b[0m"), "a bold header: {table:?}");
    assert!(table.contains("\x1b[36msess_"), "{table:?}");
    // Colour codes take no room: the columns line up as without them.
    let plain = text(&sandbox, &["--color", "never", "sessions"]);
    assert_eq!(strip_ansi(table), ok(&plain));
}

#[test]
fn colour_never_no_color_pipes_and_json_stay_plain() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "Plain"]).ok();
    let run = string(&start["run"]);
    for args in [
        vec!["--color", "never", "status", &run],
        vec!["status", &run],
        vec!["sessions"],
        vec!["--color", "always", "--json", "status", &run],
        vec!["--color", "always", "--json", "sessions"],
    ] {
        let shown = text(&sandbox, &args);
        assert!(!ok(&shown).contains('\x1b'), "`{}` printed colour codes:\n{:?}", args.join(" "), shown.stdout);
    }
    // `auto` on a pipe, even without NO_COLOR.
    let piped = support::ran(&sandbox.command(&["sessions"]).env_remove("NO_COLOR").output().unwrap());
    assert!(!ok(&piped).contains('\x1b'), "{:?}", piped.stdout);
}

#[test]
fn errors_on_stderr_follow_the_color_option_with_the_proposed_command_painted() {
    let sandbox = Sandbox::new();
    let run = string(&sandbox.run(&["start", "dev-cycle", "--goal", "Colour my errors"]).ok()["run"]);
    let refused = |colour: &str| text(&sandbox, &["--color", colour, "continue", &run, "--notes", "x"]);
    let painted = refused("always");
    assert_eq!(painted.code, 2, "{painted:?}");
    assert!(
        painted.stderr.starts_with("\x1b[1m\x1b[31mswitchyard:\x1b[0m "),
        "a bold red prefix: {:?}",
        painted.stderr
    );
    // The command the message proposes, painted as the `Next:` hint; the run id before it is not.
    assert!(painted.stderr.contains(&format!("`\x1b[1m\x1b[32mswitchyard show {run}\x1b[0m`")), "{:?}", painted.stderr);
    assert!(painted.stderr.contains(&format!(" `{run}` is a run id")), "{:?}", painted.stderr);
    assert!(painted.stderr.trim_end().ends_with("\x1b[31m[ID_NOT_TOKEN]\x1b[0m"), "a red code: {:?}", painted.stderr);
    let plain = refused("never");
    assert!(!plain.stderr.contains('\x1b'), "{:?}", plain.stderr);
    assert_eq!(strip_ansi(&painted.stderr), plain.stderr, "colour codes add nothing else");
    // `auto` on a pipe stays plain too, even without NO_COLOR.
    let piped =
        support::ran(&sandbox.command(&["continue", &run, "--notes", "x"]).env_remove("NO_COLOR").output().unwrap());
    assert_eq!(piped.stderr, plain.stderr);
}

fn strip_ansi(text: &str) -> String {
    let mut plain = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            chars.by_ref().find(|c| c.is_ascii_alphabetic());
        } else {
            plain.push(c);
        }
    }
    plain
}

#[test]
fn list_is_a_table_that_says_what_is_invalid_and_what_is_shadowed() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("greeting.yaml", GREETING);
    sandbox.write_workflow("dev-cycle.yaml", "name: dev-cycle\nstages:\n  - name: only\n    role: dev\n    model: m\n");
    sandbox.write_workflow("broken.yaml", "id: broken\nsteps:\n  - id: a\n    prompt: \"{{ nope }}\"\n");
    // A relative project, so the table's widths do not depend on where temporary folders are.
    let listed = text(&sandbox, &["--project", ".", "list"]);
    let shown = ok(&listed);
    assert!(
        shown.lines().next().is_some_and(|header| header.starts_with("NAME") && header.contains("SOURCE")),
        "{shown}"
    );
    settings(&sandbox).bind(|| insta::assert_snapshot!("text_list", shown));
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    let sandbox = Sandbox::new();
    // `switchyard schema workflow | head -1`: the reader is gone before the schema is written.
    let mut child = sandbox
        .command(&["schema", "workflow"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let ended = support::ran(&child.wait_with_output().unwrap());
    assert_eq!((ended.code, ended.stderr.as_str()), (0, ""), "{ended:?}");
}

#[test]
fn validate_and_inspect_name_formats_and_kinds_as_json_does() {
    let sandbox = Sandbox::new();
    let bundle = switchyard_test_support::testdata().join("crewagent/hello-branch");
    let validated = text(&sandbox, &["validate", &bundle.display().to_string()]);
    let json = sandbox.run(&["validate", &bundle.display().to_string()]).ok();
    assert_eq!(json["files"][0]["format"], "crewagent");
    assert!(ok(&validated).contains("(hello-branch, crewagent)"), "{}", validated.stdout);
    let inspected = text(&sandbox, &["inspect", "dev-cycle"]);
    let shown = ok(&inspected);
    assert!(shown.contains("notes required") && !shown.contains("Required"), "{shown}");
}
