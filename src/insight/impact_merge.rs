//! When a job's change was merged, for `docdeck jobs impact` and the console's job
//! detail alike: the time given (`--merged-at`), else what the local service's git saw
//! (the job's `change` field), else the pull request's `merged_at` on GitHub (with
//! `GITHUB_TOKEN`). Where none can tell, every reason is kept, so the error says why and
//! what to do.

use chrono::{DateTime, Utc};
use reqwest::header::{ACCEPT, AUTHORIZATION};
use serde_json::Value;

use crate::api::{Job, JobStatus};
use crate::secret::Secret;
use crate::text::sanitize;

/// GitHub's REST API unless `DOCDECK_GITHUB_API_URL` names another (GitHub Enterprise,
/// and the tests' scripted peer), as for `docdeck serve --forge github`.
const GITHUB_API: &str = "https://api.github.com";

/// When the change was merged, and who said so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub at: DateTime<Utc>,
    /// `given` (--merged-at), `git` (the local service) or `github`.
    pub by: &'static str,
    /// The merge commit or the pull request, when known.
    pub what: Option<String>,
}

/// Why the merge time cannot be known: every source's reason, in the order asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotMerged {
    /// The job's id, as the service gave it (cleaned).
    pub id: String,
    /// One line a source: `git: …`, `GitHub: …` (and that the job is still active).
    pub reasons: Vec<String>,
}

impl std::fmt::Display for NotMerged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot tell when job {}'s change was merged:\n  {}\nIf it is not merged yet, run this again once it is; if it is (a fast-forward or squash keeps no merge time), give the time with --merged-at (such as --merged-at 2026-11-10T12:00:00Z)",
            self.id,
            self.reasons.join("\n  ")
        )
    }
}

/// The merge time of `job`, or every reason it cannot be known.
pub async fn merged(job: &Job, given: Option<DateTime<Utc>>) -> Result<Merged, NotMerged> {
    if let Some(at) = given {
        return Ok(Merged {
            at,
            by: "given",
            what: None,
        });
    }
    let mut why: Vec<String> = Vec::new();
    if job.status == Some(JobStatus::Active) {
        why.push("the job is still active: its change may not be finished".to_owned());
    }
    match &job.change {
        Some(change) => {
            if let Some(at) = change.merged_at {
                return Ok(Merged {
                    at,
                    by: "git",
                    what: change.merge_commit.clone(),
                });
            }
            why.push(format!(
                "git: {}",
                sanitize(change.not_merged.as_deref().unwrap_or("the service did not say"))
            ));
        }
        None => why.push(
            "git: the service does not say (only the local service with its real agent sees the repository)"
                .to_owned(),
        ),
    }
    match from_github(job).await {
        Ok(merged) => return Ok(merged),
        Err(reason) => why.push(format!("GitHub: {reason}")),
    }
    Err(NotMerged {
        id: job.id.as_deref().map(sanitize).unwrap_or_default(),
        reasons: why,
    })
}

/// `(owner, name, number)` of a pull request link `https://HOST/OWNER/NAME/pull/N`.
fn pull_request(link: &str) -> Option<(String, String, u64)> {
    let url = reqwest::Url::parse(link).ok()?;
    let parts: Vec<&str> = url.path_segments()?.filter(|p| !p.is_empty()).collect();
    match parts[..] {
        [owner, name, "pull", number, ..] => {
            Some((owner.to_owned(), name.to_owned(), number.parse().ok()?))
        }
        _ => None,
    }
}

/// The pull request's `merged_at`, or why it cannot be had.
async fn from_github(job: &Job) -> Result<Merged, String> {
    let Some(link) = job.pr_link.as_deref() else {
        return Err("the job has no pull request link".to_owned());
    };
    let api = std::env::var("DOCDECK_GITHUB_API_URL")
        .ok()
        .filter(|url| !url.trim().is_empty());
    let on_github = reqwest::Url::parse(link)
        .ok()
        .and_then(|url| url.host_str().map(|host| host == "github.com"))
        .unwrap_or(false);
    let pull = pull_request(link).filter(|_| on_github || api.is_some());
    let Some((owner, name, number)) = pull else {
        return Err(format!(
            "the job's link {} is no GitHub pull request",
            sanitize(link)
        ));
    };
    let Some(token) = std::env::var("GITHUB_TOKEN")
        .ok()
        .filter(|token| !token.trim().is_empty())
        .map(Secret::new)
    else {
        return Err(
            "no GITHUB_TOKEN in the environment to read the pull request's merge time with"
                .to_owned(),
        );
    };
    let api = api.unwrap_or_else(|| GITHUB_API.to_owned());
    let url = format!(
        "{}/repos/{owner}/{name}/pulls/{number}",
        api.trim_end_matches('/')
    );
    let reply = get(&url, &token).await?;
    let merged_at = reply.get("merged_at").and_then(Value::as_str);
    let Some(text) = merged_at else {
        let state = reply
            .get("state")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        return Err(format!(
            "pull request #{number} is not merged (its state is {})",
            sanitize(state)
        ));
    };
    let at = DateTime::parse_from_rfc3339(text)
        .map_err(|_| format!("GitHub's merged_at {} is not a time", sanitize(text)))?;
    Ok(Merged {
        at: at.with_timezone(&Utc),
        by: "github",
        what: Some(format!("pull request #{number}")),
    })
}

/// GitHub's answer to a GET, or why there is none. The token goes only into a
/// sensitive header and never into a message.
async fn get(url: &str, token: &Secret) -> Result<Value, String> {
    let crate::github::GitHubHttp { http, auth } = crate::github::connect(token)?;
    let response = http
        .get(url)
        .header(AUTHORIZATION, auth)
        .header(ACCEPT, "application/vnd.github+json")
        .header("X-GitHub-Api-Version", "2022-11-28")
        .send()
        .await
        .map_err(|err| format!("cannot reach GitHub's API: {}", err.without_url()))?;
    let status = response.status();
    let bytes = response.bytes().await.unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if !status.is_success() {
        let hint = match status.as_u16() {
            401 => ": GITHUB_TOKEN was not accepted",
            403 | 404 => ": check that GITHUB_TOKEN may read this repository's pull requests",
            _ => "",
        };
        let message = body
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        return Err(format!(
            "GitHub refused to show the pull request ({status}: {}){hint}",
            sanitize(message)
        ));
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pull_request_link_gives_its_owner_name_and_number() {
        assert_eq!(
            pull_request("https://github.com/acme/docs/pull/12"),
            Some(("acme".into(), "docs".into(), 12))
        );
        assert_eq!(
            pull_request("https://github.com/acme/docs/pull/12/files"),
            Some(("acme".into(), "docs".into(), 12))
        );
        assert_eq!(
            pull_request("https://github.com/acme/docs/compare/main...x"),
            None
        );
        assert_eq!(pull_request("http://127.0.0.1:1/changes/demo/job_x"), None);
    }
}
