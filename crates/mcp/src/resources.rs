//! Runs as MCP resources: `switchyard://runs/{runId}` reads where a run stands, and a client that
//! follows one hears `notifications/resources/updated` after every commit to the run's session,
//! whichever process or server made it. The updates come from the store's change feed (SQLite's
//! file watcher, Postgres's `LISTEN`), so an agent waiting on a gate learns of the approval without
//! polling.
//!
//! A client follows runs in one of the two ways the protocol has had: `subscriptions/listen`
//! (protocol 2026-07-28), one request whose stream carries the updates of the runs it names; or
//! `resources/subscribe` and `resources/unsubscribe` (earlier versions), which add and remove runs
//! for the rest of the connection. Reading a resource writes nothing: it mints no token.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    ResourceUpdatedNotificationParam, SubscriptionFilter,
};
use rmcp::service::{Peer, SubscriptionContext};
use rmcp::{ErrorData, RoleServer};
use switchyard_core::{RunId, RunStatus, SessionId};
use switchyard_runtime::{Error, Runtime, Target};
use switchyard_store::{Changes, RecvError, SessionQuery};

use crate::wire::{RunResource, StepSummary};

/// What every run resource's URI starts with; the run id follows.
pub const RUN_URI_PREFIX: &str = "switchyard://runs/";

const RUN_URI_TEMPLATE: &str = "switchyard://runs/{runId}";
const MIME_TYPE: &str = "application/json";

/// How many runs one `resources/list` page names.
const LISTED_PER_PAGE: u32 = 50;

/// The URI of a run's resource.
pub fn run_uri(run: RunId) -> String {
    format!("{RUN_URI_PREFIX}{run}")
}

/// The run a resource URI names; a URI that names none is a bad request.
pub fn parse_run_uri(uri: &str) -> Result<RunId, ErrorData> {
    let id = uri.strip_prefix(RUN_URI_PREFIX).ok_or_else(|| {
        ErrorData::invalid_params(
            format!(
                "`{uri}` is not a switchyard resource: runs are `{RUN_URI_TEMPLATE}`, and resources/list names them"
            ),
            None,
        )
    })?;
    id.parse().map_err(|error| {
        ErrorData::invalid_params(format!("`{uri}` names no run ({error}): resources/list names the runs"), None)
    })
}

/// What moves a run on from `status`, in words.
fn next_move(run: RunId, status: RunStatus) -> String {
    match status {
        RunStatus::Active | RunStatus::Blocked => format!(
            "call continue_workflow with the step's latest continueToken (resume_session with runId {run} gives a fresh one)"
        ),
        RunStatus::WaitingGate => format!(
            "a person approves or rejects the step (`switchyard approve {run}`, `switchyard reject {run} --reason …`, or the console); this resource is updated when they do"
        ),
        RunStatus::WaitingForHumanDecision => format!(
            "a person decides how the run goes on (`switchyard decide {run} …` or the console); this resource is updated when they do"
        ),
        RunStatus::Paused => format!("a person resumes the run (`switchyard resume {run}`)"),
        RunStatus::Completed | RunStatus::Stopped | RunStatus::Failed => "nothing: the run has ended".to_owned(),
    }
}

fn not_found(uri: &str, error: &Error) -> ErrorData {
    match error {
        Error::NotFound { .. } => ErrorData::resource_not_found(format!("{uri}: {error}"), None),
        _ => ErrorData::internal_error(format!("reading {uri}: {error}"), None),
    }
}

/// `resources/read` of a run.
pub async fn read(runtime: &Runtime, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let run = parse_run_uri(uri)?;
    let record = runtime.run(&Target::Run(run)).await.map_err(|error| not_found(uri, &error))?;
    let pending = runtime.pending_at(record.tip).await.map_err(|error| not_found(uri, &error))?;
    let resource = RunResource {
        uri: uri.to_owned(),
        run_id: run.to_string(),
        session_id: record.session.to_string(),
        workflow_id: record.workflow_id,
        status: record.status,
        control: record.control.as_str(),
        node_id: record.tip.to_string(),
        step: pending.filter(|_| !record.status.is_terminal()).map(|pending| StepSummary {
            step_id: pending.step.to_string(),
            title: pending.title,
            gate: pending.gate,
            attempts_left: pending.attempts_left,
        }),
        node_count: record.node_count,
        created_at_ms: record.created_at_ms,
        updated_at_ms: record.updated_at_ms,
        next: next_move(run, record.status),
    };
    let text = serde_json::to_string(&resource)
        .map_err(|error| ErrorData::internal_error(format!("writing {uri}: {error}"), None))?;
    Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri).with_mime_type(MIME_TYPE)]))
}

/// `resources/list`: the runs of the most recently updated sessions first, a page at a time (the
/// cursor is the last row's `updatedAtMs.sessionId`).
pub async fn list(runtime: &Runtime, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
    let before = cursor.map(parse_cursor).transpose()?;
    let sessions = runtime
        .sessions(SessionQuery { limit: LISTED_PER_PAGE, before, ..SessionQuery::default() })
        .await
        .map_err(|error| ErrorData::internal_error(format!("listing runs: {error}"), None))?;
    let resources = sessions
        .iter()
        .filter_map(|session| {
            let run = session.run?;
            let status = session.status.map_or("", RunStatus::as_str);
            let workflow = session.workflow_id.as_deref().unwrap_or("a workflow");
            Some(
                Resource::new(run_uri(run), run.to_string())
                    .with_title(session.title.clone())
                    .with_description(format!("{workflow}, {status}"))
                    .with_mime_type(MIME_TYPE),
            )
        })
        .collect();
    let mut result = ListResourcesResult::with_all_items(resources);
    if sessions.len() == LISTED_PER_PAGE as usize
        && let Some(last) = sessions.last()
    {
        result.next_cursor = Some(format!("{}.{}", last.updated_at_ms, last.id));
    }
    Ok(result)
}

