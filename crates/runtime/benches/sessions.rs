//! Benchmark: the SPEC's scale row, a store of 10,000 sessions and about 1,000,000 events.
//! Measures listing sessions (the first page and a page 5,000 rows deep, 50 rows each, of all
//! sessions and of the active ones, which are all of them; and those waiting at a gate, none), the
//! full-text search behind `resume_session` (a rare word, a middling one, the commonest one, a
//! sentence, the 32 commonest words), whole `resume_session` lookups (by a sentence, by
//! workspace, by git HEAD, by a word of the workflow id, by a rare and by the commonest branch),
//! and opening one run.
//!
//! Each session is a run of the loop workflow advanced 49 times with notes: words drawn from a
//! 5,000-word vocabulary with Zipf frequencies, so some words are in nearly every note and most
//! in few. Sessions start in turn in 100 workspaces, git repositories: 90 on `main`, 10 each on
//! a branch of its own. Building the store takes minutes, so it is built once and kept in
//! `target/tmp/sessions-scale-v2/`; later runs open it as it is (delete the folder to rebuild).

mod common;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use switchyard_catalog::Catalog;
use switchyard_core::state::RunStatus;
use switchyard_runtime::{AdvanceInput, ResumeRequest, Runtime, StartRequest, Target};
use switchyard_store::{SearchQuery, SessionQuery, Store};

const SESSIONS: usize = 10_000;
/// A start records 3 events and an advance 2: 3 + 2 × 49 = 101 events per session.
const ADVANCES_PER_SESSION: usize = 49;
const WORKERS: usize = 32;
const PAGE: u32 = 50;
const VOCABULARY: usize = 5_000;
/// Sessions start in these workspaces in turn, 100 sessions each.
const WORKSPACES: usize = 100;
/// Workspaces `0..TOPIC_BRANCHES` are each on a branch of their own, the others on `main`.
const TOPIC_BRANCHES: usize = 10;
/// Bump when the generated store changes shape, so an old kept store is not measured.
const FIXTURE: &str = "sessions-scale-v2";

/// The commonest words of the vocabulary, most frequent first; synthetic words follow them.
#[rustfmt::skip]
const COMMON_WORDS: &[&str] = &[
    "the", "to", "and", "of", "a", "in", "for", "is", "with", "on", "tests", "parser", "now", "step",
    "fixed", "added", "error", "module", "function", "update", "config", "build", "review", "change",
    "handler", "cache", "schema", "query", "index", "token", "session", "retry", "timeout", "logging",
    "migration", "endpoint",
];

