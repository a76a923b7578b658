//! The console's pages and forms against a real SQLite store, with runs made through the runtime:
//! each page shows the facts it must, agent-written text comes out inert, and the forms move runs
//! exactly as the CLI's commands do, only with this browser's CSRF token.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};
use switchyard_core::state::DecisionOption;
use switchyard_core::{NodeId, RunId, RunStatus, SessionId};
use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse, Target};

/// A runtime over a SQLite file in a temporary home, and the console over it.
struct Console {
    runtime: Arc<Runtime>,
    app: Router,
    _home: tempfile::TempDir,
}

/// An answer: status, headers and body as text.
struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: String,
}

impl Console {
    async fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() }).unwrap();
        let runtime = Arc::new(Runtime::open(&config).await.unwrap());
        let app = switchyard_console::router(Arc::clone(&runtime), Catalog::builtins_only());
        Self { runtime, app, _home: home }
    }

    async fn send(&self, request: Request<Body>) -> Answer {
        let response = self.app.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        Answer { status, headers, body: String::from_utf8(bytes.to_vec()).unwrap() }
    }

    async fn get(&self, path: &str) -> Answer {
        self.send(Request::get(path).header(header::ACCEPT, "text/html").body(Body::empty()).unwrap()).await
    }

    /// A page that must be there, as HTML.
    async fn page(&self, path: &str) -> String {
        let answer = self.get(path).await;
        assert_eq!(answer.status, StatusCode::OK, "GET {path}: {}", answer.body);
        answer.body
    }

    /// This browser's CSRF cookie (`name=value`) and the token its forms carry.
    async fn csrf(&self) -> (String, String) {
        let answer = self.get("/gates").await;
        let cookie = answer
            .headers
            .get_all(header::SET_COOKIE)
            .iter()
            .map(|value| value.to_str().unwrap().to_owned())
            .find(|value| value.starts_with("switchyard_csrf="))
            .expect("a first page sets the CSRF cookie");
        let cookie = cookie.split(';').next().unwrap().to_owned();
        let token = hidden(&answer.body, "csrf").expect("a form on the gate inbox: make a run wait first");
        (cookie, token)
    }

    async fn post(&self, path: &str, cookie: Option<&str>, fields: &[(&str, &str)]) -> Answer {
        let body = fields.iter().map(|(key, value)| format!("{key}={}", encode(value))).collect::<Vec<_>>().join("&");
        let mut request = Request::post(path).header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some(cookie) = cookie {
            request = request.header(header::COOKIE, cookie);
        }
        self.send(request.body(Body::from(body)).unwrap()).await
    }

    async fn start(&self, goal: &str) -> StepResponse {
        let request = StartRequest { workflow: Some("dev-cycle".into()), goal: goal.into(), ..Default::default() };
        self.runtime.start(&Catalog::builtins_only(), request).await.unwrap()
    }

    /// Reports on the pending step of `run` as an agent would.
    async fn advance(&self, run: RunId, input: AdvanceInput) -> StepResponse {
        let shown = self.runtime.show(&Target::Run(run)).await.unwrap();
        let token = shown.tokens.continue_token.expect("a step to report on");
        self.runtime.advance(&token, Some(run), input).await.unwrap()
    }

    /// A run of `dev-cycle` waiting at its first gate.
    async fn at_gate(&self, goal: &str) -> StepResponse {
        let started = self.start(goal).await;
        let waiting = self.advance(started.run, notes("Planned the work.")).await;
        assert_eq!(waiting.status, RunStatus::WaitingGate);
        waiting
    }
}

fn notes(text: &str) -> AdvanceInput {
    AdvanceInput { notes: Some(text.into()), ..AdvanceInput::default() }
}

/// Percent-encodes a form value.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (byte as char).to_string(),
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// The value of the first hidden field `name` of a page.
fn hidden(html: &str, name: &str) -> Option<String> {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker)? + marker.len();
    Some(html[start..start + html[start..].find('"')?].to_owned())
}

/// Every tag of a page (`<…>`), as written.
fn tags(html: &str) -> Vec<&str> {
    html.split('<').skip(1).filter_map(|rest| rest.split_once('>').map(|(tag, _)| tag)).collect()
}

