//! The command's environment holds none of the runner's secrets, even when asked for by name, yet
//! keeps what programs need and the names passed through.
//!
//! The secrets must be in this process's own environment, which it cannot change without
//! `unsafe` (`std::env::set_var`), so it runs itself again with them planted: the first run plants
//! and waits, the second runs the command and checks (a test binary without the test harness).

use std::collections::BTreeMap;
use std::time::Duration;

use switchyard_command::{CommandSpec, Limits, Sandbox};
use tokio_util::sync::CancellationToken;

/// Set in the second run; its name is itself one that must not reach the command.
const PLANTED_RUN: &str = "SWITCHYARD_COMMAND_TEST_PLANTED_RUN";

/// Variables that must never reach a command, each named in its `env` all the same.
const SECRETS: [(&str, &str); 6] = [
    ("SWITCHYARD_TOKEN", "planted-switchyard-token"),
    ("OPENAI_API_KEY", "planted-openai-key"),
    ("GITHUB_TOKEN", "planted-github-token"),
    ("DATABASE_URL", "postgres://planted@localhost/db"),
    ("deploy_password", "planted-password"),
    ("AWS_SECRET_ACCESS_KEY", "planted-aws-key"),
];

/// A variable that may reach a command once named.
const PASSED: (&str, &str) = ("BUILD_PROFILE", "fast");
/// Set, but not named: it stays out.
const UNNAMED: (&str, &str) = ("UNNAMED_SETTING", "planted-unnamed");

fn main() {
    if std::env::var_os(PLANTED_RUN).is_some() {
        check_the_command_s_environment();
        return;
    }
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .env(PLANTED_RUN, "1")
        .envs(SECRETS)
        .envs([PASSED, UNNAMED])
        .status()
        .unwrap();
    assert!(status.success(), "the check in the planted run failed (its panic is printed above)");
}

fn check_the_command_s_environment() {
    let workspace = tempfile::tempdir().unwrap();
    let mut env: Vec<String> = SECRETS.iter().map(|(name, _)| (*name).to_owned()).collect();
    env.extend([PASSED.0.to_owned(), PLANTED_RUN.to_owned(), "NOT_SET_ANYWHERE".to_owned()]);
    // `env` prints the environment it was given, one `NAME=value` a line.
    let spec = CommandSpec { argv: vec!["env".to_owned()], env };
    let limits = Limits { timeout: Duration::from_secs(60), max_output_bytes: 1 << 20 };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let outcome = runtime
        .block_on(switchyard_command::run(&spec, &Sandbox::new(workspace.path()), &limits, &CancellationToken::new()))
        .unwrap();
    assert_eq!(outcome.exit_code, Some(0), "{outcome:?}");
    let seen: BTreeMap<&str, &str> = outcome.stdout.tail.lines().filter_map(|line| line.split_once('=')).collect();

    for (name, value) in SECRETS.iter().chain([&UNNAMED, &(PLANTED_RUN, "1")]) {
        assert!(!seen.contains_key(name), "{name} reached the command");
        assert!(
            !seen.values().any(|seen| seen.contains(value) && value.len() > 1),
            "{name}'s value reached the command"
        );
    }
    assert!(!seen.keys().any(|name| name.starts_with("SWITCHYARD_")), "{seen:?}");
    assert!(!seen.contains_key("NOT_SET_ANYWHERE"));
    assert_eq!(seen.get(PASSED.0), Some(&PASSED.1));
    let path = std::env::var("PATH").unwrap();
    assert_eq!(seen.get("PATH"), Some(&path.as_str()));
    assert_eq!(seen.get("TERM"), Some(&"dumb"));
    assert!(seen.get("TMPDIR").is_some_and(|folder| folder.contains("switchyard-command-")), "{seen:?}");
}
