//! What a person reads when a command refuses what they typed in their first hour: each message
//! through the real binary, snapshotted with ids, tokens and folders made stable, so a change in
//! the words shows in review. The codes and what each message must name are asserted where the
//! behaviour is tested (`errors.rs`, `workflow_paths.rs`, `next_command.rs`); here, the words.

mod support;

use support::{Ran, Sandbox, continue_token, redactions, string};

/// The text output of `switchyard <args>`, which must exit with `code`.
fn refused(sandbox: &Sandbox, args: &[&str], code: i32) -> Ran {
    let ran = sandbox.run_text(args);
    assert_eq!(ran.code, code, "{args:?}\nstdout:\n{}\nstderr:\n{}", ran.stdout, ran.stderr);
    ran
}

fn settings(sandbox: &Sandbox) -> insta::Settings {
    redactions(&[sandbox.home.path(), sandbox.project.path()])
}

#[test]
fn a_token_where_another_is_needed_reads_as_what_it_is_and_where_the_right_one_is() {
    let sandbox = Sandbox::new();
    let started = sandbox.run(&["start", "dev-cycle", "--goal", "Messages"]).ok();
    let run = string(&started["run"]);
    let id_not_token = refused(&sandbox, &["continue", &run, "--notes", "x"], 2);
    let checkpoint = string(&started["tokens"]["checkpoint_token"]);
    let wrong_kind = refused(&sandbox, &["continue", &checkpoint, "--notes", "x"], 2);
    let token = continue_token(&started);
    sandbox.run(&["continue", &token, "--notes", "The plan."]).ok();
    let replayed = refused(&sandbox, &["continue", &token, "--notes", "Another plan."], 1);
    settings(&sandbox).bind(|| {
        insta::assert_snapshot!("message_id_not_token", id_not_token.stderr);
        insta::assert_snapshot!("message_token_wrong_kind", wrong_kind.stderr);
        insta::assert_snapshot!("message_replay_mismatch", replayed.stderr);
    });
}

#[test]
fn a_workflow_named_by_a_path_reads_as_what_to_pass_instead() {
    let sandbox = Sandbox::new();
    sandbox.run(&["init"]).ok();
    std::fs::create_dir(sandbox.project.path().join("flows")).unwrap();
    let no_file = refused(&sandbox, &["start", "nonexistent.yaml", "--goal", "x"], 2);
    let workflow_with_extension = refused(&sandbox, &["start", "small-change.yaml", "--goal", "x"], 2);
    let folder = refused(&sandbox, &["inspect", "./flows"], 2);
    settings(&sandbox).bind(|| {
        insta::assert_snapshot!("message_path_to_no_file", no_file.stderr);
        insta::assert_snapshot!("message_workflow_name_with_extension", workflow_with_extension.stderr);
        insta::assert_snapshot!("message_folder_as_workflow", folder.stderr);
    });
}

#[test]
fn a_start_without_a_goal_and_sessions_filtered_to_nothing_read_as_what_to_do() {
    let sandbox = Sandbox::new();
    let empty_goal = refused(&sandbox, &["start", "dev-cycle", "--goal", ""], 2);
    sandbox.run(&["start", "dev-cycle", "--goal", "One session"]).ok();
    let bogus_status = refused(&sandbox, &["sessions", "--status", "bogus"], 2);
    let none_completed = refused(&sandbox, &["sessions", "--status", "completed", "--workflow", "dev-cycle"], 0);
    settings(&sandbox).bind(|| {
        insta::assert_snapshot!("message_empty_goal", empty_goal.stderr);
        insta::assert_snapshot!("message_sessions_bogus_status", bogus_status.stderr);
        insta::assert_snapshot!("message_sessions_none_match", none_completed.stdout);
    });
}
