//! Bad input through the real binary: each gets a specific code, the documented exit code, and
//! leaves the store as it was. Also: two processes racing one token advance once.

mod support;

use serde_json::json;
use support::{Sandbox, continue_token, string};

#[test]
fn tokens_that_are_malformed_tampered_foreign_or_of_the_wrong_kind_are_told_apart() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "tokens"]).ok();
    let token = continue_token(&start);
    let code = |token: &str| {
        let ran = sandbox.run(&["continue", token, "--notes", "x"]);
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        string(&ran.json()["error"]["code"])
    };
    assert_eq!(code("ct_short"), "TOKEN_MALFORMED");
    assert_eq!(code("hello"), "TOKEN_MALFORMED");
    let mut tampered: Vec<char> = token.chars().collect();
    tampered[5] = if tampered[5] == 'A' { 'B' } else { 'A' };
    assert_eq!(code(&tampered.into_iter().collect::<String>()), "TOKEN_BAD_SIGNATURE");
    assert_eq!(code(&string(&start["tokens"]["state_token"])), "TOKEN_WRONG_KIND");
    // A token of another kind says where the right one is.
    let wrong_kind = sandbox.run(&["continue", &string(&start["tokens"]["checkpoint_token"]), "--notes", "x"]);
    let message = string(&wrong_kind.expect(2)["error"]["message"]);
    assert!(
        message.starts_with("this is a checkpoint token (`ck_…`) where a continue token (`ct_…`) is needed"),
        "{message}"
    );
    assert!(message.contains(&format!("`switchyard show {}` prints", string(&start["run"]))), "{message}");

    // A token signed by another installation's key does not verify here.
    let other = Sandbox::new();
    let foreign = continue_token(&other.run(&["start", "dev-cycle", "--goal", "elsewhere"]).ok());
    assert_eq!(code(&foreign), "TOKEN_BAD_SIGNATURE");
    // The same key but another store: signed correctly, unknown here.
    let same_key_other_store =
        sandbox.run(&["--store", &other.store_path().display().to_string(), "start", "dev-cycle", "--goal", "x"]).ok();
    assert_eq!(code(&continue_token(&same_key_other_store)), "TOKEN_UNKNOWN");

    // A token pasted into another run's conversation is refused when the run is named.
    let other_run = sandbox.run(&["start", "dev-cycle", "--goal", "another"]).ok();
    let ran = sandbox.run(&["continue", &token, "--run", &string(&other_run["run"]), "--notes", "x"]);
    assert_eq!(ran.expect(2)["error"]["code"], "TOKEN_WRONG_RUN");
    let ran = sandbox.run(&[
        "checkpoint",
        &string(&start["tokens"]["checkpoint_token"]),
        "--run",
        &string(&other_run["session"]),
    ]);
    assert_eq!(ran.expect(2)["error"]["code"], "TOKEN_WRONG_RUN");

    assert_eq!(sandbox.count_events(&string(&start["run"]), "advance_recorded"), 0, "nothing was recorded");
    assert_eq!(sandbox.count_events(&string(&start["run"]), "checkpoint_recorded"), 0, "nothing was recorded");
}

#[test]
fn an_id_given_for_a_token_is_named_with_the_command_that_prints_its_token() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "ids"]).ok();
    let run = string(&start["run"]);
    for (id, what) in [(run.clone(), "run"), (string(&start["session"]), "session"), (string(&start["node"]), "node")] {
        for command in ["continue", "checkpoint"] {
            let ran = sandbox.run(&[command, &id, "--notes", "x"]);
            let error = &ran.expect(2)["error"];
            assert_eq!(error["code"], "ID_NOT_TOKEN", "{command} {id}: {error}");
            let message = string(&error["message"]);
            assert!(message.contains(&format!("is a {what} id, not a")), "{message}");
            assert!(message.contains(&format!("`switchyard show {id}`")), "{message}");
        }
    }
    // The command it names gives the token that works.
    let shown = sandbox.run(&["show", &run]).ok();
    sandbox.run(&["continue", &continue_token(&shown), "--notes", "plan"]).ok();
    assert_eq!(sandbox.count_events(&run, "checkpoint_recorded"), 0, "nothing was recorded by the refused calls");
}