/// Nothing in `html` can run: no script but the console's own, no handler attribute, no
/// `javascript:` target, no element from agent text.
fn assert_inert(html: &str) {
    for tag in tags(html) {
        let lower = tag.to_ascii_lowercase();
        if lower.starts_with("script") {
            assert_eq!(lower, "script src=\"/assets/live.js\" defer", "only the console's own script: {tag}");
        }
        assert!(!lower.contains("onerror") && !lower.contains("onload"), "a handler attribute survived: <{tag}>");
        assert!(!lower.contains("javascript:"), "a javascript: target survived: <{tag}>");
        assert!(!lower.starts_with("img"), "an image from agent text survived: <{tag}>");
        assert!(!lower.starts_with("/textarea") || html.matches("</textarea>").count() <= 1, "<{tag}>");
    }
}

const HOSTILE: &str =
    "<script>alert(1)</script> [click](javascript:alert(2)) <img src=x onerror=alert(3)> </textarea><b>x</b>";

#[tokio::test]
async fn the_sessions_page_lists_each_session_with_its_facts() {
    let console = Console::new().await;
    let waiting = console.at_gate("Review the parser").await;
    let active = console.start("Write the changelog").await;
    let html = console.page("/").await;
    for session in [waiting.session, active.session] {
        assert!(html.contains(&format!("id=\"session-{session}\"")), "{html}");
        assert!(html.contains(&format!("href=\"/sessions/{session}\"")), "{html}");
    }
    assert!(html.contains("Review the parser") && html.contains("Write the changelog"), "{html}");
    assert!(html.contains("status-waiting_gate") && html.contains("status-active"), "{html}");
    assert!(html.contains("dev-cycle") && html.contains("class=\"format\""), "the workflow and its format: {html}");
    assert!(html.contains("<th scope=\"col\">Last activity</th>"), "{html}");
    assert!(html.contains("id=\"gate-count\" data-live") && html.contains(">1</span>"), "one run waits: {html}");
    assert!(html.contains("<script src=\"/assets/live.js\" defer></script>"), "{html}");
    let position = |session: SessionId| html.find(&format!("session-{session}")).unwrap();
    assert!(position(active.session) < position(waiting.session), "most recently active first");
}

#[tokio::test]
async fn the_sessions_page_filters_by_status_and_workspace_and_searches_goals_and_notes() {
    let console = Console::new().await;
    let waiting = console.at_gate("Review the parser").await;
    let active = console.start("Write the changelog").await;
    let html = console.page("/?status=waiting_gate").await;
    assert!(html.contains(&waiting.session.to_string()) && !html.contains(&active.session.to_string()), "{html}");
    let html = console.page("/?workspace=%2Fnowhere").await;
    assert!(html.contains("data-testid=\"sessions-empty\""), "{html}");
    let html = console.page("/?q=changelog").await;
    assert!(html.contains(&active.session.to_string()) && !html.contains(&waiting.session.to_string()), "{html}");
    let html = console.page("/?q=Planned").await;
    assert!(html.contains(&waiting.session.to_string()), "notes are searched too: {html}");
    assert!(html.contains("notes: "), "the hit says where it matched: {html}");
    let answer = console.get("/?status=sleeping").await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(answer.body.contains("not a run status"), "{}", answer.body);
}

