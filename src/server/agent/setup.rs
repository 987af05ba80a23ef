//! The repository the real agent works on, checked once at start: a local repository or
//! a clone of a URL, its push remote and its base branch, each with an error that says
//! which flag to change.

use std::path::{Path, PathBuf};

use super::adopt;
use super::git::Git;
use super::real::RealAgentConfig;

/// Who the harness commits as when the repository names nobody (a fresh machine has no
/// global git identity, and a commit without one fails).
const FALLBACK_IDENTITY: (&str, &str) = ("docdeck agent", "docdeck@localhost");

/// The repository, as found at start.
#[derive(Debug, Clone)]
pub struct Repo {
    /// Where git commands on the shared repository run.
    pub dir: PathBuf,
    pub base: String,
    /// The remote branches are pushed to, if any.
    pub remote: Option<String>,
    pub remote_url: Option<String>,
    /// The folder `--repo` named, when it is one: the team's clone, which docdeck only
    /// fetches from (its own clone is `dir`).
    pub given: Option<PathBuf>,
}

impl Repo {
    /// Opens (or clones) the repository of `config` and the git to use on it.
    pub async fn open(config: &RealAgentConfig) -> Result<(Self, Git), String> {
        let probe = Git::new(None);
        let (dir, given) = locate(config, &probe).await?;
        let git = if probe.line(&dir, &["config", "user.email"]).await.is_some() {
            probe
        } else {
            Git::new(Some(FALLBACK_IDENTITY))
        };
        let remotes: Vec<String> = adopt::remotes(&git, &dir)
            .await?
            .into_iter()
            .filter(|name| name != adopt::SOURCE_REMOTE)
            .collect();
        let remote = match &config.push_remote {
            Some(name) if remotes.contains(name) => Some(name.clone()),
            Some(name) => {
                return Err(format!(
                    "--push-remote {name}: the repository {} has no such remote (it has: {})",
                    dir.display(),
                    if remotes.is_empty() {
                        "none".to_owned()
                    } else {
                        remotes.join(", ")
                    }
                ));
            }
            None => remotes.iter().find(|r| *r == "origin").cloned(),
        };
        let remote_url = match &remote {
            Some(name) => git.line(&dir, &["remote", "get-url", name]).await,
            None => None,
        };
        let base = match &config.base_branch {
            Some(base) => base.clone(),
            None => default_branch(&git, given.as_deref().unwrap_or(&dir), remote.as_deref())
                .await
                .ok_or_else(|| {
                    format!(
                        "cannot tell the default branch of {}: give it with --base-branch",
                        dir.display()
                    )
                })?,
        };
        let repo = Self {
            dir,
            base,
            remote,
            remote_url,
            given,
        };
        repo.fetch_base(&git, &[]).await?;
        Ok((repo, git))
    }

    /// The remote the base branch is fetched from: the push remote, else the team's
    /// folder docdeck cloned.
    pub(super) fn upstream(&self) -> Option<&str> {
        self.remote
            .as_deref()
            .or(self.given.as_ref().map(|_| adopt::SOURCE_REMOTE))
    }

    /// The ref new jobs start from and `/changes` compares with.
    pub fn base_ref(&self) -> String {
        match self.upstream() {
            Some(remote) => format!("refs/remotes/{remote}/{}", self.base),
            None => format!("refs/heads/{}", self.base),
        }
    }

    /// Brings the base branch up to date from the remote (when there is one) and returns
    /// the ref to start from. Callers hold the lock on the shared `.git`.
    pub async fn fetch_base(&self, git: &Git, env: &[(String, String)]) -> Result<String, String> {
        let base_ref = self.base_ref();
        if let Some(remote) = self.upstream() {
            let refspec = format!("+refs/heads/{}:{base_ref}", self.base);
            git.run_with(&self.dir, &["fetch", "--quiet", remote, &refspec], env)
                .await
                .map_err(|err| {
                    format!(
                        "cannot fetch the base branch {} from {remote}: {err} (check --base-branch and --push-remote)",
                        self.base
                    )
                })?;
        } else if git
            .line(&self.dir, &["rev-parse", "--verify", "--quiet", &base_ref])
            .await
            .is_none()
        {
            return Err(format!(
                "--base-branch {}: no such branch in {}",
                self.base,
                self.dir.display()
            ));
        }
        Ok(base_ref)
    }
}

/// The folder git works in, a clone of docdeck's own in the work folder (made the first
/// time, reused after), of the URL or of the folder `--repo` names; and that folder.
async fn locate(config: &RealAgentConfig, git: &Git) -> Result<(PathBuf, Option<PathBuf>), String> {
    let given = Path::new(&config.repo);
    if given.is_dir() {
        let dir = given
            .canonicalize()
            .map_err(|err| format!("cannot open --repo {}: {err}", config.repo))?;
        git.run(&dir, &["rev-parse", "--git-dir"])
            .await
            .map_err(|_| {
                format!(
                    "--repo {} is not a git repository: give the folder of a clone, or its URL",
                    config.repo
                )
            })?;
        let clone = adopt::own_clone(git, &dir, &config.work_dir.join("clone")).await?;
        let (moved, kept) =
            adopt::hand_over(git, &dir, &clone, &config.work_dir.join("worktrees")).await;
        if moved > 0 {
            tracing::info!(
                "moved {moved} job worktree(s) out of {} into docdeck's own clone",
                dir.display()
            );
        }
        for why in kept {
            tracing::warn!("a job worktree stays registered in --repo: {why}");
        }
        return Ok((clone, Some(dir)));
    }
    if !looks_like_url(&config.repo) {
        return Err(format!(
            "--repo {}: no such folder, and not a URL to clone (such as https://github.com/acme/docs.git)",
            config.repo
        ));
    }
    let clone = config.work_dir.join("clone");
    if clone.join(".git").is_dir() {
        return Ok((clone, None));
    }
    std::fs::create_dir_all(&config.work_dir)
        .map_err(|err| format!("cannot make {}: {err}", config.work_dir.display()))?;
    let target = clone.to_string_lossy().into_owned();
    git.run(
        &config.work_dir,
        &["clone", "--quiet", "--no-checkout", &config.repo, &target],
    )
    .await
    .map_err(|err| format!("cannot clone --repo {}: {err}", config.repo))?;
    Ok((clone, None))
}

fn looks_like_url(text: &str) -> bool {
    text.contains("://") || (text.contains('@') && text.contains(':'))
}

/// The remote's default branch as the clone knows it, else the branch the repository
/// has checked out.
async fn default_branch(git: &Git, dir: &Path, remote: Option<&str>) -> Option<String> {
    if let Some(remote) = remote {
        let head = format!("refs/remotes/{remote}/HEAD");
        if let Some(name) = git.line(dir, &["symbolic-ref", "--short", &head]).await {
            let prefix = format!("{remote}/");
            return Some(name.strip_prefix(&prefix).unwrap_or(&name).to_owned());
        }
        if let Ok(listing) = git
            .run(dir, &["ls-remote", "--symref", remote, "HEAD"])
            .await
        {
            let found = listing.lines().find_map(|line| {
                line.strip_prefix("ref: refs/heads/")
                    .and_then(|rest| rest.split('\t').next())
                    .map(str::to_owned)
            });
            if found.is_some() {
                return found;
            }
        }
    }
    git.line(dir, &["symbolic-ref", "--short", "HEAD"]).await
}
