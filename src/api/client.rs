//! The HTTP client of the interface: the four operations, timeouts, and retries that can
//! never create a second job.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;

use super::error::{ApiError, Asked};
use super::limit::{Stated, StatedLimit, ViewsSpan};
use super::model::{Job, VisitorsPage};
use super::query::VisitorsQuery;
use super::signals::SignalsQuery;
use crate::config::Secret;

mod change_read;
mod reading;
pub use crate::tls::install_crypto_provider;
use reading::{decode, describe, prompt_body, same_job};

/// Responses larger than this are refused: no page of the interface comes near it.
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// How failed GETs are retried. POSTs use it only for failures to connect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries in all, including the first.
    pub attempts: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 4,
            base_delay: Duration::from_millis(300),
            max_delay: Duration::from_secs(8),
        }
    }
}

impl RetryPolicy {
    /// Full jitter: a random wait between zero and the capped exponential step, so many
    /// clients that failed together do not come back together.
    fn delay(&self, attempt: u32) -> Duration {
        let step = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(attempt))
            .min(self.max_delay);
        step.mul_f64(rand::random::<f64>())
    }
}

/// Everything a client needs to reach one project of one service.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub base_url: Url,
    pub project_id: String,
    pub api_key: Secret,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub retry: RetryPolicy,
}

impl ClientOptions {
    /// Options with the default timeouts (connect 10 s, whole request 30 s) and retries.
    #[must_use]
    pub fn new(base_url: Url, project_id: impl Into<String>, api_key: Secret) -> Self {
        Self {
            base_url,
            project_id: project_id.into(),
            api_key,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            retry: RetryPolicy::default(),
        }
    }
}

/// A key no service issues: sent to see how the service treats a wrong one (`doctor`, and
/// the console's start-up check), never the user's key sent where it must not go.
pub const MADE_UP_KEY: &str = "docdeck_doctor_made_up_key";

/// A client of the documentation-agent and visitor-analytics interface.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: Url,
    host: String,
    project: String,
    auth: HeaderValue,
    retry: RetryPolicy,
    /// What the service last stated of its analytics limit, if it states one.
    stated: Arc<Mutex<Stated>>,
}

/// An answer of [`Client::probe_job`], whatever its status.
#[derive(Debug, Clone)]
pub struct Probe {
    pub status: u16,
    /// The `Date` header, as sent.
    pub date: Option<String>,
    pub body: Vec<u8>,
}

/// Whether a request may be sent again after a failure that left its fate unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Replay {
    /// GET: reading twice changes nothing.
    Safe,
    /// POST: only resent when it certainly never left this machine.
    OnlyIfUnsent,
}

