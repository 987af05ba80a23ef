//! Where a job's change can be looked at: a pull request opened through GitHub's REST
//! API (`--forge github`), else the compare page of a recognisable GitHub, GitLab or
//! Bitbucket remote, else (decided by the caller) the service's own `/changes` page.

use base64::Engine as _;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use serde_json::{Value, json};

use crate::secret::Secret;

/// GitHub's REST API, unless `DOCDECK_GITHUB_API_URL` says otherwise (GitHub Enterprise,
/// and the tests' scripted peer).
pub const GITHUB_API: &str = "https://api.github.com";

/// How pull requests are opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Forge {
    /// No forge API: a compare link for GitHub, GitLab and Bitbucket remotes, otherwise
    /// the service's own /changes page.
    #[default]
    None,
    /// Open pull requests through GitHub's REST API with GITHUB_TOKEN.
    Github,
}

/// A remote URL in parts: `https://host/path`, `ssh://user@host/path` or `user@host:path`.
fn host_and_path(url: &str) -> Option<(String, String)> {
    let trimmed = url.trim().trim_end_matches('/');
    let (host, path) = if let Some((_, rest)) = trimmed.split_once("://") {
        let (authority, path) = rest.split_once('/')?;
        let host = authority.rsplit('@').next()?.split(':').next()?;
        (host.to_owned(), path.to_owned())
    } else {
        let (authority, path) = trimmed.split_once(':')?;
        if authority.contains('/') {
            return None;
        }
        (authority.rsplit('@').next()?.to_owned(), path.to_owned())
    };
    let path = path.trim_start_matches('/').trim_end_matches(".git");
    (!host.is_empty() && path.contains('/')).then(|| (host.to_ascii_lowercase(), path.to_owned()))
}

/// The forge's page comparing `branch` with `base` when `remote` is a repository on
/// github.com, gitlab.com or bitbucket.org; such a page exists once the branch is pushed.
#[must_use]
pub fn compare_url(remote: &str, base: &str, branch: &str) -> Option<String> {
    let (host, path) = host_and_path(remote)?;
    match host.as_str() {
        "github.com" => Some(format!(
            "https://github.com/{path}/compare/{base}...{branch}"
        )),
        "gitlab.com" => Some(format!(
            "https://gitlab.com/{path}/-/compare/{base}...{branch}"
        )),
        "bitbucket.org" => Some(format!(
            "https://bitbucket.org/{path}/branches/compare/{branch}%0D{base}"
        )),
        _ => None,
    }
}

/// `owner/name` of a GitHub remote: the last two parts of its path (so any remote, a
/// local path included, can stand for a GitHub repository when `--forge github` says so).
#[must_use]
pub fn owner_and_name(remote: &str) -> Option<(String, String)> {
    let path = match host_and_path(remote) {
        Some((_, path)) => path,
        None => remote
            .trim()
            .trim_end_matches('/')
            .trim_end_matches(".git")
            .to_owned(),
    };
    let mut parts = path.rsplit('/').filter(|p| !p.is_empty());
    let name = parts.next()?.trim_end_matches(".git").to_owned();
    let owner = parts.next()?.to_owned();
    Some((owner, name))
}

/// The `Authorization` header git sends to an HTTPS GitHub remote for `token`.
#[must_use]
pub fn git_auth_header(token: &Secret) -> String {
    let basic = base64::engine::general_purpose::STANDARD
        .encode(format!("x-access-token:{}", token.expose()));
    format!("AUTHORIZATION: basic {basic}")
}

/// The URL prefix git's `http.<url>.extraheader` applies to: the remote's scheme and
/// host, when it is reached over HTTPS (SSH and local remotes take no header).
#[must_use]
pub fn https_prefix(remote: &str) -> Option<String> {
    let rest = remote.strip_prefix("https://")?;
    let host = rest.split('/').next()?;
    let host = host.rsplit('@').next()?;
    Some(format!("https://{host}/"))
}

/// A pull request's description: every prompt the job was given, in order.
pub fn pull_request_body(prompts: &[String]) -> String {
    let mut body = String::from("Opened by docdeck's agent. Prompts:\n");
    for (n, prompt) in prompts.iter().enumerate() {
        body.push_str(&format!("\n{}. {}\n", n + 1, prompt.replace('\n', "\n   ")));
    }
    body
}

/// Opens pull requests on one GitHub repository.
pub struct GitHub {
    http: reqwest::Client,
    api: String,
    auth: HeaderValue,
    owner: String,
    name: String,
}

/// A pull request to open (or update, when one exists for the branch).
pub struct PullRequest<'a> {
    pub head: &'a str,
    pub base: &'a str,
    pub title: &'a str,
    pub body: &'a str,
}

impl GitHub {
    /// A client of `api` for `owner/name`. The token goes only into a sensitive header.
    pub fn new(api: &str, token: &Secret, owner: String, name: String) -> Result<Self, String> {
        let crate::github::GitHubHttp { http, auth } = crate::github::connect(token)?;
        Ok(Self {
            http,
            api: api.trim_end_matches('/').to_owned(),
            auth,
            owner,
            name,
        })
    }

