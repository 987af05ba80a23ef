//! The wire contract: JSON shapes of the interface, shared by the client and the local service.
//!
//! The hosted service marks no job field as required and has added status values after
//! launch, so decoding is lenient where the contract is loose (missing fields, unknown
//! statuses, counts sent as `12.0`) and strict where it is firm (visitor pages).

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Status of an agent job. Values this build does not know are kept rather than rejected:
/// `archived` itself was added after launch, and more may follow.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JobStatus {
    Active,
    Completed,
    Archived,
    Failed,
    Unknown(String),
}

impl JobStatus {
    /// Maps a wire value to a status; anything unrecognised becomes `Unknown`.
    #[must_use]
    pub fn parse(value: &str) -> Self {
        match value {
            "active" => Self::Active,
            "completed" => Self::Completed,
            "archived" => Self::Archived,
            "failed" => Self::Failed,
            other => Self::Unknown(other.to_owned()),
        }
    }

    /// The value as it travels on the wire.
    #[must_use]
    pub fn as_wire(&self) -> &str {
        match self {
            Self::Active => "active",
            Self::Completed => "completed",
            Self::Archived => "archived",
            Self::Failed => "failed",
            Self::Unknown(other) => other,
        }
    }

    /// Whether waiting for the job can stop. The interface says to poll until `completed`,
    /// `archived` or `failed`; an unknown value is not final, so it keeps being watched.
    #[must_use]
    pub fn is_final(&self) -> bool {
        matches!(self, Self::Completed | Self::Archived | Self::Failed)
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unknown(other) => write!(f, "unknown({})", crate::text::sanitize(other)),
            known => f.write_str(known.as_wire()),
        }
    }
}

impl Serialize for JobStatus {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_wire())
    }
}

impl<'de> Deserialize<'de> for JobStatus {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Read from the borrowed text, not an owned copy: the console's start reads the
        // status of every tracked job (10,000 allocations saved there).
        struct Status;
        impl serde::de::Visitor<'_> for Status {
            type Value = JobStatus;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a job status")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<JobStatus, E> {
                Ok(JobStatus::parse(text))
            }
        }
        deserializer.deserialize_str(Status)
    }
}

/// Where the agent works. The hosted service sends the full repository URL and a branch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    #[serde(default)]
    pub repository: Option<String>,
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
}

/// An agent job as returned by create, message and get. Every field may be missing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub status: Option<JobStatus>,
    #[serde(default)]
    pub source: Option<Source>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub pr_link: Option<String>,
    #[serde(default, with = "timestamp")]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default, with = "timestamp")]
    pub archived_at: Option<DateTime<Utc>>,
    /// Why the job's last turn failed, while it is failed. The local service's own field
    /// (its `/openapi.json`); the hosted service sends none, so it is shown only when sent.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub failure_reason: Option<String>,
    /// Where the output of the job's last finished turn can be read (local service only).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub output_link: Option<String>,
    /// `queued`, `starting` or `running` while the job is active (local service only): an
    /// active job may be waiting for a free agent, or have one being started for it.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub run_state: Option<String>,
    /// Where a queued job waits, 1 being next (local service only).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub queue_position: Option<u64>,
    /// The files the job's change touched, their pages and its merge (local service
    /// only, and only when asked with `include=change`).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub change: Option<Box<super::change::JobChange>>,
    /// The service node that ran the job's latest started turn (local service only). A
    /// boxed `str`, not a `String`: a job travels inside enums whose variants are kept
    /// close in size.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub node: Option<Box<str>>,
}

impl Job {
    /// Whether the service says the job waits for an agent rather than runs.
    #[must_use]
    pub fn is_queued(&self) -> bool {
        self.status == Some(JobStatus::Active) && self.run_state.as_deref() == Some("queued")
    }

    /// Whether the service says an agent is being started for the job (it waits no
    /// longer, and does not run yet).
    #[must_use]
    pub fn is_starting(&self) -> bool {
        self.status == Some(JobStatus::Active) && self.run_state.as_deref() == Some("starting")
    }
}

/// An optional field that only some services send: a value of another shape reads as
/// absent rather than failing the whole job.
fn lenient<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

/// Body of create and follow-up requests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptRequest {
    pub prompt: String,
}

/// Site-wide unique visitors. `total` is deduplicated, so `max(human, ai) <= total <= human + ai`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitorTotals {
    #[serde(deserialize_with = "count")]
    pub human: u64,
    #[serde(deserialize_with = "count")]
    pub ai: u64,
    #[serde(deserialize_with = "count")]
    pub total: u64,
}

impl VisitorTotals {
    /// AI visitors as a percentage of all unique visitors (0 when there are none).
    #[must_use]
    pub fn ai_share(&self) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        #[expect(clippy::cast_precision_loss)]
        let share = self.ai as f64 * 100.0 / self.total as f64;
        share
    }
}

impl VisitorsPage {
    /// Where this page sits, as people read it: `page 3 · rows 101–150 · more: ]`, with
    /// `next` the key that shows the next page.
    #[must_use]
    pub fn position(&self, query: &crate::api::VisitorsQuery, next: &str) -> String {
        let count = self.visitors.len() as u64;
        if count == 0 {
            return format!("page {} · no rows", query.page_number());
        }
        let first = query.effective_offset() + 1;
        let more = if self.has_more {
            format!(" · more: {next}")
        } else {
            String::new()
        };
        format!(
            "page {} · rows {first}–{}{more}",
            query.page_number(),
            first + count - 1
        )
    }
}