impl Client {
    pub fn new(options: ClientOptions) -> Result<Self, ApiError> {
        install_crypto_provider();
        let invalid = |reason: &str| ApiError::InvalidInput(reason.to_owned());
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", options.api_key.expose()))
            .map_err(|_| invalid("the API key contains characters that cannot be sent in a header: check that it was copied whole"))?;
        auth.set_sensitive(true);
        if options.base_url.cannot_be_a_base() {
            return Err(invalid("the base URL cannot have paths appended to it"));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .timeout(options.request_timeout)
            .user_agent(concat!("docdeck/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|err| ApiError::InvalidInput(format!("cannot set up HTTP: {err}")))?;
        Ok(Self {
            http,
            // With its port when the URL names one: a local service is told apart by it.
            host: match (options.base_url.host_str(), options.base_url.port()) {
                (Some(host), Some(port)) => format!("{host}:{port}"),
                (host, None) => host.unwrap_or_default().to_owned(),
                (None, Some(_)) => String::new(),
            },
            base: options.base_url,
            project: options.project_id,
            auth,
            retry: options.retry,
            stated: Arc::default(),
        })
    }

    /// The analytics limit the service stated in its last analytics answer, if any.
    #[must_use]
    pub fn stated_analytics_limit(&self) -> Option<StatedLimit> {
        self.stated().limit
    }

    /// When the project's views begin and end, if the last visitors answer said (the
    /// local service does).
    #[must_use]
    pub fn views_span(&self) -> Option<ViewsSpan> {
        self.stated().span
    }

    fn stated(&self) -> Stated {
        *self
            .stated
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts a job. Never resent once it may have reached the service: a duplicate job
    /// is worse than an error the user can check.
    pub async fn create_job(&self, prompt: &str) -> Result<Job, ApiError> {
        let body = prompt_body(prompt)?;
        let url = self.url(&["v2", "agent", &self.project, "job"]);
        self.call(
            Method::POST,
            url,
            Some(body),
            Replay::OnlyIfUnsent,
            Asked::Project,
        )
        .await
    }

    /// Sends a follow-up instruction to a job; resent on the same terms as `create_job`.
    /// An answer about another job is refused as [`Client::get_job`] refuses it, as one
    /// that may have reached the service: the message may have arrived all the same.
    pub async fn send_message(&self, job_id: &str, prompt: &str) -> Result<Job, ApiError> {
        let body = prompt_body(prompt)?;
        let url = self.url(&["v2", "agent", &self.project, "job", job_id, "message"]);
        let job = self
            .call(
                Method::POST,
                url,
                Some(body),
                Replay::OnlyIfUnsent,
                Asked::Job,
            )
            .await?;
        same_job(job_id, job)
    }

    /// Reads a job: the polling target. An answer that names another job is refused (a
    /// proxy or cache mixed answers up); one that names none gets the id asked for.
    pub async fn get_job(&self, job_id: &str) -> Result<Job, ApiError> {
        let url = self.url(&["v2", "agent", &self.project, "job", job_id]);
        let job = self
            .call(Method::GET, url, None, Replay::Safe, Asked::Job)
            .await?;
        same_job(job_id, job)
    }

    /// One page of visitors. The query is checked before anything is sent.
    pub async fn visitors(&self, query: &VisitorsQuery) -> Result<VisitorsPage, ApiError> {
        query.validate()?;
        let mut url = self.url(&["v1", "analytics", &self.project, "visitors"]);
        let pairs = query.to_pairs();
        if !pairs.is_empty() {
            url.query_pairs_mut().extend_pairs(pairs);
        }
        self.call(Method::GET, url, None, Replay::Safe, Asked::Visitors)
            .await
    }

    /// One page of searches, feedback, feedback by page or assistant conversations
    /// (issue 27), counted against the analytics budget as visitors are.
    pub async fn signals<T: DeserializeOwned>(&self, query: &SignalsQuery) -> Result<T, ApiError> {
        query
            .validate()
            .map_err(|err| ApiError::InvalidInput(err.to_string()))?;
        let mut segments = vec!["v1", "analytics", self.project.as_str()];
        segments.extend(query.kind.segments());
        let mut url = self.url(&segments);
        let pairs = query.to_pairs();
        if !pairs.is_empty() {
            url.query_pairs_mut().extend_pairs(pairs);
        }
        self.call(Method::GET, url, None, Replay::Safe, Asked::Visitors)
            .await
    }

    /// Whether the base URL's path is not the API's root: a read of `job_id` with a key
    /// no service issues gets 404 too (where the API answers, a made-up key gets 401). A
    /// 404 for a job that cannot exist proves the key only when this is false.
    pub async fn answers_any_key_with_404(&self, job_id: &str) -> bool {
        let Ok(mut auth) = HeaderValue::from_str(&format!("Bearer {MADE_UP_KEY}")) else {
            return false;
        };
        auth.set_sensitive(true);
        let made_up = Self {
            auth,
            ..self.clone()
        };
        made_up
            .probe_job(job_id)
            .await
            .is_ok_and(|probe| probe.status == 404)
    }

    /// Reads job `job_id` once, with no retry, and returns the answer as it came: for
    /// `docdeck doctor`, which needs the status itself (a 404 for a job that cannot exist
    /// proves the key works) and the service's `Date` header.
    pub async fn probe_job(&self, job_id: &str) -> Result<Probe, ApiError> {
        let url = self.url(&["v2", "agent", &self.project, "job", job_id]);
        match self.send_once(&Method::GET, &url, None).await {
            Ok((status, headers, body)) => Ok(Probe {
                status: status.as_u16(),
                date: headers
                    .get(reqwest::header::DATE)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned),
                body,
            }),
            Err(Failure::Unsent(reason) | Failure::Unanswered(reason)) => {
                Err(self.network_error(reason, false))
            }
        }
    }

    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        url
    }

    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        body: Option<Vec<u8>>,
        replay: Replay,
        asked: Asked,
    ) -> Result<T, ApiError> {
        let mut attempt = 0;
        loop {
            let outcome = self.send_once(&method, &url, body.as_deref()).await;
            // A 5xx's `Retry-After` is kept: waited for when it is short, and when it is
            // longer than the longest wait the answer is given at once (a GET tried four
            // times in 1.5 s against "retry after 5 seconds", the trial of stop 33).
            let (retry, asked_wait) = match &outcome {
                Err(Failure::Unsent(_)) => (true, None),
                Err(Failure::Unanswered(_)) => (replay == Replay::Safe, None),
                Ok((status, headers, _)) => {
                    let asked_wait = headers
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|value| value.to_str().ok())
                        .and_then(reading::parse_retry_after);
                    let retry = replay == Replay::Safe
                        && matches!(status.as_u16(), 502..=504)
                        && asked_wait.is_none_or(|wait| wait <= self.retry.max_delay);
                    (retry, asked_wait)
                }
            };
            attempt += 1;
            if retry && attempt < self.retry.attempts {
                let wait = self.retry.delay(attempt - 1);
                tokio::time::sleep(asked_wait.map_or(wait, |asked| asked.max(wait))).await;
                continue;
            }
            return match outcome {
                Ok((status, headers, bytes)) => {
                    if asked == Asked::Visitors {
                        self.stated
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .note(&headers);
                    }
                    decode(status, &headers, &bytes, asked)
                }
                Err(Failure::Unsent(reason)) => Err(self.network_error(reason, false)),
                Err(Failure::Unanswered(reason)) => {
                    Err(self.network_error(reason, method != Method::GET))
                }
            };
        }
    }

