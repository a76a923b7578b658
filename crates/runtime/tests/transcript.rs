//! The agent runner's turns in a run's log: `record_turn` appends them without touching the
//! run's state, `transcript` reads back that run's turns alone, in order, and `last_turn` the
//! newest of them from the end of the log.

mod common;

use switchyard_catalog::Catalog;
use switchyard_core::RunId;
use switchyard_core::turn::{ModelTurn, TurnRequest, TurnResponse, TurnUsage};
use switchyard_runtime::{StartRequest, Target};

fn turn(node: switchyard_core::NodeId, number: u32, text: &str) -> ModelTurn {
    ModelTurn {
        node,
        step: switchyard_core::workflow::StepId::new("plan"),
        turn: number,
        model: "local".to_owned(),
        request: TurnRequest { messages: 1, tools: 9, fresh: number == 1, trimmed: 0, new_messages: Vec::new() },
        response: TurnResponse { text: Some(text.to_owned()), ..TurnResponse::default() },
        tool_results: Vec::new(),
        usage: TurnUsage { prompt_tokens: 100, completion_tokens: 10, estimated: false },
        latency_ms: 5,
        cost_usd: None,
    }
}

/// Two runs of `dev-cycle`, each in a session of its own.
async fn two_runs(runtime: &switchyard_runtime::Runtime) -> [switchyard_runtime::StepResponse; 2] {
    let start = || StartRequest { workflow: Some("dev-cycle".into()), goal: "g".into(), ..StartRequest::default() };
    [
        runtime.start(&Catalog::builtins_only(), start()).await.unwrap(),
        runtime.start(&Catalog::builtins_only(), start()).await.unwrap(),
    ]
}

#[tokio::test]
async fn recorded_turns_read_back_in_order_for_their_run_alone_and_change_no_run_state() {
    let dir = common::TestHome::new();
    let runtime = common::runtime(&dir).await;
    let [first, second] = two_runs(&runtime).await;
    let before = runtime.run(&Target::Run(first.run)).await.unwrap();

    runtime.record_turn(first.run, turn(first.node, 1, "one")).await.unwrap();
    runtime.record_turn(second.run, turn(second.node, 1, "other run")).await.unwrap();
    runtime.record_turn(first.run, turn(first.node, 2, "two")).await.unwrap();

    let transcript = runtime.transcript(first.run).await.unwrap();
    let texts: Vec<_> = transcript.iter().map(|recorded| recorded.turn.response.text.clone().unwrap()).collect();
    assert_eq!(texts, ["one", "two"]);
    assert!(transcript[0].seq < transcript[1].seq);
    let after = runtime.run(&Target::Run(first.run)).await.unwrap();
    assert_eq!((after.tip, after.status, after.node_count), (before.tip, before.status, before.node_count));
    let session = runtime.session(first.session).await.unwrap();
    assert_eq!(session.last_seq, transcript[1].seq, "the session's log ends with the turn");
    assert!(runtime.verify().await.unwrap().problems.is_empty(), "the projections rebuild the same");

    let unknown = runtime.record_turn(RunId::from_bytes([9; 16]), turn(first.node, 3, "x")).await.unwrap_err();
    assert_eq!(unknown.code(), "NOT_FOUND");
    assert_eq!(runtime.last_turn(RunId::from_bytes([9; 16])).await.unwrap_err().code(), "NOT_FOUND");
}

#[tokio::test]
async fn the_last_turn_is_found_from_the_end_of_the_log_across_pages() {
    let dir = common::TestHome::new();
    let runtime = common::runtime(&dir).await;
    let [driven, untouched] = two_runs(&runtime).await;
    assert_eq!(runtime.last_turn(driven.run).await.unwrap(), None, "no turn yet");

    runtime.record_turn(driven.run, turn(driven.node, 1, "one")).await.unwrap();
    runtime.record_turn(driven.run, turn(driven.node, 2, "two")).await.unwrap();
    // More events after the last turn than one page of the log holds, so it is found on the
    // second page read from the end.
    let pages = u64::from(switchyard_store::MAX_PAGE);
    for _ in 0..pages.div_ceil(2) {
        runtime.pause(driven.run, None).await.unwrap();
        runtime.resume(driven.run).await.unwrap();
    }
    let session = runtime.session(driven.session).await.unwrap();
    let last = runtime.last_turn(driven.run).await.unwrap().expect("the run has turns");
    assert!(session.last_seq - last.seq >= pages, "the turn lies more than a page from the end");
    assert_eq!((last.turn.turn, last.turn.response.text.as_deref()), (2, Some("two")));
    assert_eq!(Some(&last), runtime.transcript(driven.run).await.unwrap().last(), "the transcript's last turn");
    assert_eq!(runtime.last_turn(untouched.run).await.unwrap(), None, "another run's turns are not its own");
}
