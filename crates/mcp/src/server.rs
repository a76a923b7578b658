//! The MCP server: a registry of tools listed and called by name. Every call's arguments are
//! checked against the tool's schema before anything is deserialized; tool failures come back as
//! tool results the model reads (`isError`), protocol faults as JSON-RPC errors.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use switchyard_catalog::Catalog;
use switchyard_core::suggest;
use switchyard_runtime::Runtime;

use crate::errors::ToolError;
use crate::registry::SwitchyardTool;
use crate::resources::{self, Subscriptions};
use crate::schemas::ToolSpec;
use crate::tools::{Answer, Tools};

/// Tools another crate adds to the server (the file tools, behind `--file-tools`).
#[async_trait::async_trait]
pub trait ToolProvider: Send + Sync + std::fmt::Debug + 'static {
    /// The tools' definitions; their input schemas are enforced before `call`.
    fn tools(&self) -> Vec<Tool>;

    /// Runs the named tool with checked arguments.
    async fn call(&self, name: &str, arguments: Map<String, Value>) -> CallToolResult;
}

/// What the server offers.
#[derive(Debug, Default, Clone)]
pub struct ServerOptions {
    /// Expose the fixture tools the MCP conformance suite calls by fixed names (off by default).
    pub conformance_fixtures: bool,
    /// Extra tool providers.
    pub providers: Vec<Arc<dyn ToolProvider>>,
}

const INSTRUCTIONS: &str = "switchyard keeps you on a workflow's rails. start_workflow (or resume_session, then continue_workflow with intent rehydrate) gives you one step; do it, then call continue_workflow exactly as the answer's `nextCall` says. Steps with a human gate wait for a person: you cannot approve them, tell the user the command the answer gives; the run's resource (switchyard://runs/<runId>) is updated when they decide, if you subscribe to it.";

#[derive(Debug)]
struct Inner {
    tools: Tools,
    /// Every tool listed, in order, with what runs its calls.
    entries: Vec<Entry>,
    fixtures: bool,
}

/// A listed tool: its definition and argument check, and what runs its calls.
#[derive(Debug)]
struct Entry {
    spec: ToolSpec,
    owner: Owner,
}

#[derive(Debug)]
enum Owner {
    Switchyard(SwitchyardTool),
    Provider(Arc<dyn ToolProvider>),
    Fixture,
}

/// The switchyard MCP server; cheap to clone. A clone shares everything, the runs a client
/// follows included: each connection gets its own through [`SwitchyardServer::for_connection`].
#[derive(Debug, Clone)]
pub struct SwitchyardServer {
    inner: Arc<Inner>,
    subscriptions: Arc<Subscriptions>,
}

impl SwitchyardServer {
    /// A server on `runtime` whose tools find workflows in `catalog`, or in the workspace a call
    /// names.
    pub fn new(runtime: Arc<Runtime>, catalog: Catalog, options: &ServerOptions) -> Self {
        let mut entries: Vec<Entry> = SwitchyardTool::ALL
            .into_iter()
            .map(|tool| Entry { spec: ToolSpec::own(tool.definition()), owner: Owner::Switchyard(tool) })
            .collect();
        for provider in &options.providers {
            for tool in provider.tools() {
                if entries.iter().any(|entry| entry.spec.name() == tool.name) {
                    tracing::warn!(tool = %tool.name, "a provider's tool has the name of an existing tool; it is left out");
                    continue;
                }
                entries.push(Entry { spec: ToolSpec::new(tool), owner: Owner::Provider(Arc::clone(provider)) });
            }
        }
        if options.conformance_fixtures {
            entries.extend(
                crate::fixtures::tools()
                    .into_iter()
                    .map(|tool| Entry { spec: ToolSpec::new(tool), owner: Owner::Fixture }),
            );
        }
        Self {
            inner: Arc::new(Inner {
                tools: Tools::new(runtime, catalog),
                entries,
                fixtures: options.conformance_fixtures,
            }),
            subscriptions: Arc::default(),
        }
    }

    /// The server for one more connection: the same tools and runtime, no runs followed yet.
    pub fn for_connection(&self) -> Self {
        Self { inner: Arc::clone(&self.inner), subscriptions: Arc::default() }
    }

    /// Every tool this server lists, in order.
    pub fn tool_list(&self) -> Vec<Tool> {
        self.inner.entries.iter().map(|entry| entry.spec.tool.clone()).collect()
    }

    pub fn runtime(&self) -> &Runtime {
        self.inner.tools.runtime()
    }

    /// Runs one tool call: unknown tool → protocol error; bad arguments → a VALIDATION_ERROR tool
    /// result; otherwise the tool's answer or its error, as a tool result.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        context: Option<&RequestContext<RoleServer>>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(entry) = self.inner.entries.iter().find(|entry| entry.spec.name() == name) else {
            let known: Vec<&str> = self.inner.entries.iter().map(|entry| entry.spec.name()).collect();
            let suggestion = suggest::closest(name, known.iter().copied())
                .map(|known| format!(" (did you mean `{known}`?)"))
                .unwrap_or_default();
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {name}{suggestion}; tools: {}", known.join(", ")),
                None,
            ));
        };
        let arguments = arguments.unwrap_or_default();
        if let Err(error) = entry.spec.check(&arguments) {
            return Ok(tool_error(&error));
        }
        let answer = match &entry.owner {
            Owner::Switchyard(tool) => tool.call(&self.inner.tools, arguments).await,
            Owner::Provider(provider) => return Ok(provider.call(name, arguments).await),
            Owner::Fixture => return crate::fixtures::call(name, arguments, context).await,
        };
        Ok(match answer {
            Ok(Answer { text, structured }) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(structured);
                result
            }
            Err(error) => tool_error(&error),
        })
    }
}

/// A tool error as WorkRail sends it: one text item holding the JSON envelope, `isError: true`.
pub fn tool_error(error: &ToolError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error.to_json())])
}

impl ServerHandler for SwitchyardServer {
    fn get_info(&self) -> ServerConfig {
        if self.inner.fixtures {
            return crate::fixtures::server_config();
        }
        ServerConfig::new(
            ServerCapabilities::builder().enable_tools().enable_resources().enable_resources_subscribe().build(),
        )
        .with_server_info(
            Implementation::new("switchyard", env!("CARGO_PKG_VERSION")).with_title("switchyard workflow runtime"),
        )
        .with_instructions(INSTRUCTIONS)
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if self.inner.fixtures {
            Ok(())
        } else {
            Err(ErrorData::method_not_found::<rmcp::model::SetLevelRequestMethod>())
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tool_list()))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        resources::list(self.runtime(), request.as_ref().and_then(|request| request.cursor.as_deref())).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::read(self.runtime(), &request.uri).await.map(ReadResourceResponse::from)
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        (!self.inner.fixtures).then(|| resources::accepted_filter(requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        resources::listen(self.runtime(), context).await
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.subscribe(self.runtime(), &request.uri, &context.peer).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let started = std::time::Instant::now();
        // Boxed, so the future rmcp moves into (and around) its task is a pointer, not the
        // largest tool's whole state machine.
        let result = Box::pin(self.call(&name, request.arguments, Some(&context))).await;
        tracing::debug!(tool = %name, elapsed_us = started.elapsed().as_micros() as u64, "tool call");
        result.map(CallToolResponse::from)
    }
}