#[tokio::test]
async fn the_sessions_page_pages_by_keyset() {
    let console = Console::new().await;
    let mut sessions = Vec::new();
    for index in 0..52 {
        sessions.push(console.start(&format!("goal {index}")).await.session);
    }
    let first = console.page("/").await;
    assert_eq!(first.matches("data-testid=\"session-row\"").count(), 50);
    let older = first.split("href=\"").find(|rest| rest.starts_with("/?before=")).unwrap();
    let older = older[..older.find('"').unwrap()].replace("&amp;", "&");
    let second = console.page(&older).await;
    assert_eq!(second.matches("data-testid=\"session-row\"").count(), 2, "{second}");
    assert!(second.contains(&sessions[0].to_string()) && second.contains(&sessions[1].to_string()));
    assert!(!second.contains("data-testid=\"older-page\""), "the last page links no further");
    assert_eq!(console.get("/?before=yesterday").await.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_session_page_shows_the_graph_the_tip_the_pending_step_and_the_counters() {
    let console = Console::new().await;
    let started = console.start("Review the parser").await;
    let blocked = console.advance(started.run, AdvanceInput::default()).await;
    assert_eq!(blocked.status, RunStatus::Blocked, "notes are required");
    let html = console.page(&format!("/sessions/{}", started.session)).await;
    assert!(html.contains("Review the parser"), "{html}");
    assert!(html.contains("id=\"run-graph\" data-live") && html.contains("data-testid=\"node-tree\""), "{html}");
    assert!(html.contains("<svg") && html.contains("sy-diagram--run"), "the run drawn: {html}");
    assert!(!html.contains("style=\""), "no inline style, which the policy forbids: {html}");
    assert!(html.contains(&format!("id=\"node-{}\"", started.node)), "the start node: {html}");
    assert!(html.contains("node-blocked_attempt"), "the blocked attempt: {html}");
    assert!(html.contains("aria-current=\"step\"") && html.contains("class=\"tip\""), "the tip is marked: {html}");
    assert!(html.contains("The last attempt was blocked") && html.contains("NOTES_REQUIRED"), "{html}");
    assert!(html.contains("Failed attempts at this step</dt><dd>1 of 3"), "counters and limits: {html}");
    assert!(html.contains("Cycles</dt><dd>0 of 10"), "{html}");
    assert!(html.contains("data-testid=\"pause-button\""), "controls: {html}");
    assert_eq!(console.get("/sessions/sess_nonsense").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_fork_shows_as_branches_side_by_side() {
    let console = Console::new().await;
    let started = console.start("Fork me").await;
    let shown = console.runtime.show(&Target::Node(started.node)).await.unwrap();
    let first = console.runtime.advance(&shown.tokens.continue_token.unwrap(), None, notes("one")).await.unwrap();
    let again = console.runtime.show(&Target::Node(started.node)).await.unwrap();
    let second = console.runtime.advance(&again.tokens.continue_token.unwrap(), None, notes("two")).await.unwrap();
    assert!(second.forked);
    let html = console.page(&format!("/sessions/{}", started.session)).await;
    assert!(html.contains("<ul class=\"forks\" aria-label=\"2 branches\">"), "{html}");
    assert!(
        html.contains(&format!("id=\"node-{}\"", first.node)) && html.contains(&format!("id=\"node-{}\"", second.node))
    );
    assert!(html.contains("class=\"fork\""), "the fork is marked: {html}");

    // Each gate says where it stands now, in the node list and in the run tree alike: the tip's
    // waits, the one the fork left was never answered, and an approved one is decided.
    let gate_words = |html: &str, node: NodeId| {
        let link = &html[html.find(&format!("id=\"node-{node}\"")).unwrap()..];
        let link = &link[..link.find("</a>").unwrap()];
        let tree = &html[html.find(&format!("data-node=\"{node}\"")).unwrap()..];
        let tree = &tree[..tree.find("</a>").unwrap()];
        let state = ["waiting", "undecided", "decided"].into_iter().find(|state| link.contains(&format!(">{state}<")));
        assert!(tree.contains(&format!("gate · {}", state.unwrap_or("?"))), "the box agrees with the list: {tree}");
        state
    };
    assert_eq!(gate_words(&html, first.node), Some("undecided"), "{html}");
    assert_eq!(gate_words(&html, second.node), Some("waiting"), "{html}");
    console.runtime.approve(second.run, None).await.unwrap();
    let html = console.page(&format!("/sessions/{}", started.session)).await;
    assert_eq!(gate_words(&html, second.node), Some("decided"), "{html}");
    assert_eq!(gate_words(&html, first.node), Some("undecided"), "{html}");
}

#[tokio::test]
async fn a_node_page_shows_the_prompt_the_notes_the_artifacts_and_the_context() {
    let console = Console::new().await;
    let started = console.start("Review the parser").await;
    let input = AdvanceInput {
        notes: Some("## Plan\n\n- read **the parser**".into()),
        artifacts: Some(json!({ "files": ["src/parser.rs"] })),
        context: Some(json!({ "scope": "parser" }).as_object().unwrap().clone()),
        ..AdvanceInput::default()
    };
    let waiting = console.advance(started.run, input).await;
    let start_page = console.page(&format!("/sessions/{}/nodes/{}", started.session, started.node)).await;
    assert!(
        start_page.contains("data-testid=\"node-prompt\"") && start_page.contains("Review the parser"),
        "{start_page}"
    );
    let html = console.page(&format!("/sessions/{}/nodes/{}", started.session, waiting.node)).await;
    assert!(html.contains("The report that led here"), "{html}");
    assert!(html.contains("<h2>Plan</h2>") && html.contains("<strong>the parser</strong>"), "Markdown: {html}");
    assert!(html.contains("<details><summary>Artifacts</summary>") && html.contains("src/parser.rs"), "{html}");
    assert!(html.contains("&quot;scope&quot;: &quot;parser&quot;"), "the context at the node: {html}");
    let other = console.start("Another").await;
    let answer = console.get(&format!("/sessions/{}/nodes/{}", other.session, waiting.node)).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "a node is shown only under its own session");
}

#[tokio::test]
async fn agent_written_text_comes_out_inert_on_every_page() {
    let console = Console::new().await;
    let started = console.start(HOSTILE).await;
    let input = AdvanceInput {
        notes: Some(HOSTILE.into()),
        artifacts: Some(json!({ "html": HOSTILE })),
        context: Some(json!({ "x": HOSTILE }).as_object().unwrap().clone()),
        ..AdvanceInput::default()
    };
    let waiting = console.advance(started.run, input).await;
    let (cookie, csrf) = console.csrf().await;
    let run = waiting.run.to_string();
    let node = waiting.node.to_string();
    let session = waiting.session.to_string();
    let fields = [("csrf", csrf.as_str()), ("run", &run), ("node", &node), ("session", &session), ("reason", HOSTILE)];
    assert_eq!(console.post("/gates/reject", Some(&cookie), &fields).await.status, StatusCode::SEE_OTHER);
    let nodes = console.runtime.run_nodes(waiting.run).await.unwrap();
    let mut pages = vec!["/".to_owned(), "/?q=alert".to_owned(), "/gates".to_owned(), format!("/sessions/{session}")];
    pages.extend(nodes.iter().map(|node| format!("/sessions/{session}/nodes/{}", node.id)));
    for path in pages {
        let html = console.page(&path).await;
        assert_inert(&html);
        assert!(!html.contains("<b>x</b>"), "{path}: {html}");
    }
    let notes_page = console.page(&format!("/sessions/{session}/nodes/{node}")).await;
    assert!(notes_page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "shown as text: {notes_page}");
}

#[tokio::test]
async fn approving_through_the_form_moves_the_run_as_the_cli_does() {
    let console = Console::new().await;
    let by_form = console.at_gate("By the form").await;
    let by_command = console.at_gate("By the command").await;
    let (cookie, csrf) = console.csrf().await;
    let (run, node, session) = (by_form.run.to_string(), by_form.node.to_string(), by_form.session.to_string());
    let fields = [
        ("csrf", csrf.as_str()),
        ("run", &run),
        ("node", &node),
        ("session", &session),
        ("from", "gates"),
        ("note", "ok"),
    ];
    let answer = console.post("/gates/approve", Some(&cookie), &fields).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    assert_eq!(answer.headers[header::LOCATION], "/gates");
    let flash = answer
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .any(|value| value.to_str().unwrap().starts_with("switchyard_flash="));
    assert!(flash, "a flash message for the next page");
    let expected = console.runtime.approve(by_command.run, Some("ok".into())).await.unwrap();
    let moved = console.runtime.show(&Target::Run(by_form.run)).await.unwrap();
    assert_eq!(
        (moved.status, moved.step.map(|step| step.step)),
        (expected.status, expected.step.map(|step| step.step))
    );
    assert_eq!(moved.progress, expected.progress);
    let html = console.page("/gates").await;
    assert!(html.contains("data-testid=\"gates-empty\""), "nobody waits now: {html}");
}

#[tokio::test]
async fn an_inbox_with_more_waiting_than_it_lists_links_to_all_of_them() {
    let console = Console::new().await;
    // The inbox lists the 100 most recently active runs of each kind (`MAX_LISTED`).
    let oldest = console.at_gate("Waiting longest").await;
    for index in 0..100 {
        console.at_gate(&format!("Waiting {index}")).await;
    }
    let html = console.page("/gates").await;
    assert_eq!(html.matches("data-testid=\"gate-item\"").count(), 100, "{html}");
    assert!(!html.contains(&format!("id=\"gate-{}\"", oldest.run)), "the oldest is past the list: {html}");
    assert!(html.contains("data-testid=\"gates-more\""), "{html}");
    assert!(html.contains(">100+</span>"), "the navigation counts 100 and says there are more: {html}");
    assert!(html.contains("href=\"/?status=waiting_gate\""), "a link to every run at a gate: {html}");
    assert!(!html.contains("href=\"/?status=waiting_for_human_decision\""), "no decision waits: {html}");
    let mut listed = console.page("/?status=waiting_gate").await;
    while !listed.contains(&oldest.session.to_string()) {
        let older =
            listed.split("rel=\"next\"").next().and_then(|head| head.rsplit_once("href=\"")).map(|(_, tail)| tail);
        let older = older.and_then(|tail| tail.split_once('"')).map(|(href, _)| href.replace("&amp;", "&"));
        listed = console.page(&older.expect("an older page while the oldest is not listed")).await;
    }

    let html = console.page("/gates").await;
    assert!(html.contains("data-testid=\"gates-more\""));
    console.runtime.approve(oldest.run, None).await.unwrap();
    let html = console.page("/gates").await;
    assert!(!html.contains("data-testid=\"gates-more\""), "100 wait now, all listed: {html}");
    assert!(html.contains(">100</span>"), "and all counted: {html}");
}

#[tokio::test]
async fn rejecting_through_the_form_moves_the_run_as_the_cli_does_and_needs_a_reason() {
    let console = Console::new().await;
    let by_form = console.at_gate("By the form").await;
    let by_command = console.at_gate("By the command").await;
    let (cookie, csrf) = console.csrf().await;
    let (run, node, session) = (by_form.run.to_string(), by_form.node.to_string(), by_form.session.to_string());
    let base = [("csrf", csrf.as_str()), ("run", run.as_str()), ("node", node.as_str()), ("session", session.as_str())];
    let no_reason = console.post("/gates/reject", Some(&cookie), &[&base[..], &[("reason", "  ")]].concat()).await;
    assert_eq!(no_reason.status, StatusCode::BAD_REQUEST, "{}", no_reason.body);
    assert_eq!(console.runtime.run(&Target::Run(by_form.run)).await.unwrap().status, RunStatus::WaitingGate);
    let fields = [&base[..], &[("reason", "Scope it to the parser"), ("from", "session")]].concat();
    let answer = console.post("/gates/reject", Some(&cookie), &fields).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    assert_eq!(answer.headers[header::LOCATION], format!("/sessions/{session}").as_str());
    let expected = console.runtime.reject(by_command.run, "Scope it to the parser".into()).await.unwrap();
    let moved = console.runtime.show(&Target::Run(by_form.run)).await.unwrap();
    assert_eq!(moved.status, expected.status);
    assert_eq!(moved.step.as_ref().and_then(|step| step.rejection.clone()), Some("Scope it to the parser".to_owned()));
    assert_eq!(moved.progress, expected.progress);
}

#[tokio::test]
async fn deciding_through_the_form_moves_the_run_as_the_cli_does() {
    let console = Console::new().await;
    let by_form = console.at_gate("By the form").await;
    let by_command = console.at_gate("By the command").await;
    for run in [by_form.run, by_command.run] {
        loop {
            let rejected = console.runtime.reject(run, "again".into()).await.unwrap();
            if rejected.status == RunStatus::WaitingForHumanDecision {
                break;
            }
            console.advance(run, notes("Planned again.")).await;
        }
    }
    let html = console.page("/gates").await;
    assert!(
        html.contains("data-testid=\"decision-actions\"") && html.contains("data-testid=\"decide-accept\""),
        "{html}"
    );
    let (cookie, csrf) = console.csrf().await;
    let tip = console.runtime.run(&Target::Run(by_form.run)).await.unwrap().tip.to_string();
    let (run, session) = (by_form.run.to_string(), by_form.session.to_string());
    let base = [("csrf", csrf.as_str()), ("run", run.as_str()), ("node", tip.as_str()), ("session", session.as_str())];
    let bad = console.post("/gates/decide", Some(&cookie), &[&base[..], &[("option", "maybe")]].concat()).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.body);
    // The note is a text area, so Enter in it submits nothing; stopping needs its own tick.
    assert!(html.contains("<textarea") && html.contains("data-testid=\"decide-note\""), "{html}");
    assert!(html.contains("data-testid=\"decide-confirm\""), "{html}");
    let unconfirmed = console.post("/gates/decide", Some(&cookie), &[&base[..], &[("option", "stop")]].concat()).await;
    assert_eq!(unconfirmed.status, StatusCode::BAD_REQUEST, "{}", unconfirmed.body);
    assert!(unconfirmed.body.contains("Stopping is permanent"), "{}", unconfirmed.body);
    let still = console.runtime.show(&Target::Run(by_form.run)).await.unwrap();
    assert_eq!(still.status, RunStatus::WaitingForHumanDecision, "nothing was decided");
    let answer = console.post("/gates/decide", Some(&cookie), &[&base[..], &[("option", "accept")]].concat()).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    let expected = console.runtime.decide(by_command.run, DecisionOption::Accept, None).await.unwrap();
    let moved = console.runtime.show(&Target::Run(by_form.run)).await.unwrap();
    assert_eq!(
        (moved.status, moved.step.map(|step| step.step)),
        (expected.status, expected.step.map(|step| step.step))
    );
}

#[tokio::test]
async fn a_form_without_this_browsers_csrf_token_is_refused_and_changes_nothing() {
    let console = Console::new().await;
    let waiting = console.at_gate("Guard me").await;
    let (cookie, csrf) = console.csrf().await;
    let (run, node, session) = (waiting.run.to_string(), waiting.node.to_string(), waiting.session.to_string());
    let fields = |csrf: &'static str| vec![("csrf", csrf), ("run", "RUN"), ("node", "NODE"), ("session", "SESSION")];
    let other_browser = "switchyard_csrf=".to_owned() + &"0".repeat(64);
    for (cookie, token) in [
        (None, csrf.as_str()),
        (Some(cookie.as_str()), ""),
        (Some(cookie.as_str()), "0000"),
        (Some(other_browser.as_str()), csrf.as_str()),
    ] {
        let filled: Vec<(&str, &str)> = fields("")
            .into_iter()
            .map(|(key, value)| match key {
                "csrf" => (key, token),
                "run" => (key, run.as_str()),
                "node" => (key, node.as_str()),
                "session" => (key, session.as_str()),
                _ => (key, value),
            })
            .collect();
        for path in ["/gates/approve", "/gates/reject", "/gates/decide"] {
            let answer =
                console.post(path, cookie, &[&filled[..], &[("reason", "no"), ("option", "accept")]].concat()).await;
            assert_eq!(answer.status, StatusCode::FORBIDDEN, "{path} with {cookie:?} and `{token}`: {}", answer.body);
            assert!(answer.body.contains("CSRF"), "{}", answer.body);
        }
        let control = format!("/sessions/{session}/control");
        let answer = console.post(&control, cookie, &[("csrf", token), ("run", &run), ("action", "stop")]).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN);
    }
    let run = console.runtime.run(&Target::Run(waiting.run)).await.unwrap();
    assert_eq!((run.status, run.tip), (RunStatus::WaitingGate, waiting.node), "nothing moved");
}

#[tokio::test]
async fn a_gate_form_for_a_gate_decided_elsewhere_is_refused_and_changes_nothing() {
    let console = Console::new().await;
    let waiting = console.at_gate("Decided elsewhere").await;
    let (cookie, csrf) = console.csrf().await;
    let rejected = console.runtime.reject(waiting.run, "Not this way.".to_owned()).await.unwrap();
    let (run, node, session) = (waiting.run.to_string(), waiting.node.to_string(), waiting.session.to_string());
    let fields = [("csrf", csrf.as_str()), ("run", &run), ("node", &node), ("session", &session)];
    let answer = console.post("/gates/approve", Some(&cookie), &fields).await;
    assert_eq!(answer.status, StatusCode::CONFLICT, "{}", answer.body);
    assert!(answer.body.contains("already decided"), "{}", answer.body);
    let now = console.runtime.run(&Target::Run(waiting.run)).await.unwrap();
    assert_eq!(now.tip, rejected.node, "the rejection stands; the approval did nothing");
}

#[tokio::test]
async fn a_gate_form_for_a_node_the_run_has_left_is_refused() {
    let console = Console::new().await;
    let started = console.start("Moved on").await;
    let waiting = console.advance(started.run, notes("Planned the work.")).await;
    let (cookie, csrf) = console.csrf().await;
    // A form naming the run's first node, where no gate ever waited: the run has left it.
    let (run, node, session) = (started.run.to_string(), started.node.to_string(), started.session.to_string());
    let fields = [("csrf", csrf.as_str()), ("run", &run), ("node", &node), ("session", &session)];
    let answer = console.post("/gates/approve", Some(&cookie), &fields).await;
    assert_eq!(answer.status, StatusCode::CONFLICT, "{}", answer.body);
    assert!(answer.body.contains("has moved on"), "{}", answer.body);
    let now = console.runtime.run(&Target::Run(started.run)).await.unwrap();
    assert_eq!((now.status, now.tip), (RunStatus::WaitingGate, waiting.node), "nothing moved");
}

#[tokio::test]
async fn pause_resume_and_stop_through_the_forms() {
    let console = Console::new().await;
    let started = console.start("Control me").await;
    let (cookie, csrf) = {
        console.at_gate("so the inbox has a form").await;
        console.csrf().await
    };
    let path = format!("/sessions/{}/control", started.session);
    let run = started.run.to_string();
    // Stopping is permanent: without the confirmation the form is refused and the run goes on.
    let unconfirmed = [("csrf", csrf.as_str()), ("run", &run), ("action", "stop"), ("reason", "typo, then Enter")];
    let answer = console.post(&path, Some(&cookie), &unconfirmed).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.body);
    assert!(answer.body.contains("stopping a run is permanent"), "{}", answer.body);
    assert_eq!(console.runtime.run(&Target::Run(started.run)).await.unwrap().status, RunStatus::Active);
    for (action, status) in [("pause", RunStatus::Paused), ("resume", RunStatus::Active), ("stop", RunStatus::Stopped)]
    {
        let fields = [("csrf", csrf.as_str()), ("run", &run), ("action", action), ("confirm", action)];
        let answer = console.post(&path, Some(&cookie), &fields).await;
        assert_eq!(answer.status, StatusCode::SEE_OTHER, "{action}: {}", answer.body);
        assert_eq!(console.runtime.run(&Target::Run(started.run)).await.unwrap().status, status, "{action}");
    }
    let html = console.page(&format!("/sessions/{}", started.session)).await;
    assert!(!html.contains("data-testid=\"run-controls\""), "a stopped run offers no controls: {html}");
}