/// Unique visitors of one page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathVisitors {
    pub path: String,
    #[serde(deserialize_with = "count")]
    pub human: u64,
    #[serde(deserialize_with = "count")]
    pub ai: u64,
    #[serde(deserialize_with = "count")]
    pub total: u64,
}

impl PathVisitors {
    #[must_use]
    pub fn new(path: impl Into<String>, human: u64, ai: u64, total: u64) -> Self {
        Self {
            path: path.into(),
            human,
            ai,
            total,
        }
    }
}

/// One page of the visitors export. All three fields are required by the contract.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VisitorsPage {
    pub totals: VisitorTotals,
    pub visitors: Vec<PathVisitors>,
    pub has_more: bool,
}

/// Error body: `{"error": ...}` from the admin API, with optional `details` from analytics.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Vec<ErrorDetail>>,
}

/// One entry of `details` in an error body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail {
    pub message: String,
}

/// Formats a time the way the local service sends it: RFC 3339, UTC, milliseconds.
#[must_use]
pub fn format_timestamp(time: &DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Reads a count sent as a JSON number, accepting `12` and `12.0`. The hosted service calls
/// its counts approximate, so a fractional value is rounded; negative or non-finite is an error.
fn count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    let number = serde_json::Number::deserialize(deserializer)?;
    if let Some(value) = number.as_u64() {
        return Ok(value);
    }
    match number.as_f64() {
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(value) if value.is_finite() && (0.0..9.0e15).contains(&value) => {
            Ok(value.round() as u64)
        }
        _ => Err(D::Error::custom(format!(
            "expected a count (a number >= 0), got {number}"
        ))),
    }
}

/// Optional RFC 3339 timestamps. A value that does not parse is read as absent (shown as
/// `-`) rather than failing the whole job: every job field is optional on the wire.
mod timestamp {
    use chrono::{DateTime, Utc};
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(
        value: &Option<DateTime<Utc>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(time) => serializer.serialize_str(&super::format_timestamp(time)),
            None => serializer.serialize_none(),
        }
    }

    /// Parsed from the borrowed text (no copy of it is made); anything but a string or
    /// null is an error, as for any other field of the wrong type.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        struct Time;
        impl<'de> Visitor<'de> for Time {
            type Value = Option<DateTime<Utc>>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an RFC 3339 time or null")
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
                inner.deserialize_str(self)
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(DateTime::parse_from_rfc3339(text)
                    .ok()
                    .map(|time| time.with_timezone(&Utc)))
            }
        }
        deserializer.deserialize_option(Time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_status_is_kept_and_not_final() {
        let job: Job = serde_json::from_value(json!({"status": "paused"})).unwrap();
        assert_eq!(job.status, Some(JobStatus::Unknown("paused".into())));
        assert!(!JobStatus::Unknown("paused".into()).is_final());
        assert_eq!(
            JobStatus::Unknown("paused".into()).to_string(),
            "unknown(paused)"
        );
        assert_eq!(serde_json::to_value(&job).unwrap()["status"], "paused");
    }

    #[test]
    fn an_empty_object_is_a_job_with_nothing_known() {
        let job: Job = serde_json::from_str("{}").unwrap();
        assert_eq!(job, Job::default());
    }

    #[test]
    fn status_and_times_read_the_same_with_escapes_or_null() {
        let job: Job = serde_json::from_str(
            r#"{"status": "act\u0069ve", "createdAt": "2026-11-01T00:00:00\u005a", "archivedAt": null}"#,
        )
        .unwrap();
        assert_eq!(job.status, Some(JobStatus::Active));
        assert_eq!(job.created_at.map(|t| t.timestamp()), Some(1_793_491_200));
        assert_eq!(job.archived_at, None);
        // A time of the wrong type fails the job, as any field of the wrong type does.
        assert!(serde_json::from_str::<Job>(r#"{"createdAt": 5}"#).is_err());
        assert!(serde_json::from_str::<Job>(r#"{"status": 5}"#).is_err());
    }

    #[test]
    fn unparseable_time_reads_as_absent() {
        let job: Job = serde_json::from_value(json!({"createdAt": "yesterday"})).unwrap();
        assert_eq!(job.created_at, None);
    }

    #[test]
    fn counts_accept_floats_and_reject_negatives() {
        let totals: VisitorTotals =
            serde_json::from_value(json!({"human": 12.0, "ai": 3, "total": 14.4})).unwrap();
        assert_eq!((totals.human, totals.ai, totals.total), (12, 3, 14));
        let bad =
            serde_json::from_value::<VisitorTotals>(json!({"human": -1, "ai": 0, "total": 0}));
        assert!(bad.is_err());
    }

    #[test]
    fn visitors_page_requires_every_field() {
        let missing = serde_json::from_value::<VisitorsPage>(
            json!({"totals": {"human": 0, "ai": 0, "total": 0}, "visitors": []}),
        );
        assert!(missing.is_err());
    }
}
