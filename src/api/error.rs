//! The one error type of the client. Each message names what happened and what to do.

use std::fmt;
use std::time::Duration;

use thiserror::Error;

use super::model::ErrorBody;
use super::query::QueryError;
use crate::text::excerpt;

/// How much of an unreadable response body an error quotes.
const EXCERPT_CHARS: usize = 120;

/// A failed call. Texts that came from the service are sanitized and shortened before
/// they are stored here, so printing an error can never inject terminal escapes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApiError {
    #[error("the API key was rejected (401{}): check the key where it is set (--api-key, DOCDECK_API_KEY or the profile; docdeck doctor says which)", detail(.message))]
    Unauthorized { message: String },
    #[error("the key may not do this (403{}): another project's key, no read/write scope, or an IP off its allowlist", detail(.message))]
    Forbidden { message: String },
    #[error("not found (404{}): {}", detail(.message), .missing)]
    NotFound { message: String, missing: Missing },
    #[error("the service refused the request (400{}){}", detail(.message), list(.details))]
    BadRequest {
        message: String,
        details: Vec<String>,
    },
    #[error("the service refused the request as it conflicts with the job's state (409{})", detail(.message))]
    Conflict { message: String },
    #[error("rate limited (429{}): {}", detail(.message), retry_hint(*.retry_after))]
    RateLimited {
        message: String,
        retry_after: Option<Duration>,
    },
    #[error("{}", server_message(*.status, .message))]
    Server { status: u16, message: String },
    #[error("{}", unexpected_message(*.status, .message))]
    UnexpectedStatus { status: u16, message: String },
    #[error("{}", network_message(.host, .reason, *.may_have_reached_server))]
    Network {
        host: String,
        reason: String,
        may_have_reached_server: bool,
    },
    #[error(
        "the service sent a response docdeck cannot read (status {status}): {reason}{}",
        began_with(.excerpt)
    )]
    Decode {
        status: u16,
        reason: String,
        excerpt: String,
    },
    /// The answer contradicts the request or what this machine knows (it names another
    /// job, or a new job has the id of one followed here). The request was carried out as
    /// far as anyone can tell, so it counts as one that may have reached the service.
    #[error("the service's answer cannot be trusted: {reason}")]
    Contradiction { reason: String },
    /// Paging through every row stopped because the service's answers would never end it.
    #[error(
        "paging stopped at offset {offset}: {fault}; docdeck stopped rather than ask forever{}",
        paging_hint(.fault)
    )]
    BrokenPaging { offset: u64, fault: PagingFault },
    #[error("{0}")]
    InvalidInput(String),
    #[error(transparent)]
    InvalidQuery(#[from] QueryError),
}

/// What a request was about, so that a 404 can say what to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// One job of the project: read it, or send it a follow-up.
    Job,
    /// The project itself: create a job in it.
    Project,
    /// The project's visitor analytics.
    Visitors,
}

/// What a 404 most likely means, from what was asked and what answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    Job,
    Project,
    /// The 404's body is not the service's JSON error: something else answered, so the
    /// base URL most likely points at the wrong place.
    Service,
    /// A made-up key gets the same 404: the service answers, but the base URL's path is
    /// not the API's root, so no request reaches the API (`doctor`'s test).
    Path,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Job => "check the job id and the project id (and the base URL if no job is ever found)",
            Self::Project => {
                "check the project id (--project or DOCDECK_PROJECT_ID) and the base URL"
            }
            Self::Service => {
                "the answer is not the service's, so the base URL is likely wrong: check --base-url or DOCDECK_BASE_URL"
            }
            Self::Path => {
                "a made-up key gets the same 404, so the base URL's path is not the API's root: give --base-url or DOCDECK_BASE_URL with no path after the host"
            }
        })
    }
}

/// Why the service's paging could not be followed to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PagingFault {
    /// `hasMore` with no rows.
    Empty,
    /// The same rows as the page before: following `hasMore` would never end.
    Repeated,
    /// Fewer rows than asked while `hasMore` was still true.
    Short { got: usize, asked: u32 },
    /// More pages than one fetch may ask for ([`crate::api::MAX_PAGES`]).
    TooMany { pages: u32 },
}

impl fmt::Display for PagingFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("the service said there were more rows but sent none"),
            Self::Repeated => f.write_str("the service sent the same rows as the page before"),
            Self::Short { got, asked } => write!(
                f,
                "the service sent {got} row{} where {asked} were asked, yet said there were more",
                if *got == 1 { "" } else { "s" }
            ),
            Self::TooMany { pages } => {
                write!(f, "the service still had more rows after {pages} pages")
            }
        }
    }
}

