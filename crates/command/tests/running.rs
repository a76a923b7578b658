//! Running a command: the allowed argv runs as it is, with no shell, its output and exit code come
//! back, it gets a temporary folder of its own, and a command that cannot start is an error with
//! a stable code.

mod support;

use sha2::{Digest, Sha256};
use support::{LIMITS, require_landlock, run, spec};
use switchyard_command::{Allowlist, Sandbox};
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn an_allowed_command_runs_and_its_output_and_exit_code_come_back() {
    let linux = cfg!(target_os = "linux");
    if linux {
        require_landlock(1);
    }
    let workspace = tempfile::tempdir().unwrap();
    let allowlist = Allowlist::new(vec![vec!["python3".to_owned(), "-c".to_owned()]]);
    let argv = ["python3", "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"];
    allowlist.check(&spec(&argv).argv).unwrap();

    let outcome = run(&argv, &Sandbox::new(workspace.path())).await;
    assert_eq!((outcome.exit_code, outcome.signal), (Some(3), None));
    assert!(!outcome.timed_out && !outcome.cancelled && !outcome.succeeded());
    assert_eq!(outcome.confined, linux);
    assert_eq!((outcome.stdout.tail.as_str(), outcome.stderr.tail.as_str()), ("out\n", "err\n"));
    assert_eq!((outcome.stdout.total_bytes, outcome.stdout.truncated), (4, false));
    let hash: String = Sha256::digest(b"out\n").iter().map(|byte| format!("{byte:02x}")).collect();
    assert_eq!(outcome.stdout.sha256, hash);
}

#[tokio::test]
async fn no_shell_reads_the_argv() {
    let workspace = tempfile::tempdir().unwrap();
    let outcome = run(&["echo", "$HOME", "*", ";", "ls", "`id`"], &Sandbox::new(workspace.path())).await;
    assert!(outcome.succeeded(), "{outcome:?}");
    assert_eq!(outcome.stdout.tail, "$HOME * ; ls `id`\n");
}

#[tokio::test]
async fn each_command_gets_a_temporary_folder_of_its_own_removed_afterwards() {
    let workspace = tempfile::tempdir().unwrap();
    let script = r#"echo "$TMPDIR"; [ "$TMP" = "$TMPDIR" ] && [ "$TEMP" = "$TMPDIR" ] && echo x > "$TMPDIR/probe" && echo written"#;
    let outcome = run(&["sh", "-c", script], &Sandbox::new(workspace.path())).await;
    assert!(outcome.succeeded(), "{outcome:?}");
    let lines: Vec<&str> = outcome.stdout.tail.lines().collect();
    assert_eq!(lines.len(), 2, "{outcome:?}");
    assert_eq!(lines[1], "written");
    let folder = std::path::Path::new(lines[0]);
    assert_ne!(folder, std::env::temp_dir(), "the command got the shared temporary folder");
    assert!(!folder.exists(), "{} was left behind", folder.display());
}

#[tokio::test]
async fn a_relative_program_path_is_taken_from_the_workspace() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join("bin")).unwrap();
    std::fs::copy("/bin/echo", workspace.path().join("bin/say")).unwrap();
    let outcome = run(&["./bin/say", "hello"], &Sandbox::new(workspace.path())).await;
    assert_eq!(outcome.stdout.tail, "hello\n", "{outcome:?}");
}

/// Runs `argv` in `sandbox`, which must fail to start, and returns the error's code.
async fn start_error(argv: &[&str], sandbox: &Sandbox) -> &'static str {
    match switchyard_command::run(&spec(argv), sandbox, &LIMITS, &CancellationToken::new()).await {
        Ok(outcome) => panic!("{argv:?} ran: {outcome:?}"),
        Err(error) => {
            assert!(!error.to_string().is_empty());
            error.code()
        }
    }
}

#[tokio::test]
async fn a_command_that_cannot_start_is_an_error_with_a_stable_code() {
    let workspace = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new(workspace.path());
    assert_eq!(start_error(&["switchyard-no-such-program"], &sandbox).await, "COMMAND_NOT_FOUND");
    assert_eq!(start_error(&["./no-such-script"], &sandbox).await, "COMMAND_NOT_FOUND");
    // A file that is there but not executable is not a program.
    std::fs::write(workspace.path().join("notes.txt"), "text").unwrap();
    assert_eq!(start_error(&["./notes.txt"], &sandbox).await, "COMMAND_NOT_FOUND");
    assert_eq!(start_error(&[], &sandbox).await, "COMMAND_EMPTY");
    let gone = Sandbox::new(workspace.path().join("no-such-folder"));
    assert_eq!(start_error(&["true"], &gone).await, "COMMAND_WORKSPACE_MISSING");
}