fn sessions(c: &mut Criterion) {
    let tokio = common::tokio_runtime();
    let folder = common::bench_root().join(FIXTURE);
    let complete = folder.join("complete");
    if !complete.exists() && folder.exists() {
        std::fs::remove_dir_all(&folder).expect("remove a store whose build did not finish");
    }
    std::fs::create_dir_all(&folder).expect("create the fixture folder");
    let opening = Instant::now();
    let fixture = common::Fixture::kept(&folder);
    let opened = opening.elapsed();
    let runtime = &fixture.runtime;
    let words = Vocabulary::new();
    if complete.exists() {
        common::report(&format!("opened the kept store in {} in {opened:.1?}", folder.display()));
    } else {
        let began = Instant::now();
        for index in 0..WORKSPACES {
            create_workspace(&workspace(&folder, index), index);
        }
        tokio.block_on(build(&fixture.runtime, &fixture.workflow_file, &folder, &words));
        let report = tokio.block_on(fixture.store.verify()).expect("verify the built store");
        assert!(report.is_clean(), "the built store has problems: {:?}", report.problems);
        let line = format!(
            "built {} sessions and {} events in {:.1?}",
            report.sessions_checked,
            report.events_checked,
            began.elapsed()
        );
        common::report(&line);
        std::fs::write(&complete, line).expect("mark the store complete");
    }

    // The cursor of the 100th page: 5,000 rows deep.
    let cursor = tokio.block_on(async {
        let mut before = None;
        for _ in 0..100 {
            let page = runtime
                .sessions(SessionQuery { limit: PAGE, before, ..SessionQuery::default() })
                .await
                .expect("list sessions");
            let last = page.last().expect("a full page");
            before = Some((last.updated_at_ms, last.id));
        }
        before
    });
    let deep = tokio
        .block_on(runtime.sessions(SessionQuery { limit: PAGE, before: cursor, ..SessionQuery::default() }))
        .expect("list");
    assert_eq!(deep.len(), PAGE as usize);
    let active_deep = tokio
        .block_on(runtime.sessions(SessionQuery {
            limit: PAGE,
            before: cursor,
            status: Some(RunStatus::Active),
            ..SessionQuery::default()
        }))
        .expect("list");
    assert_eq!(active_deep, deep, "every session is active");
    let waiting = tokio
        .block_on(runtime.sessions(SessionQuery { status: Some(RunStatus::WaitingGate), ..SessionQuery::default() }))
        .expect("list");
    assert!(waiting.is_empty(), "no session waits at a gate");

    let rare = ticket(SESSIONS / 2);
    let searches = [
        ("search_rare_word", rare.clone()),
        ("search_middling_word", words.word(200).to_owned()),
        ("search_commonest_word", words.word(0).to_owned()),
        ("search_sentence", format!("pick up the parser work from {rare}")),
        // The worst case: a query keeps at most 32 words, here the 32 commonest.
        ("search_32_common_words", COMMON_WORDS[..32].join(" ")),
    ];
    for (name, text) in &searches {
        let hits = tokio
            .block_on(fixture.store.search_sessions(SearchQuery { text: text.clone(), limit: 20, workspace: None }))
            .expect("search");
        common::report(&format!("{name} ({text:?}): {} sessions", hits.len()));
    }
    let sentence = searches[3].1.clone();
    let found = tokio
        .block_on(
            runtime.resume_candidates(&ResumeRequest { query: Some(sentence.clone()), ..ResumeRequest::default() }),
        )
        .expect("resume");
    assert!(found[0].session.goal.contains(&rare), "the session the sentence names comes first");
    // Git facts are given, as an MCP client's would be read from its workspace (a `git` process).
    let (_, head) = tokio.block_on(switchyard_runtime::workspace::git_facts(&workspace(&folder, 50)));
    let lookups = [
        (
            "resume_same_workspace",
            ResumeRequest {
                workspace: Some(workspace(&folder, 50).display().to_string()),
                same_workspace_only: true,
                git_branch: Some("no-such-branch".to_owned()),
                ..ResumeRequest::default()
            },
            "recency",
        ),
        ("resume_by_head", ResumeRequest { git_head: head, ..ResumeRequest::default() }, "matched_head_sha"),
        (
            "resume_by_workflow_word",
            ResumeRequest { query: Some("loop".to_owned()), ..ResumeRequest::default() },
            "matched_workflow_id",
        ),
        (
            "resume_by_rare_branch",
            ResumeRequest { git_branch: Some(branch(3)), ..ResumeRequest::default() },
            "matched_branch",
        ),
        (
            "resume_by_commonest_branch",
            ResumeRequest { git_branch: Some(branch(50)), ..ResumeRequest::default() },
            "matched_branch",
        ),
    ];
    for (name, request, why) in &lookups {
        let found = tokio.block_on(runtime.resume_candidates(request)).expect("resume");
        assert_eq!(found.len(), 5, "{name}");
        assert!(found.iter().all(|candidate| candidate.why_matched[0] == *why), "{name}: {found:?}");
    }

    let mut group = c.benchmark_group("sessions");
    group.sample_size(20).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    measure(&mut group, &tokio, "list_first_page", || async {
        let query = SessionQuery { limit: PAGE, ..SessionQuery::default() };
        black_box(runtime.sessions(query).await.expect("list"));
    });
    measure(&mut group, &tokio, "list_page_after_5000", || async {
        let query = SessionQuery { limit: PAGE, before: cursor, ..SessionQuery::default() };
        black_box(runtime.sessions(query).await.expect("list"));
    });
    // Every session is active: a filter that matches all of them, so a page is the first entries read.
    measure(&mut group, &tokio, "list_active_first_page", || async {
        let query = SessionQuery { limit: PAGE, status: Some(RunStatus::Active), ..SessionQuery::default() };
        black_box(runtime.sessions(query).await.expect("list"));
    });
    measure(&mut group, &tokio, "list_active_page_after_5000", || async {
        let query =
            SessionQuery { limit: PAGE, before: cursor, status: Some(RunStatus::Active), ..SessionQuery::default() };
        black_box(runtime.sessions(query).await.expect("list"));
    });
    // No session waits at a gate: a filter that matches none, so the list looks at every session.
    measure(&mut group, &tokio, "list_waiting_gate", || async {
        let query = SessionQuery { limit: PAGE, status: Some(RunStatus::WaitingGate), ..SessionQuery::default() };
        black_box(runtime.sessions(query).await.expect("list"));
    });
    for (name, text) in &searches {
        measure(&mut group, &tokio, name, || async {
            let query = SearchQuery { text: text.clone(), limit: 20, workspace: None };
            black_box(fixture.store.search_sessions(query).await.expect("search"));
        });
    }
    measure(&mut group, &tokio, "resume_session_sentence", || async {
        let request = ResumeRequest { query: Some(sentence.clone()), ..ResumeRequest::default() };
        black_box(runtime.resume_candidates(&request).await.expect("resume"));
    });
    for (name, request, _) in &lookups {
        measure(&mut group, &tokio, name, || async {
            black_box(runtime.resume_candidates(request).await.expect("resume"));
        });
    }
    let target = Target::Run(found[0].run.expect("the found session has a run"));
    measure(&mut group, &tokio, "show_run", || async {
        black_box(runtime.show(&target).await.expect("show"));
    });
    measure(&mut group, &tokio, "run_record", || async {
        black_box(runtime.run(&target).await.expect("run"));
    });
    group.finish();
}