impl ApiError {
    /// Builds the error for a non-success status from the body the service sent, which
    /// may be `{error, details}`, something else, or nothing. A 404 is read as one about a
    /// job; [`ApiError::for_request`] says which resource was asked for.
    #[must_use]
    pub fn from_status(status: u16, retry_after: Option<Duration>, body: &[u8]) -> Self {
        Self::for_request(Asked::Job, status, retry_after, body)
    }

    /// As [`ApiError::from_status`], for a request about `asked`: a 404 then says what to
    /// check (the job id, the project id, or the base URL when the body is not the
    /// service's JSON error).
    #[must_use]
    pub fn for_request(
        asked: Asked,
        status: u16,
        retry_after: Option<Duration>,
        body: &[u8],
    ) -> Self {
        let parsed = serde_json::from_slice::<ErrorBody>(body).ok();
        let missing = match (asked, parsed.as_ref().and_then(|b| b.error.as_ref())) {
            (_, None) => Missing::Service,
            (Asked::Job, Some(_)) => Missing::Job,
            (Asked::Project | Asked::Visitors, Some(_)) => Missing::Project,
        };
        let message = match parsed.as_ref().and_then(|body| body.error.as_deref()) {
            Some(text) => excerpt(text, 300),
            None => excerpt(&String::from_utf8_lossy(body), EXCERPT_CHARS),
        };
        let details = parsed
            .and_then(|body| body.details)
            .unwrap_or_default()
            .into_iter()
            .map(|detail| excerpt(&detail.message, 300))
            .filter(|detail| *detail != message)
            .collect();
        match status {
            400 | 422 => Self::BadRequest { message, details },
            401 => Self::Unauthorized { message },
            403 => Self::Forbidden { message },
            404 => Self::NotFound { message, missing },
            409 => Self::Conflict { message },
            429 => Self::RateLimited {
                message,
                retry_after,
            },
            500..=599 => Self::Server { status, message },
            _ => Self::UnexpectedStatus { status, message },
        }
    }

    /// Builds the error for a 2xx body that does not match the contract.
    #[must_use]
    pub fn decode(status: u16, reason: &serde_json::Error, body: &[u8]) -> Self {
        Self::Decode {
            status,
            reason: excerpt(&reason.to_string(), 200),
            excerpt: excerpt(&String::from_utf8_lossy(body), EXCERPT_CHARS),
        }
    }

    /// The wait the service asked for on a 429, when it gave one.
    #[must_use]
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// True when a POST may have been carried out although no usable answer came back: no
    /// answer at all, a success whose body cannot be read (the service did it, the answer
    /// was lost), or a gateway timeout. The caller must not resend it blindly, or it may
    /// create a second job.
    #[must_use]
    pub fn may_have_reached_server(&self) -> bool {
        matches!(
            self,
            Self::Network {
                may_have_reached_server: true,
                ..
            } | Self::Decode { .. }
                | Self::Contradiction { .. }
                | Self::Server { status: 504, .. }
        )
    }
}

fn detail(message: &str) -> String {
    if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    }
}

fn list(details: &[String]) -> String {
    if details.is_empty() {
        String::new()
    } else {
        format!(" ({})", details.join("; "))
    }
}

fn began_with(excerpt: &str) -> String {
    if excerpt.is_empty() {
        String::new()
    } else {
        format!("; it began with {excerpt:?}")
    }
}

fn paging_hint(fault: &PagingFault) -> &'static str {
    match fault {
        PagingFault::TooMany { .. } => "; ask for a smaller date range",
        PagingFault::Empty | PagingFault::Repeated | PagingFault::Short { .. } => "",
    }
}

fn retry_hint(retry_after: Option<Duration>) -> String {
    match retry_after {
        Some(wait) => format!("the service asks to wait {}", HumanWait(wait)),
        None => "the hourly limit was reached; wait a while before trying again".to_owned(),
    }
}

/// Another status in words: 413 is a request the service finds too large (a long
/// prompt), which it did not carry out; others are unexpected.
fn unexpected_message(status: u16, message: &str) -> String {
    if status == 413 {
        format!(
            "the service refused the request as too large ({status}{}): nothing was created; shorten the prompt, or put the long part in a file in the repository and name it",
            detail(message)
        )
    } else {
        format!(
            "unexpected answer from the service ({status}{})",
            detail(message)
        )
    }
}