    /// Opens the pull request; when GitHub answers 422 because one exists for the branch,
    /// looks it up and brings its description up to date. Returns its page.
    pub async fn open_or_update(&self, pr: &PullRequest<'_>) -> Result<String, String> {
        let pulls = format!("{}/repos/{}/{}/pulls", self.api, self.owner, self.name);
        let body = json!({"title": pr.title, "head": pr.head, "base": pr.base, "body": pr.body});
        let (status, reply) = self
            .send(self.http.post(&pulls).body(body.to_string()))
            .await?;
        if status == StatusCode::CREATED {
            return html_url(&reply);
        }
        if status != StatusCode::UNPROCESSABLE_ENTITY {
            return Err(refused("creating the pull request", status, &reply));
        }
        let query = format!("{}?head={}:{}&state=open", pulls, self.owner, pr.head);
        let (status, found) = self.send(self.http.get(&query)).await?;
        let existing = found.as_array().and_then(|list| list.first());
        let (Some(existing), true) = (existing, status.is_success()) else {
            // 422 for another reason (no commits, unknown base): GitHub's message says which.
            return Err(refused(
                "creating the pull request",
                StatusCode::UNPROCESSABLE_ENTITY,
                &reply,
            ));
        };
        let number = existing
            .get("number")
            .and_then(Value::as_u64)
            .unwrap_or_default();
        let patch = json!({"body": pr.body});
        let (status, updated) = self
            .send(
                self.http
                    .patch(format!("{pulls}/{number}"))
                    .body(patch.to_string()),
            )
            .await?;
        if !status.is_success() {
            return Err(refused("updating the pull request", status, &updated));
        }
        html_url(existing)
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Result<(StatusCode, Value), String> {
        let response = request
            .header(AUTHORIZATION, self.auth.clone())
            .header(ACCEPT, "application/vnd.github+json")
            .header(CONTENT_TYPE, "application/json")
            .header("X-GitHub-Api-Version", "2022-11-28")
            .send()
            .await
            .map_err(|err| format!("cannot reach GitHub's API at {}: {err}", self.api))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|err| format!("GitHub's answer broke off: {err}"))?;
        Ok((
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        ))
    }
}

fn html_url(pull: &Value) -> Result<String, String> {
    pull.get("html_url")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| "GitHub's answer has no html_url for the pull request".to_owned())
}

fn refused(what: &str, status: StatusCode, reply: &Value) -> String {
    let message = reply
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("no message");
    let details: Vec<&str> = reply
        .get("errors")
        .and_then(Value::as_array)
        .map(|errors| {
            errors
                .iter()
                .filter_map(|e| e.get("message").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let hint = match status.as_u16() {
        401 => ": GITHUB_TOKEN was not accepted",
        403 | 404 => ": check that GITHUB_TOKEN may write pull requests on this repository",
        _ => "",
    };
    if details.is_empty() {
        format!("GitHub refused {what} ({status}: {message}){hint}")
    } else {
        format!(
            "GitHub refused {what} ({status}: {message}: {}){hint}",
            details.join("; ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_links_only_for_forges_that_have_the_page() {
        assert_eq!(
            compare_url("https://github.com/acme/docs.git", "main", "docdeck/job_1").as_deref(),
            Some("https://github.com/acme/docs/compare/main...docdeck/job_1")
        );
        assert_eq!(
            compare_url("git@github.com:acme/docs.git", "main", "docdeck/j").as_deref(),
            Some("https://github.com/acme/docs/compare/main...docdeck/j")
        );
        assert_eq!(
            compare_url("ssh://git@gitlab.com/grp/sub/docs.git", "dev", "docdeck/j").as_deref(),
            Some("https://gitlab.com/grp/sub/docs/-/compare/dev...docdeck/j")
        );
        assert_eq!(
            compare_url(
                "https://user@bitbucket.org/team/docs.git",
                "main",
                "docdeck/j"
            )
            .as_deref(),
            Some("https://bitbucket.org/team/docs/branches/compare/docdeck/j%0Dmain")
        );
        for other in [
            "https://git.example.com/acme/docs.git",
            "/srv/git/docs.git",
            "file:///srv/git/docs.git",
            "../docs",
        ] {
            assert_eq!(compare_url(other, "main", "docdeck/j"), None, "{other}");
        }
    }

    #[test]
    fn owner_and_name_come_from_the_last_two_parts_of_the_remote() {
        let pair = |o: &str, n: &str| Some((o.to_owned(), n.to_owned()));
        assert_eq!(
            owner_and_name("https://github.com/acme/docs.git"),
            pair("acme", "docs")
        );
        assert_eq!(
            owner_and_name("git@github.com:acme/docs"),
            pair("acme", "docs")
        );
        assert_eq!(owner_and_name("/tmp/x/acme/docs.git"), pair("acme", "docs"));
        assert_eq!(owner_and_name("docs"), None);
    }

    #[test]
    fn the_description_lists_every_prompt() {
        let body = pull_request_body(&["one".into(), "two\nlines".into()]);
        assert!(
            body.contains("1. one") && body.contains("2. two\n   lines"),
            "{body}"
        );
    }

    #[test]
    fn the_git_header_is_scoped_to_an_https_host_only() {
        assert_eq!(
            https_prefix("https://github.com/acme/docs.git").as_deref(),
            Some("https://github.com/")
        );
        assert_eq!(https_prefix("git@github.com:acme/docs.git"), None);
        let header = git_auth_header(&Secret::new("tok"));
        assert!(header.starts_with("AUTHORIZATION: basic "));
        assert!(!header.contains("tok"));
    }
}
