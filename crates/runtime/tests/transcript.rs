//! The agent runner's turns in a run's log: `record_turn` appends them without touching the
//! run's state, and `transcript` reads back that run's turns alone, in order.

mod common;

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
        usage: TurnUsage { prompt_tokens: 100, completion_tokens: 10 },
        latency_ms: 5,
        cost_usd: None,
    }
}

#[tokio::test]
async fn recorded_turns_read_back_in_order_for_their_run_alone_and_change_no_run_state() {
    let dir = common::TestHome::new();
    let runtime = common::runtime(&dir).await;
    let start = || StartRequest { workflow: Some("dev-cycle".into()), goal: "g".into(), ..StartRequest::default() };
    let first = runtime.start(start()).await.unwrap();
    let second = runtime.start(start()).await.unwrap();
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
}
