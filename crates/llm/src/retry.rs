//! Trying a request again when another try may succeed (429, 5xx, timeouts, broken connections):
//! exponential backoff with full jitter, the server's `Retry-After` honoured, bounded by a number
//! of retries and a ceiling on one wait. 401/403, an unknown model and other 4xx are never retried.

use std::time::Duration;

use reqwest::header::HeaderMap;

use crate::client::Client;
use crate::error::Error;
use crate::wire::{ChatRequest, ChatResponse};

/// How many times, and how long to wait between tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first try; 0 never retries.
    pub max_retries: u32,
    /// The ceiling of the first wait; each retry doubles it.
    pub base_delay: Duration,
    /// The ceiling of any one wait, a server's `Retry-After` included.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// Six retries, from up to 1 s to at most 60 s: a server that is down for a few minutes
    /// does not stop a run left alone.
    fn default() -> Self {
        Self { max_retries: 6, base_delay: Duration::from_secs(1), max_delay: Duration::from_secs(60) }
    }
}

impl RetryPolicy {
    /// One try, no retry.
    pub fn none() -> Self {
        Self { max_retries: 0, ..Self::default() }
    }

    /// The wait before retry number `retry` (1 for the first): what the server asked for when it
    /// did (`retry_after`), otherwise a uniformly random part (`jitter`, in `[0, 1]`) of
    /// `base_delay × 2^(retry−1)` ("full jitter", so clients that failed together do not retry
    /// together); never more than `max_delay`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>, jitter: f64) -> Duration {
        if let Some(asked) = retry_after {
            return asked.min(self.max_delay);
        }
        let doubling = 2u32.saturating_pow(retry.saturating_sub(1));
        let ceiling = self.base_delay.saturating_mul(doubling).min(self.max_delay);
        let jitter = if jitter.is_finite() { jitter.clamp(0.0, 1.0) } else { 1.0 };
        ceiling.mul_f64(jitter)
    }
}

/// A retry about to happen, reported before its wait: the runner shows and records it.
#[derive(Debug, Clone)]
pub struct Retry {
    /// Which retry this is, from 1.
    pub attempt: u32,
    /// The most the policy allows.
    pub max_retries: u32,
    /// How long the client waits before it.
    pub delay: Duration,
    /// Why: the failure of the previous try.
    pub error: Error,
}

impl Client {
    /// Sends the request, and again after a wait while it fails in a way another try may mend
    /// ([`crate::ErrorKind::is_retryable`]), at most `policy.max_retries` times; `on_retry` hears
    /// of each retry before its wait. The last failure is returned when the retries run out,
    /// saying how many were made; a failure no retry can mend is returned at once.
    pub async fn complete_with_retries(
        &self,
        request: &ChatRequest<'_>,
        policy: &RetryPolicy,
        mut on_retry: impl FnMut(Retry),
    ) -> Result<ChatResponse, Error> {
        let mut retries = 0;
        loop {
            let error = match self.complete(request).await {
                Ok(response) => return Ok(response),
                Err(error) => error,
            };
            if !error.kind.is_retryable() {
                return Err(error);
            }
            if retries >= policy.max_retries {
                return Err(gave_up(error, retries));
            }
            retries += 1;
            let delay = policy.delay(retries, error.retry_after, rand::random::<f64>());
            // `on_retry` tells the caller, who shows it where its user looks (the runner's status
            // line); a warning here would be printed across that display.
            tracing::info!(
                attempt = retries,
                max_retries = policy.max_retries,
                delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                code = error.kind.code(),
                "model request failed, retrying: {}",
                error.message
            );
            on_retry(Retry { attempt: retries, max_retries: policy.max_retries, delay, error });
            tokio::time::sleep(delay).await;
        }
    }
}

fn gave_up(mut error: Error, retries: u32) -> Error {
    if retries > 0 {
        error.message = format!(
            "{} (gave up after {retries} retries; raise `max_retries` in `[runner]` or resume later)",
            error.message
        );
    }
    error
}

/// How long a server asked to wait: `retry-after-ms` (milliseconds, as OpenAI sends), else
/// `Retry-After` in seconds or as an HTTP date (a date already past is no wait).
pub(crate) fn retry_after(headers: &HeaderMap, now: jiff::Timestamp) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).map(str::trim);
    if let Some(milliseconds) = header("retry-after-ms").and_then(|value| value.parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(milliseconds / 1000.0).ok();
    }
    parse_retry_after(header("retry-after")?, now)
}

/// A `Retry-After` value: seconds, or an HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`).
pub fn parse_retry_after(value: &str, now: jiff::Timestamp) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    static PARSER: jiff::fmt::rfc2822::DateTimeParser = jiff::fmt::rfc2822::DateTimeParser::new();
    let date = PARSER.parse_timestamp(value).ok()?;
    Some(Duration::try_from(date.duration_since(now)).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy { max_retries: 5, base_delay: Duration::from_millis(100), max_delay: Duration::from_secs(1) }
    }

    #[test]
    fn backoff_doubles_up_to_the_ceiling_and_jitter_takes_a_part_of_it() {
        let check = |retry, jitter, expected_ms| {
            assert_eq!(
                policy().delay(retry, None, jitter),
                Duration::from_millis(expected_ms),
                "retry {retry} jitter {jitter}"
            );
        };
        check(1, 1.0, 100);
        check(2, 1.0, 200);
        check(3, 1.0, 400);
        check(4, 1.0, 800);
        check(5, 1.0, 1000);
        check(40, 1.0, 1000);
        check(3, 0.5, 200);
        check(3, 0.0, 0);
        check(3, f64::NAN, 400);
        check(3, 7.0, 400);
    }

    #[test]
    fn a_retry_after_is_honoured_up_to_the_ceiling() {
        assert_eq!(policy().delay(1, Some(Duration::from_millis(700)), 0.0), Duration::from_millis(700));
        assert_eq!(policy().delay(1, Some(Duration::from_secs(3600)), 0.0), Duration::from_secs(1));
    }

    #[test]
    fn retry_after_is_read_in_seconds_and_as_an_http_date() {
        let now: jiff::Timestamp = "2026-10-21T07:28:00Z".parse().expect("a timestamp");
        let check = |value: &str, expected: Option<Duration>| {
            assert_eq!(parse_retry_after(value, now), expected, "{value}");
        };
        check("3", Some(Duration::from_secs(3)));
        check(" 0 ", Some(Duration::ZERO));
        check("1.5", Some(Duration::from_millis(1500)));
        check("Wed, 21 Oct 2026 07:28:30 GMT", Some(Duration::from_secs(30)));
        check("Wed, 21 Oct 2026 07:27:00 GMT", Some(Duration::ZERO));
        check("-4", None);
        check("soon", None);
        check("", None);
    }

    #[test]
    fn retry_after_ms_wins_over_retry_after() {
        let now = jiff::Timestamp::UNIX_EPOCH;
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", "20".parse().expect("a header value"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(20)));
        headers.insert("retry-after-ms", "250".parse().expect("a header value"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_millis(250)));
    }
}
