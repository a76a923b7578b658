//! `/metrics` of `switchyard serve`: the runtime's metrics and the HTTP door's own, in the
//! OpenMetrics text format Prometheus scrapes.
//!
//! Everything here is kept current as requests and commands happen (atomic counters, a gauge
//! the runtime moves on each commit), so a scrape encodes what is in memory and `stat`s the
//! store file (a SQLite store's; a database has none); it never queries the store, and `/mcp`
//! never waits on it.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::{Registry, Unit};

use crate::SwitchyardServer;

/// The content type of the OpenMetrics text format, which Prometheus asks for first.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The routes requests are counted by: any other path counts as `other`, so a client cannot grow
/// the label set by inventing paths.
const ROUTES: [&str; 3] = ["/mcp", "/metrics", "/health"];

/// The route a request's path is counted under: one of [`ROUTES`] (or below it), else `other`.
pub(crate) fn route_of(path: &str) -> &'static str {
    ROUTES
        .into_iter()
        .find(|route| path.strip_prefix(route).is_some_and(|rest| rest.is_empty() || rest.starts_with('/')))
        .unwrap_or("other")
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RequestLabels {
    route: &'static str,
    status: u16,
}

/// The registry `/metrics` encodes, with the metrics the HTTP door keeps itself.
#[derive(Debug)]
pub(crate) struct HttpMetrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    /// The store file's size; `None` when the store is a database, whose size is its server's to
    /// report (and would cost a query per scrape).
    store_size: Option<Gauge>,
    server: SwitchyardServer,
}

impl HttpMetrics {
    pub(crate) fn new(server: SwitchyardServer) -> Self {
        let mut registry = Registry::default();
        server.runtime().metrics().register(&mut registry);
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "switchyard_http_requests",
            "HTTP requests answered, by route and status (refusals by the guard included)",
            requests.clone(),
        );
        let store_size = server.runtime().store_size_bytes().is_some().then(|| {
            let gauge = Gauge::default();
            registry.register_with_unit(
                "switchyard_store_size",
                "Bytes the store file and its write-ahead log take on disk",
                Unit::Bytes,
                gauge.clone(),
            );
            gauge
        });
        Self { registry, requests, store_size, server }
    }

    /// Counts one answered request to `route` (one of [`route_of`]'s answers).
    pub(crate) fn count(&self, route: &'static str, status: StatusCode) {
        self.requests.get_or_create(&RequestLabels { route, status: status.as_u16() }).inc();
    }

    /// The exposition, as of now.
    pub(crate) fn answer(&self) -> Response {
        if let (Some(gauge), Some(bytes)) = (&self.store_size, self.server.runtime().store_size_bytes()) {
            gauge.set(i64::try_from(bytes).unwrap_or(i64::MAX));
        }
        let mut text = String::new();
        if let Err(error) = prometheus_client::encoding::text::encode(&mut text, &self.registry) {
            return (StatusCode::INTERNAL_SERVER_ERROR, format!("cannot encode the metrics: {error}")).into_response();
        }
        ([(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE))], text).into_response()
    }
}
