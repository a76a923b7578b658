//! `/workflows` and `/workflows/{name}`: the catalog as discovery sees it (each workflow's source,
//! format, hash, what it shadows and its diagnostics), and one workflow's steps and edges.
//!
//! The catalog reads and compiles files, so it runs on a blocking thread.

use axum::Extension;
use axum::extract::{Path, State};
use maud::{Markup, html};

use switchyard_catalog::{Catalog, Found};
use switchyard_core::workflow::EdgeTarget;

use crate::ConsoleState;
use crate::diagram;
use crate::error::PageError;
use crate::layout::{self, Frame, Section};
use crate::security::BrowserSession;
use switchyard_core::wire_name;

/// `work` with the catalog, on a blocking thread.
pub(crate) async fn with_catalog<T: Send + 'static>(
    catalog: &Catalog,
    work: impl FnOnce(&Catalog) -> T + Send + 'static,
) -> Result<T, PageError> {
    let catalog = catalog.clone();
    tokio::task::spawn_blocking(move || work(&catalog))
        .await
        .map_err(|error| PageError::Internal(format!("reading the workflow catalog failed: {error}")))
}

pub(crate) async fn catalog(
    State(state): State<ConsoleState>,
    Extension(browser): Extension<BrowserSession>,
) -> Result<Markup, PageError> {
    let found = with_catalog(&state.catalog, Catalog::list).await?;
    let frame = Frame::load(&state, &browser, Section::Workflows).await;
    let body = html! {
        h1 { "Workflows" }
        p { "Every workflow discovery finds, in the order it looks: the project's " code { ".switchyard/workflows/" } ", your home's " code { "workflows/" } ", attached folders, then the built-ins." }
        div.scroll {
            table data-testid="workflows-table" {
                thead {
                    tr {
                        th scope="col" { "Name" }
                        th scope="col" { "Source" }
                        th scope="col" { "Format" }
                        th scope="col" { "Hash" }
                        th scope="col" { "Shadows" }
                        th scope="col" { "Diagnostics" }
                    }
                }
                tbody {
                    @for workflow in &found {
                        tr id={ "workflow-" (workflow.name) } data-testid="workflow-row" {
                            td data-label="Name" { a href={ "/workflows/" (workflow.name) } data-testid="workflow-link" { (workflow.name) } }
                            td data-label="Source" { code.path { (workflow.location.describe()) } }
                            td data-label="Format" { (wire_name(&workflow.compiled.format)) }
                            td data-label="Hash" { (hash_of(workflow)) }
                            td data-label="Shadows" {
                                @for shadowed in &workflow.shadows { code.path { (shadowed.describe()) } br; }
                            }
                            td data-label="Diagnostics" { (diagnostic_count(workflow)) }
                        }
                    }
                }
            }
        }
    };
    Ok(layout::page("Workflows", &frame, &body))
}

fn hash_of(found: &Found) -> Markup {
    html! {
        @match &found.compiled.workflow {
            Some(workflow) => { code.hash title=(workflow.hash()) { (workflow.hash().to_string().chars().take(19).collect::<String>()) "…" } }
            None => { "—" }
        }
    }
}

fn diagnostic_count(found: &Found) -> Markup {
    let errors = found.compiled.diagnostics.iter().filter(|diagnostic| diagnostic.is_error()).count();
    let warnings = found.compiled.diagnostics.len() - errors;
    html! {
        @if errors > 0 { span.bad { (errors) " error(s)" } " " }
        @if warnings > 0 { span.warning { (warnings) " warning(s)" } }
        @if found.compiled.diagnostics.is_empty() { "none" }
    }
}

pub(crate) async fn show(
    State(state): State<ConsoleState>,
    Extension(browser): Extension<BrowserSession>,
    Path(name): Path<String>,
) -> Result<Markup, PageError> {
    let lookup = name.clone();
    let found = with_catalog(&state.catalog, move |catalog| catalog.find(&lookup)).await?;
    let found = found.map_err(|_| PageError::NotFound(format!("no workflow named `{name}` in the catalog")))?;
    let frame = Frame::load(&state, &browser, Section::Workflows).await;
    let body = html! {
        nav.breadcrumbs aria-label="Breadcrumbs" { a href="/workflows" { "Workflows" } " › " span { (found.name) } }
        h1 data-testid="workflow-title" { (found.compiled.workflow.as_ref().map_or(found.name.as_str(), |workflow| workflow.title.as_str())) }
        dl.facts {
            dt { "Name" } dd { code { (found.name) } }
            dt { "Source" } dd { code.path { (found.location.describe()) } }
            dt { "Format" } dd { (wire_name(&found.compiled.format)) }
            dt { "Hash" } dd { (hash_of(&found)) }
            @if !found.shadows.is_empty() {
                dt { "Shadows" } dd { @for shadowed in &found.shadows { code.path { (shadowed.describe()) } br; } }
            }
        }
        @if !found.compiled.diagnostics.is_empty() {
            section aria-labelledby="diagnostics-heading" {
                h2 id="diagnostics-heading" { "Diagnostics" }
                ul data-testid="diagnostics" {
                    @for diagnostic in &found.compiled.diagnostics {
                        li {
                            code { (diagnostic.to_string()) }
                            @if let Some(help) = &diagnostic.help { br; small { (help) } }
                        }
                    }
                }
            }
        }
        @if let Some(workflow) = &found.compiled.workflow {
            @if !workflow.description.is_empty() { p { (workflow.description) } }
            dl.facts {
                dt { "Limits" }
                dd { "cycles " (workflow.limits.max_cycles) ", revisions " (workflow.limits.max_revision_attempts) ", replans " (workflow.limits.max_replan_attempts) }
            }
            section aria-labelledby="graph-heading" {
                h2 id="graph-heading" { "Graph" }
                figure.diagram id="workflow-diagram" data-testid="workflow-diagram" { (diagram::workflow_graph(workflow)) }
                h3 { "Steps and edges" }
                ol.steps data-testid="workflow-steps" {
                    @for step in &workflow.steps {
                        li id={ "step-" (step.id) } {
                            strong { (step.title) } " " code { (step.id) }
                            @if step.id == workflow.entry { " " span.tag { "entry" } }
                            @if step.gate { " " span.tag { "gate" } }
                            @if let Some(phase) = &step.phase { " " span.tag { "phase " (phase) } }
                            " " small { "up to " (step.max_attempts) " attempts" }
                            @if step.edges.is_empty() { p { small { "Ends the run." } } }
                            ul.edges {
                                @for edge in &step.edges {
                                    li {
                                        code { (edge.label) } " → "
                                        @match &edge.target { EdgeTarget::Step(target) => { a href={ "#step-" (target) } { code { (target) } } } EdgeTarget::Complete => { "end" } }
                                        @let kind = wire_name(&edge.kind);
                                        @if kind != "normal" { " " span.tag { (kind) } }
                                        @if edge.default { " " span.tag { "default" } }
                                        @if let Some(condition) = edge.condition_text.as_ref().or(edge.condition.as_ref()) { " when " code { (condition) } }
                                        @if let Some(max) = edge.max_traversals { " · at most " (max) " times" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(layout::page(&found.name, &frame, &body))
}