    async fn send_once(
        &self,
        method: &Method,
        url: &Url,
        body: Option<&[u8]>,
    ) -> Result<(StatusCode, HeaderMap, Vec<u8>), Failure> {
        let mut request = self
            .http
            .request(method.clone(), url.clone())
            .header(AUTHORIZATION, self.auth.clone())
            .header(ACCEPT, "application/json");
        if let Some(body) = body {
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_vec());
        }
        let mut response = request.send().await.map_err(|err| {
            if err.is_connect() {
                Failure::Unsent(describe(&err))
            } else {
                Failure::Unanswered(describe(&err))
            }
        })?;
        let status = response.status();
        let headers = response.headers().clone();
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|err| Failure::Unanswered(describe(&err)))?
        {
            if bytes.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(Failure::Unanswered(format!(
                    "the response was larger than {} MiB",
                    MAX_BODY_BYTES >> 20
                )));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok((status, headers, bytes))
    }

    fn network_error(&self, reason: String, may_have_reached_server: bool) -> ApiError {
        ApiError::Network {
            host: self.host.clone(),
            reason,
            may_have_reached_server,
        }
    }
}

/// Why no usable answer came back.
enum Failure {
    /// The connection was never made, so the request was never sent.
    Unsent(String),
    /// The request may have been sent: timed out, connection reset, body cut short.
    Unanswered(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_capped_and_jittered() {
        let policy = RetryPolicy::default();
        for attempt in 0..40 {
            assert!(policy.delay(attempt) <= policy.max_delay);
        }
    }

    #[test]
    fn path_segments_are_percent_encoded() {
        let options = ClientOptions::new(
            Url::parse("https://api.example.com/prefix/").unwrap(),
            "my project",
            Secret::new("mint_x"),
        );
        let client = Client::new(options).unwrap();
        let url = client.url(&["v2", "agent", "my project", "job", "a/b?c#d"]);
        assert_eq!(
            url.as_str(),
            "https://api.example.com/prefix/v2/agent/my%20project/job/a%2Fb%3Fc%23d"
        );
    }
}