#[test]
fn a_token_used_again_with_other_content_is_explained_in_words_with_the_way_to_a_fresh_token() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "replays"]).ok();
    let run = string(&start["run"]);
    let token = continue_token(&start);
    sandbox.run(&["continue", &token, "--notes", "the plan"]).ok();
    let again = sandbox.run(&["continue", &token, "--notes", "another plan", "--context", "{\"k\": 1}"]);
    let error = &again.expect(1)["error"];
    assert_eq!(error["code"], "REPLAY_MISMATCH");
    let message = string(&error["message"]);
    assert!(message.contains("already used, with different context and notes"), "{message}");
    assert!(message.contains("the run has moved on"), "{message}");
    assert!(message.contains(&format!("`switchyard show {run}`")), "{message}");
    let is_hash = |text: &str| text.len() == 64 && text.chars().all(|c| c.is_ascii_hexdigit());
    assert!(!message.split(|c: char| !c.is_ascii_hexdigit()).any(is_hash), "no hash in the words: {message}");
    assert!(!again.stderr.split(|c: char| !c.is_ascii_hexdigit()).any(is_hash), "{}", again.stderr);
    assert!(is_hash(&string(&error["details"]["recorded_sha256"])), "{error}");
    assert!(is_hash(&string(&error["details"]["sent_sha256"])), "{error}");
    assert_eq!(error["details"]["differs"], json!(["context", "notes"]));

    // Checkpoint notes are told apart the same way.
    let checkpoint = string(&sandbox.run(&["show", &run]).ok()["tokens"]["checkpoint_token"]);
    sandbox.run(&["checkpoint", &checkpoint, "--notes", "halfway"]).ok();
    let error = &sandbox.run(&["checkpoint", &checkpoint, "--notes", "elsewhere"]).expect(1)["error"];
    assert!(string(&error["message"]).contains("checkpoint token was already used, with different notes"), "{error}");
}

#[test]
fn usage_errors_exit_2_and_rule_violations_exit_1() {
    let sandbox = Sandbox::new();
    let cases: [(&[&str], i32, &str); 7] = [
        (&["start", "../../no/such/workflow", "--goal", "x"], 2, "INVALID_NAME"),
        (&["start", "no-such-workflow", "--goal", "x"], 2, "WORKFLOW_NOT_FOUND"),
        (&["start", "dev-cycle", "--goal", "x", "--context", "[1,2]"], 2, "USAGE"),
        (&["start", "dev-cycle", "--goal", "x", "--context", "{not json"], 2, "USAGE"),
        (&["status", "run_aaaaaaaaaaaaaaaaaaaaaaaaaa"], 2, "NOT_FOUND"),
        (&["status", "whatever"], 2, "INVALID_INPUT"),
        (&["decide", "run_aaaaaaaaaaaaaaaaaaaaaaaaaa", "maybe"], 2, "USAGE"),
    ];
    for (args, exit, code) in cases {
        let ran = sandbox.run(args);
        assert_eq!(ran.code, exit, "{args:?}: {}", ran.stderr);
        assert_eq!(ran.json()["error"]["code"], code, "{args:?}");
        assert!(ran.stderr.starts_with("switchyard: "), "{args:?}: {}", ran.stderr);
    }
    let bad = sandbox.write_workflow("broken.yaml", "id: broken\nsteps:\n  - id: a\n    prompt: hi\n    nxt: b\n");
    let ran = sandbox.run(&["start", "--file", &bad.display().to_string(), "--goal", "x"]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(ran.json()["error"]["code"], "WORKFLOW_INVALID");
    assert!(ran.stderr.contains("did you mean"), "{}", ran.stderr);
    // An oversized goal, and an empty one (as MCP refuses it), are refused before anything is written.
    let huge = "g".repeat(17 * 1024);
    assert_eq!(sandbox.run(&["start", "dev-cycle", "--goal", &huge]).expect(2)["error"]["code"], "INVALID_INPUT");
    for empty in ["", "  \n"] {
        let error = &sandbox.run(&["start", "dev-cycle", "--goal", empty]).expect(2)["error"];
        assert_eq!(error["code"], "INVALID_INPUT", "{empty:?}: {error}");
        assert!(string(&error["message"]).starts_with("the goal is empty: say in a few words what the run is for"));
    }
    assert_eq!(sandbox.run(&["sessions"]).ok(), json!([]));
    // clap's own usage errors also exit 2.
    assert_eq!(sandbox.run_text(&["continue"]).code, 2);
}

#[test]
fn oversized_notes_are_refused_and_nothing_is_half_written() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "big"]).ok();
    let notes_file = sandbox.project.path().join("notes.md");
    std::fs::write(&notes_file, "n".repeat(65 * 1024)).unwrap();
    let ran = sandbox.run(&["continue", &continue_token(&start), "--notes-file", &notes_file.display().to_string()]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(ran.json()["error"]["code"], "INPUT_TOO_LARGE");
    assert!(ran.json()["error"]["message"].as_str().unwrap().contains("65536"), "{}", ran.stdout);
    let run = string(&start["run"]);
    assert_eq!(sandbox.count_events(&run, "advance_recorded"), 0);
    // The same token still works with a proper report.
    sandbox.run(&["continue", &continue_token(&start), "--notes", "small"]).ok();
}

