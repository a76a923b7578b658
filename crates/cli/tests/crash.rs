//! The process is killed with SIGKILL at varying points of a stream of advances. Afterwards
//! `verify` passes and every advance that was acknowledged is in the store.

mod support;

use std::time::Duration;

use serde_json::json;
use support::{Sandbox, continue_token, string};

const LOOP: &str = "\
id: treadmill
title: Treadmill
description: One step that can be repeated many times.
steps:
  - id: work
    title: Work
    prompt: Do one more unit of work.
    notes: optional
    next:
      - to: work
        label: again
        max_traversals: 100000
      - end: true
        label: done
";

#[test]
fn sigkill_during_a_stream_of_advances_loses_no_acknowledged_advance() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("treadmill.yaml", LOOP);
    let start = sandbox.run(&["start", "treadmill", "--goal", "crash me"]).ok();
    let run = string(&start["run"]);
    // Kill points sweep a window around one advance's duration. The window adapts: it widens while
    // too few advances finish and narrows while too few are interrupted, so the test exercises both
    // outcomes however fast or loaded the machine is.
    let started = std::time::Instant::now();
    let first = sandbox.run(&["continue", &continue_token(&start), "--choice", "again"]).ok();
    let mut window = u64::try_from(started.elapsed().as_micros()).unwrap().max(1_000) * 3 / 2;
    let mut token = continue_token(&first);
    let mut acknowledged = vec![string(&first["node"])];
    let mut killed = 0;
    let mut round = 0u64;
    while (killed < 6 || acknowledged.len() < 7) && round < 400 {
        round += 1;
        if round.is_multiple_of(20) {
            if acknowledged.len() < 7 {
                window *= 2;
            } else if killed < 6 {
                window = (window / 2).max(100);
            }
        }
        let mut child = sandbox.spawn(&["continue", &token, "--notes", &format!("round {round}"), "--choice", "again"]);
        std::thread::sleep(Duration::from_micros((round * 7_919) % window));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            killed += 1;
        }
        let output = support::ran(&child.wait_with_output().unwrap());
        if output.code == 0 {
            let response = output.json();
            acknowledged.push(string(&response["node"]));
            token = continue_token(&response);
        } else {
            // Killed: resume from whatever the store says the run's tip is, as a fresh agent would.
            let shown = sandbox.run(&["show", &run]).ok();
            token = continue_token(&shown);
        }
    }
    assert!(killed >= 6, "the kill points must actually interrupt advances (killed {killed} in {round} rounds)");
    assert!(acknowledged.len() >= 7, "some advances must complete ({} in {round} rounds)", acknowledged.len());

    let verify = sandbox.run(&["verify"]).ok();
    assert_eq!(verify["problems"], json!([]), "{verify:#}");
    for node in &acknowledged {
        let shown = sandbox.run(&["show", node]).ok();
        assert_eq!(shown["run"], json!(run), "acknowledged node {node} is in the run");
    }
    let advances = sandbox.count_events(&run, "advance_recorded");
    assert!(advances >= acknowledged.len(), "{advances} recorded < {} acknowledged", acknowledged.len());
    // The run still works after all of that.
    let shown = sandbox.run(&["show", &run]).ok();
    let done = sandbox.run(&["continue", &continue_token(&shown), "--choice", "done"]).ok();
    assert_eq!(done["kind"], "complete");
}