fn parse_cursor(cursor: &str) -> Result<(i64, SessionId), ErrorData> {
    let refused = || ErrorData::invalid_params(format!("`{cursor}` is not a cursor this server gave"), None);
    let (updated, session) = cursor.split_once('.').ok_or_else(refused)?;
    Ok((updated.parse().map_err(|_| refused())?, session.parse().map_err(|_| refused())?))
}

/// `resources/templates/list`: the one template, a run by its id.
pub fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(RUN_URI_TEMPLATE, "run")
            .with_title("A switchyard run")
            .with_description("Where a run stands: its status, the step at its tip, what moves it on.")
            .with_mime_type(MIME_TYPE),
    ])
}

/// What `subscriptions/listen` accepts of a filter: the run URIs among its resources, nothing else.
pub fn accepted_filter(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let runs = requested.resource_subscriptions.iter().flatten().filter(|uri| parse_run_uri(uri).is_ok()).cloned();
    SubscriptionFilter::builder().resource_subscriptions(runs).build()
}

/// The followed URIs, by the session whose commits update them.
#[derive(Debug, Default)]
struct Followed(HashMap<SessionId, BTreeSet<String>>);

impl Followed {
    /// The URIs a notice from the feed updates; `None` once the feed has closed. A gap in the feed
    /// updates every URI: what happened in it is unknown.
    fn updated_by(&self, notice: &Result<switchyard_store::Change, RecvError>) -> Option<Vec<String>> {
        match notice {
            Ok(change) => {
                Some(self.0.get(&change.session).map(|uris| uris.iter().cloned().collect()).unwrap_or_default())
            }
            Err(RecvError::Lagged(_)) => Some(self.0.values().flatten().cloned().collect()),
            Err(RecvError::Closed) => None,
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `subscriptions/listen`: an update for each accepted run at once (what the client reads then
/// includes any commit made before this stream heard the store), then one per commit to its
/// session, until the client cancels the request or the connection ends. A URI whose run does not
/// exist is accepted and never updated.
pub async fn listen(runtime: &Runtime, context: SubscriptionContext) -> Result<(), ErrorData> {
    let mut changes = runtime.subscribe().await;
    let mut followed = Followed::default();
    for uri in context.accepted().resource_subscriptions.iter().flatten() {
        if let Ok(record) = runtime.run(&Target::Run(parse_run_uri(uri)?)).await {
            followed.0.entry(record.session).or_default().insert(uri.clone());
        }
    }
    let sink = context.sink();
    for uri in followed.0.values().flatten() {
        if sink.notify_resource_updated(uri.clone()).await.is_err() {
            return Ok(());
        }
    }
    loop {
        let notice = tokio::select! {
            () = context.cancelled() => return Ok(()),
            notice = changes.recv() => notice,
        };
        let Some(uris) = followed.updated_by(&notice) else { return Ok(()) };
        for uri in uris {
            if sink.notify_resource_updated(uri).await.is_err() {
                return Ok(());
            }
        }
    }
}

/// The runs one connection follows through `resources/subscribe`, and the task that tells it of
/// their changes (started with the first subscription, ended with the last or with the connection).
#[derive(Debug, Default)]
pub struct Subscriptions {
    followed: Arc<Mutex<Followed>>,
    relay: Mutex<Option<tokio::task::AbortHandle>>,
}

impl Subscriptions {
    /// Follows `uri`'s run from now on: every commit after this returns reaches the client.
    pub async fn subscribe(&self, runtime: &Runtime, uri: &str, peer: &Peer<RoleServer>) -> Result<(), ErrorData> {
        let run = parse_run_uri(uri)?;
        let record = runtime.run(&Target::Run(run)).await.map_err(|error| not_found(uri, &error))?;
        let running = self
            .relay
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|relay| !relay.is_finished());
        // Subscribed to the feed before the answer goes back, so no commit after it is missed.
        let changes = if running { None } else { Some(runtime.subscribe().await) };
        self.followed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .0
            .entry(record.session)
            .or_default()
            .insert(uri.to_owned());
        if let Some(changes) = changes {
            let task = tokio::spawn(relay(changes, Arc::clone(&self.followed), peer.clone()));
            if let Some(earlier) =
                self.relay.lock().unwrap_or_else(PoisonError::into_inner).replace(task.abort_handle())
            {
                earlier.abort();
            }
        }
        Ok(())
    }

    /// Stops following `uri` (a URI not followed is no error, as the protocol has it).
    pub fn unsubscribe(&self, uri: &str) {
        let mut followed = self.followed.lock().unwrap_or_else(PoisonError::into_inner);
        followed.0.retain(|_, uris| {
            uris.remove(uri);
            !uris.is_empty()
        });
        if followed.is_empty()
            && let Some(relay) = self.relay.lock().unwrap_or_else(PoisonError::into_inner).take()
        {
            relay.abort();
        }
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        if let Some(relay) = self.relay.get_mut().unwrap_or_else(PoisonError::into_inner).take() {
            relay.abort();
        }
    }
}

/// Sends the client an update for each followed URI a commit touched, until the client is gone.
async fn relay(mut changes: Changes, followed: Arc<Mutex<Followed>>, peer: Peer<RoleServer>) {
    loop {
        let notice = changes.recv().await;
        let Some(uris) = followed.lock().unwrap_or_else(PoisonError::into_inner).updated_by(&notice) else { return };
        for uri in uris {
            if peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await.is_err() {
                return;
            }
        }
    }
}