#[tokio::test]
async fn every_answer_carries_the_security_headers_and_the_stylesheet_is_cached_for_good() {
    let console = Console::new().await;
    let answer = console.get("/").await;
    let csp = answer.headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(csp.contains(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
    ));
    assert_eq!(answer.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert_eq!(
        answer.headers[header::REFERRER_POLICY],
        "same-origin",
        "the console's own forms must post their Origin"
    );
    let cookie = answer.headers[header::SET_COOKIE].to_str().unwrap();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"), "{cookie}");
    let stylesheet = answer.body.split("rel=\"stylesheet\" href=\"").nth(1).unwrap().split('"').next().unwrap();
    let css = console.get(stylesheet).await;
    assert_eq!(css.status, StatusCode::OK);
    assert!(css.headers[header::CACHE_CONTROL].to_str().unwrap().contains("immutable"));
    assert!(css.headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/css"));
    assert!(!answer.body.contains("style=\""), "no inline style, which the policy forbids");
    assert_eq!(console.get("/nowhere").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_workflows_pages_show_the_catalog_and_a_workflows_steps_and_edges() {
    let console = Console::new().await;
    let html = console.page("/workflows").await;
    assert!(html.contains("id=\"workflow-dev-cycle\"") && html.contains("builtin:dev-cycle"), "{html}");
    assert!(html.contains("sha256:"), "the hash: {html}");
    let html = console.page("/workflows/dev-cycle").await;
    assert!(html.contains("id=\"step-plan\"") && html.contains("<span class=\"tag\">gate</span>"), "{html}");
    assert!(
        html.contains("<code>loop</code> → <a href=\"#step-plan\">")
            && html.contains("<span class=\"tag\">loop</span>"),
        "{html}"
    );
    assert!(html.contains("data-testid=\"workflow-diagram\"") && html.contains("sy-diagram--workflow"), "{html}");
    assert!(!html.contains("style=\""), "{html}");
    assert_eq!(console.get("/workflows/no-such-workflow").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_verify_page_runs_verify_and_shows_what_it_found() {
    let console = Console::new().await;
    console.at_gate("Something to verify").await;
    let html = console.page("/verify").await;
    assert!(html.contains("Verified 1 sessions,") && html.contains("no problems"), "{html}");
}

#[tokio::test]
async fn a_node_page_shows_the_runners_turns_on_it_and_their_text_is_inert() {
    use switchyard_core::turn::{
        ModelTurn, TurnMessage, TurnRequest, TurnResponse, TurnToolCall, TurnToolResult, TurnUsage,
    };
    let console = Console::new().await;
    let started = console.start("Review the parser").await;
    let turn = ModelTurn {
        node: started.node,
        step: started.step.clone().expect("a pending step").step,
        turn: 1,
        model: "local-coder".into(),
        request: TurnRequest {
            messages: 2,
            tools: 9,
            fresh: true,
            trimmed: 0,
            new_messages: vec![TurnMessage { role: "system".into(), content: format!("You plan. {HOSTILE}") }],
        },
        response: TurnResponse {
            text: Some(format!("I will read it. {HOSTILE}")),
            tool_calls: vec![TurnToolCall {
                id: "call_1".into(),
                name: "read_file".into(),
                arguments: json!({ "path": HOSTILE }).to_string(),
            }],
            finish_reason: Some("tool_calls".into()),
        },
        tool_results: vec![TurnToolResult {
            call_id: "call_1".into(),
            name: "read_file".into(),
            ok: true,
            content: HOSTILE.into(),
            micros: 120,
            refusal: None,
        }],
        usage: TurnUsage { prompt_tokens: 812, completion_tokens: 40, estimated: false },
        latency_ms: 950,
        cost_usd: Some(0.0021),
    };
    console.runtime.record_turn(started.run, turn).await.unwrap();
    let html = console.page(&format!("/sessions/{}/nodes/{}", started.session, started.node)).await;
    assert!(html.contains("Model turn 1 (local-coder)"), "{html}");
    assert!(html.contains("812 prompt + 40 completion tokens") && html.contains("$0.0021"), "{html}");
    assert!(html.contains("data-testid=\"turn-text\"") && html.contains("I will read it."), "{html}");
    assert!(html.contains("<code>read_file</code> · ok"), "the call and how it went: {html}");
    assert_inert(&html);
    assert!(!html.contains("<b>x</b>"), "{html}");
}

#[tokio::test]
async fn a_gate_shows_what_switchyard_checked_beside_the_agents_notes() {
    let console = Console::new().await;
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("CHANGES.md"), "- fixed the parser\n").unwrap();
    let file = workspace.path().join("checked.yaml");
    let workflow = "id: checked\nsteps:\n  - id: fix\n    prompt: Fix it.\n    gate: true\n    evidence:\n      - {kind: files, paths: [\"*.md\"]}\n      - {kind: files, paths: [\"tests/*.py\"]}\n";
    std::fs::write(&file, workflow).unwrap();
    let request = StartRequest {
        file: Some(file),
        goal: "Fix the parser".into(),
        workspace: Some(workspace.path().to_owned()),
        ..Default::default()
    };
    let started = console.runtime.start(&Catalog::builtins_only(), request).await.unwrap();
    // A failed check blocks the report; the node of the refusal shows what was seen.
    let refused = console.advance(started.run, notes("Fixed.")).await;
    assert_eq!(refused.status, RunStatus::Blocked);
    let refusal = console.page(&format!("/sessions/{}/nodes/{}", started.session, refused.node)).await;
    assert!(refusal.contains("Evidence: checks failed"), "{refusal}");
    assert!(refusal.contains("failed</span> files: nothing matches `tests/*.py`"), "{refusal}");

    std::fs::create_dir(workspace.path().join("tests")).unwrap();
    std::fs::write(workspace.path().join("tests/test_parser.py"), "").unwrap();
    let waiting = console.advance(started.run, notes("Fixed, with a test.")).await;
    assert_eq!(waiting.status, RunStatus::WaitingGate);
    let inbox = console.page("/gates").await;
    assert!(inbox.contains("data-testid=\"gate-evidence\""), "{inbox}");
    assert_eq!(inbox.matches("passed</span> files: every glob matched a file").count(), 2, "{inbox}");
}

#[tokio::test]
async fn a_node_page_explains_why_the_run_went_there_and_marks_the_edges_on_the_graph() {
    let console = Console::new().await;
    let workspace = tempfile::tempdir().unwrap();
    let file = workspace.path().join("review.yaml");
    let workflow = "id: review\nvariables:\n  stable: {type: boolean, default: false}\nsteps:\n  - id: check\n    prompt: Check it.\n    next:\n      - {to: done, label: ship, when: \"stable == true\"}\n      - {to: check, label: again, when: \"!stable\", kind: loop}\n  - id: done\n    prompt: Done.\n";
    std::fs::write(&file, workflow).unwrap();
    let request = StartRequest { file: Some(file), goal: "Review <b>it</b>".into(), ..Default::default() };
    let started = console.runtime.start(&Catalog::builtins_only(), request).await.unwrap();
    let again = console.advance(started.run, notes("Not yet.")).await;
    assert_eq!(
        again.why.as_ref().map(|why| why.sentence()).as_deref(),
        Some("took `again` because `!stable` held; not `ship`")
    );
    let page = console.page(&format!("/sessions/{}/nodes/{}", started.session, again.node)).await;
    assert!(page.contains("data-testid=\"node-why\""), "{page}");
    assert!(
        page.contains("switchyard took <code>again</code> because <code>!stable</code> held; not <code>ship</code>."),
        "{page}"
    );
    assert!(page.contains("<span class=\"mark mark-skip\">SKIP</span> edge <code>ship</code>: <code>stable == true</code> (stable = false); set stable to true would take it"), "{page}");
    assert!(page.contains("<span class=\"mark mark-pass\">PASS</span> edge <code>again</code>"), "{page}");
    // On the graph, the edge taken and the one not taken, each marked.
    assert!(page.contains("sy-edge--taken") && page.contains("TAKEN again"), "{page}");
    assert!(page.contains("sy-edge--skip") && page.contains("SKIP ship"), "{page}");
    assert_inert(&page);
}
