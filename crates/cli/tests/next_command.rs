//! The `Next:` line a step prints is a command a person can copy, fill in and run: where the
//! step's output contract requires artifacts, it carries their skeleton, and run as printed
//! (placeholders filled in) it advances the run.

mod support;

use std::path::Path;
use std::process::Command;

use support::{Ran, Sandbox, ran, redactions};

/// The command of the `Next:` line of a text step response.
fn next_command(shown: &Ran) -> String {
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    let line = shown.stdout.lines().find_map(|line| line.strip_prefix("Next: "));
    line.unwrap_or_else(|| panic!("no Next: line in\n{}", shown.stdout)).to_owned()
}

/// Replaces every `"<fill in: …>"` placeholder by a value of the kind it names, as a person would.
fn filled_in(command: &str) -> String {
    let mut filled = String::new();
    let mut rest = command;
    while let Some(start) = rest.find("\"<fill in: ") {
        let end = start + rest[start..].find(">\"").expect("a placeholder ends with >\"") + 2;
        let what = &rest[start + "\"<fill in: ".len()..end - 2];
        let value = match what {
            "integer" | "number" => "2".to_owned(),
            "true or false" => "true".to_owned(),
            _ => match what.strip_prefix("one of ") {
                Some(values) => format!("\"{}\"", values.split(", ").nth(1).unwrap_or(values)),
                None => "\"filled in\"".to_owned(),
            },
        };
        filled.push_str(&rest[..start]);
        filled.push_str(&value);
        rest = &rest[end..];
    }
    filled.push_str(rest);
    filled
}

/// Runs a printed command line in a POSIX shell, with this build's `switchyard` first on the PATH.
fn run_in_shell(sandbox: &Sandbox, command_line: &str) -> Ran {
    let binary = Path::new(env!("CARGO_BIN_EXE_switchyard"));
    let path = format!("{}:{}", binary.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let mut command = Command::new("sh");
    let output = support::without_switchyard_environment(&mut command)
        .args(["-c", command_line])
        .env("PATH", path)
        .env("SWITCHYARD_HOME", sandbox.home.path())
        .env("NO_COLOR", "1")
        .current_dir(sandbox.project.path())
        .output()
        .unwrap();
    ran(&output)
}

#[test]
fn the_printed_next_command_with_its_placeholders_filled_in_advances_a_step_that_requires_artifacts() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.project.path().join("NOTES.md"), "What I found.\n").unwrap();
    let started = sandbox.run_text(&["start", "code-review", "--goal", "Review the parser change"]);
    let command = next_command(&started);
    assert!(command.contains("--artifacts"), "the step requires artifacts: {command}");
    assert!(started.stdout.contains("/artifacts/intent: string"), "it says what to fill in:\n{}", started.stdout);

    // Run as printed, placeholders and all: refused before anything is recorded.
    let verbatim = run_in_shell(&sandbox, &command);
    assert_eq!(verbatim.code, 2, "{}{}", verbatim.stdout, verbatim.stderr);
    assert!(verbatim.stderr.contains("REPORT_NOT_FILLED_IN"), "{}", verbatim.stderr);
    assert!(verbatim.stderr.contains("/artifacts/intent"), "{}", verbatim.stderr);
    // What a person reads: the step with its `Next:` command and what to fill in, and the refusal.
    redactions(&[sandbox.home.path(), sandbox.project.path()]).bind(|| {
        insta::assert_snapshot!("text_start_with_artifacts_skeleton", started.stdout);
        insta::assert_snapshot!("message_report_not_filled_in", verbatim.stderr);
    });

    // Filled in, the same command advances; the next step's command (an array of objects with an
    // enum) does too.
    let scoped = run_in_shell(&sandbox, &filled_in(&command));
    assert_eq!(scoped.code, 0, "{}{}", scoped.stdout, scoped.stderr);
    assert!(scoped.stdout.contains("step assess"), "{}", scoped.stdout);
    let command = next_command(&scoped);
    assert!(command.contains("one of blocker, major, minor, nit"), "{command}");
    let assessed = run_in_shell(&sandbox, &filled_in(&command));
    assert_eq!(assessed.code, 0, "{}{}", assessed.stdout, assessed.stderr);
    assert!(assessed.stdout.contains("step decide"), "{}", assessed.stdout);
}