/// Times `call` as one criterion benchmark named `name`.
fn measure<F, Fut>(group: &mut BenchmarkGroup<'_, WallTime>, tokio: &tokio::runtime::Runtime, name: &str, call: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    group.bench_function(BenchmarkId::new(name, SESSIONS), |b| {
        b.iter_custom(|iters| {
            tokio.block_on(async {
                let began = Instant::now();
                for _ in 0..iters {
                    call().await;
                }
                began.elapsed()
            })
        });
    });
}

/// Starts every session and advances each run with notes, `WORKERS` sessions side by side.
async fn build(runtime: &Arc<Runtime>, workflow: &Path, folder: &Path, words: &Vocabulary) {
    let mut tasks = Vec::with_capacity(WORKERS);
    for worker in 0..WORKERS {
        let runtime = Arc::clone(runtime);
        let workflow = workflow.to_owned();
        let folder = folder.to_owned();
        let words = words.clone();
        tasks.push(tokio::spawn(async move {
            let mut random = StdRng::seed_from_u64(worker as u64);
            for index in (worker..SESSIONS).step_by(WORKERS) {
                let goal = format!("{} {}", words.text(&mut random, 8), ticket(index));
                let request = StartRequest {
                    file: Some(workflow.clone()),
                    goal,
                    workspace: Some(workspace(&folder, index % WORKSPACES)),
                    ..StartRequest::default()
                };
                let started = runtime.start(&Catalog::builtins_only(), request).await.expect("start a run");
                let mut token = common::continue_token(&started);
                for _ in 0..ADVANCES_PER_SESSION {
                    let length = random.random_range(24..40);
                    let input = AdvanceInput {
                        notes: Some(words.text(&mut random, length)),
                        choice: Some("again".to_owned()),
                        ..AdvanceInput::default()
                    };
                    let response = runtime.advance(&token, None, input).await.expect("advance");
                    token = common::continue_token(&response);
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("a builder task panicked");
    }
}

/// The folder of workspace `index`.
fn workspace(folder: &Path, index: usize) -> PathBuf {
    folder.join("workspaces").join(format!("w{index:03}"))
}

/// The branch workspace `index` is on.
fn branch(index: usize) -> String {
    if index < TOPIC_BRANCHES { format!("topic/{index}") } else { "main".to_owned() }
}

/// A git repository on [`branch`]`(index)` with one commit of its own (its message names the
/// workspace, so no two workspaces share a HEAD).
fn create_workspace(path: &Path, index: usize) {
    std::fs::create_dir_all(path).expect("create a workspace");
    let git = |arguments: &[&str]| switchyard_test_support::git(path, arguments);
    git(&["init", "--quiet", "--initial-branch", &branch(index)]);
    git(&["commit", "--quiet", "--allow-empty", "-m", &format!("workspace {index}")]);
}

/// The word only session `index`'s goal holds.
fn ticket(index: usize) -> String {
    format!("ticket{index:05}")
}

/// Words with Zipf frequencies: the word of rank `r` is drawn with weight `1 / (r + 1)`.
#[derive(Clone)]
struct Vocabulary {
    words: Arc<Vec<String>>,
    cumulative: Arc<Vec<f64>>,
}

impl Vocabulary {
    fn new() -> Self {
        // Synthetic words of four syllables, all distinct.
        const SYLLABLES: [&str; 12] = ["ka", "ri", "so", "tu", "me", "lo", "na", "pe", "vi", "du", "ze", "ho"];
        let mut words: Vec<String> = COMMON_WORDS.iter().map(|word| (*word).to_owned()).collect();
        let mut n = 0;
        while words.len() < VOCABULARY {
            let mut word = String::new();
            let mut rest = n;
            for _ in 0..4 {
                word.push_str(SYLLABLES[rest % SYLLABLES.len()]);
                rest /= SYLLABLES.len();
            }
            words.push(word);
            n += 1;
        }
        let mut total = 0.0;
        let cumulative = (0..words.len())
            .map(|rank| {
                total += 1.0 / (rank as f64 + 1.0);
                total
            })
            .collect();
        Self { words: Arc::new(words), cumulative: Arc::new(cumulative) }
    }

    fn word(&self, rank: usize) -> &str {
        &self.words[rank]
    }

    fn text(&self, random: &mut StdRng, length: usize) -> String {
        let total = self.cumulative[self.cumulative.len() - 1];
        let mut text = String::new();
        for _ in 0..length {
            let point = random.random::<f64>() * total;
            let rank = self.cumulative.partition_point(|&sum| sum < point).min(self.words.len() - 1);
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&self.words[rank]);
        }
        text
    }
}

criterion_group!(benches, sessions);
criterion_main!(benches);