#[test]
fn two_processes_racing_one_token_advance_exactly_once() {
    let sandbox = Sandbox::new();
    for round in 0..5 {
        let start = sandbox.run(&["start", "dev-cycle", "--goal", &format!("race {round}")]).ok();
        let token = continue_token(&start);
        // Same payload: one advances, the other gets the recorded result.
        let children: Vec<_> = (0..2).map(|_| sandbox.spawn(&["continue", &token, "--notes", "same"])).collect();
        let outputs: Vec<_> =
            children.into_iter().map(|child| support::ran(&child.wait_with_output().unwrap())).collect();
        for output in &outputs {
            assert_eq!(output.code, 0, "{}", output.stderr);
        }
        let nodes: Vec<_> = outputs.iter().map(|output| output.json()["node"].clone()).collect();
        assert_eq!(nodes[0], nodes[1], "both see the one advance");
        assert_eq!(sandbox.count_events(&string(&start["run"]), "advance_recorded"), 1);

        // Different payloads: exactly one wins; the loser is told the call was already made.
        let start = sandbox.run(&["start", "dev-cycle", "--goal", &format!("race b {round}")]).ok();
        let token = continue_token(&start);
        let children: Vec<_> =
            ["first", "second"].iter().map(|notes| sandbox.spawn(&["continue", &token, "--notes", notes])).collect();
        let mut codes: Vec<i32> =
            children.into_iter().map(|child| support::ran(&child.wait_with_output().unwrap()).code).collect();
        codes.sort();
        assert_eq!(codes, vec![0, 1]);
        assert_eq!(sandbox.count_events(&string(&start["run"]), "advance_recorded"), 1);
    }
    assert_eq!(sandbox.run(&["verify"]).ok()["problems"], json!([]));
}

#[test]
fn key_rotation_keeps_old_tokens_working_once() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "rotate"]).ok();
    assert_eq!(sandbox.run(&["keys", "rotate"]).ok()["rotated"], true);
    // Minted before the rotation: still verifies with the previous key.
    let gated = sandbox.run(&["continue", &continue_token(&start), "--notes", "plan"]).ok();
    assert_eq!(gated["kind"], "waiting_gate");
    let later = sandbox.run(&["start", "dev-cycle", "--goal", "older"]).ok();
    assert_eq!(sandbox.run_text(&["keys", "rotate"]).code, 0);
    assert_eq!(sandbox.run_text(&["keys", "rotate"]).code, 0);
    let ran = sandbox.run(&["continue", &continue_token(&later), "--notes", "x"]);
    assert_eq!(ran.expect(2)["error"]["code"], "TOKEN_BAD_SIGNATURE", "two rotations retire a key");
}

#[test]
fn show_and_resume_of_a_run_whose_tip_is_a_blocked_attempt_exit_0() {
    let sandbox = Sandbox::new();
    let started = sandbox.run(&["start", "bug-investigation", "--goal", "Crash on empty input"]).ok();
    let run = string(&started["run"]);
    let blocked = sandbox
        .run(&["continue", &continue_token(&started), "--notes", "x", "--artifacts", "{\"reproduced\": \"yes\"}"])
        .expect(1);
    assert_eq!(blocked["kind"], "blocked", "the advance itself was refused: {blocked}");
    let shown = sandbox.run(&["show", &run]).expect(0);
    assert_eq!(shown["kind"], "blocked", "show tells where the run is: {shown}");
    sandbox.run(&["pause", &run]).expect(0);
    let resumed = sandbox.run(&["resume", &run]).expect(0);
    assert_eq!(resumed["kind"], "blocked", "{resumed}");
}

#[test]
fn a_repeated_decide_stop_on_a_stopped_run_offers_no_decision_again() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow(
        "strict-gate.yaml",
        "id: strict-gate\nlimits: {max_revision_attempts: 0}\nsteps:\n  - {id: draft, prompt: Draft it., gate: true, next: done}\n  - {id: done, prompt: Finish.}\n",
    );
    let started = sandbox.run(&["start", "strict-gate", "--goal", "Stop twice"]).ok();
    let run = string(&started["run"]);
    sandbox.run(&["continue", &continue_token(&started), "--notes", "draft"]).ok();
    let waiting = sandbox.run(&["reject", &run, "--reason", "no"]).ok();
    assert!(waiting["decision"].is_object(), "a limit was reached and a human decides: {waiting}");
    let stopped = sandbox.run(&["decide", &run, "stop"]).ok();
    assert_eq!(stopped["status"], "stopped", "{stopped}");
    assert!(stopped["decision"].is_null(), "a stopped run waits for no decision: {stopped}");
    let again = sandbox.run_text(&["decide", &run, "stop"]);
    assert!(!again.stdout.contains("a human decides"), "{}", again.stdout);
}