/// A 5xx in words: 501 is a service that does not offer the operation (a PostgreSQL node
/// before searches are built there), which waiting does not change; others pass.
fn server_message(status: u16, message: &str) -> String {
    if status == 501 {
        format!(
            "the service does not offer this ({status}{}): ask a service that does, or see what its message names",
            detail(message)
        )
    } else {
        format!(
            "the service failed ({status}{}): try again later",
            detail(message)
        )
    }
}

fn network_message(host: &str, reason: &str, may_have_reached_server: bool) -> String {
    if may_have_reached_server {
        format!(
            "no answer from {host} ({reason}); the request may have been carried out, so check before sending it again"
        )
    } else if reason.to_ascii_lowercase().contains("connection refused") {
        // The host answered that nothing listens on the port: a service that is down (a
        // restart) far more often than a wrong address.
        format!(
            "could not reach {host}: nothing listens there ({reason}); is the service running? If it is, check the base URL"
        )
    } else {
        format!("could not reach {host} ({reason}): check the base URL and the network")
    }
}

/// A wait printed the way people say it: `45 s`, `3 min 20 s`, `1 h 5 min`.
pub struct HumanWait(pub Duration);

impl fmt::Display for HumanWait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.0.as_secs() + u64::from(self.0.subsec_nanos() > 0);
        match secs {
            0..60 => write!(f, "{secs} s"),
            60..3600 if secs.is_multiple_of(60) => write!(f, "{} min", secs / 60),
            60..3600 => write!(f, "{} min {} s", secs / 60, secs % 60),
            _ => write!(f, "{} h {} min", secs / 3600, secs % 3600 / 60),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_body_and_details_are_used() {
        let body = br#"{"error":"Invalid query","details":[{"message":"limit must be <= 250"}]}"#;
        let err = ApiError::from_status(400, None, body);
        assert_eq!(
            err.to_string(),
            "the service refused the request (400: Invalid query) (limit must be <= 250)"
        );
    }

    #[test]
    fn each_status_says_what_to_do() {
        let cases = [
            (401, "DOCDECK_API_KEY"),
            (403, "another project"),
            (404, "base URL"),
            (409, "state"),
            (429, "hourly limit"),
            (502, "try again later"),
            // A node that lacks an operation: waiting will not bring it (issue 26's 501).
            (501, "does not offer this"),
            (418, "unexpected"),
            // A 2 MB prompt read as "unexpected" (the trial of stop 33).
            (
                413,
                "too large (413): nothing was created; shorten the prompt",
            ),
        ];
        for (status, hint) in cases {
            let text = ApiError::from_status(status, None, b"").to_string();
            assert!(text.contains(hint), "{status}: {text}");
        }
    }

    #[test]
    fn a_404_says_what_to_check_from_what_was_asked() {
        let json = br#"{"error":"Job not found"}"#;
        let job = ApiError::for_request(Asked::Job, 404, None, json).to_string();
        assert!(job.contains("check the job id and the project id"), "{job}");
        let visitors = ApiError::for_request(Asked::Visitors, 404, None, br#"{"error":"x"}"#);
        let visitors = visitors.to_string();
        assert!(visitors.contains("check the project id") && !visitors.contains("job id"));
        for body in [&b"<html>Not Found</html>"[..], b"", b"{}", b"Cannot GET /x"] {
            for asked in [Asked::Job, Asked::Project, Asked::Visitors] {
                let text = ApiError::for_request(asked, 404, None, body).to_string();
                assert!(
                    text.contains("check --base-url") && !text.contains("job id"),
                    "{asked:?} {body:?}: {text}"
                );
            }
        }
    }

    #[test]
    fn a_body_that_is_not_json_is_quoted_safely() {
        let err = ApiError::from_status(502, None, b"<html>\x1b[2J Bad gateway</html>");
        let text = err.to_string();
        assert!(
            text.contains("Bad gateway") && !text.contains('\x1b'),
            "{text}"
        );
    }

    #[test]
    fn retry_after_is_reported() {
        let err = ApiError::from_status(
            429,
            Some(Duration::from_secs(200)),
            br#"{"error":"slow down"}"#,
        );
        assert_eq!(err.retry_after(), Some(Duration::from_secs(200)));
        assert!(err.to_string().ends_with("wait 3 min 20 s"), "{err}");
    }

    #[test]
    fn human_waits() {
        assert_eq!(HumanWait(Duration::from_millis(1500)).to_string(), "2 s");
        assert_eq!(HumanWait(Duration::from_secs(120)).to_string(), "2 min");
        assert_eq!(
            HumanWait(Duration::from_secs(3720)).to_string(),
            "1 h 2 min"
        );
    }
}
