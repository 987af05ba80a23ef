//! What the client sends and reads besides the HTTP exchange itself: a prompt's body
//! (refused when empty), an answer decoded or turned into the error its status means,
//! `Retry-After` in both its forms, and a transport error's cause in a few words.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use serde::de::DeserializeOwned;

use crate::api::error::{ApiError, Asked};
use crate::api::model::{Job, PromptRequest};

pub(super) fn prompt_body(prompt: &str) -> Result<Vec<u8>, ApiError> {
    if prompt.trim().is_empty() {
        return Err(ApiError::InvalidInput(
            "the prompt is empty: write the instruction for the agent".to_owned(),
        ));
    }
    serde_json::to_vec(&PromptRequest {
        prompt: prompt.to_owned(),
    })
    .map_err(|err| ApiError::InvalidInput(format!("cannot encode the prompt: {err}")))
}

/// The job of an answer about `job_id`: one that names no job gets the id asked for; one
/// that names another job is refused, naming both.
pub(super) fn same_job(job_id: &str, mut job: Job) -> Result<Job, ApiError> {
    match job.id.as_deref() {
        None => job.id = Some(job_id.to_owned()),
        Some(id) if id != job_id => {
            return Err(ApiError::Contradiction {
                reason: format!(
                    "asked about job {}, it answered about job {}",
                    crate::text::excerpt(job_id, 40),
                    crate::text::excerpt(id, 40)
                ),
            });
        }
        Some(_) => {}
    }
    Ok(job)
}

pub(super) fn decode<T: DeserializeOwned>(
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
    asked: Asked,
) -> Result<T, ApiError> {
    if status.is_success() {
        return serde_json::from_slice(body)
            .map_err(|err| ApiError::decode(status.as_u16(), &err, body));
    }
    let retry_after = headers
        .get(RETRY_AFTER)
        .and_then(|value| value.to_str().ok())
        .and_then(parse_retry_after);
    Err(ApiError::for_request(
        asked,
        status.as_u16(),
        retry_after,
        body,
    ))
}

/// `Retry-After` as delay-seconds or an HTTP date.
pub(super) fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = when.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

/// The innermost cause of a transport error, without the URL that reqwest puts first.
pub(super) fn describe(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        return "timed out".to_owned();
    }
    let mut source: &dyn std::error::Error = err;
    while let Some(inner) = source.source() {
        source = inner;
    }
    crate::text::excerpt(&source.to_string(), 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_both_forms() {
        assert_eq!(parse_retry_after("120"), Some(Duration::from_secs(120)));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn empty_prompts_are_refused_before_sending() {
        assert!(prompt_body("  \n").is_err());
        assert_eq!(prompt_body("fix").unwrap(), br#"{"prompt":"fix"}"#);
    }
}
