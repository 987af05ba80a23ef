//! A job's change as git sees it, for the job's `change` field (issue 27): the files its
//! branch changed, the pages they are (`pages`), and whether the branch reached the base
//! branch and when (the commit time of the merge). The base branch is fetched first, so
//! a merge made on the remote (or in the team's folder) is seen.

use chrono::{DateTime, Utc};

use super::git::Git;
use super::pages::{NAVIGATION_FILES, Navigation, page_of};
use super::setup::Repo;
use crate::api::JobChange;

/// The change of the job whose branch is `branch` (`docdeck/<job id>`). `env` reaches the
/// remote; the caller holds the lock on the shared `.git`.
pub async fn change_of(
    git: &Git,
    repo: &Repo,
    env: &[(String, String)],
    branch: &str,
) -> JobChange {
    let dir = &repo.dir;
    let mut change = JobChange {
        base: Some(repo.base.clone()),
        ..JobChange::default()
    };
    let branch_ref = format!("refs/heads/{branch}");
    let Some(tip) = git
        .line(
            dir,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{branch_ref}^{{commit}}"),
            ],
        )
        .await
    else {
        change.not_merged =
            Some("the job has no branch yet: its agent has not run a turn".to_owned());
        return change;
    };
    let fetched = repo.fetch_base(git, env).await;
    let (merge, range) = range_of(git, repo, &branch_ref, &tip).await;
    let files = match git.run(dir, &["diff", "--name-only", "-z", &range]).await {
        Ok(out) => out
            .split('\0')
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect(),
        Err(err) => {
            tracing::warn!(branch, "cannot list a job's changed files: {err}");
            Vec::new()
        }
    };
    let navigations = navigations(git, repo, &tip).await;
    change.files = files
        .iter()
        .map(|file: &String| page_of(file, &navigations))
        .collect();
    let stale = match &fetched {
        Ok(_) => String::new(),
        Err(err) => format!(" (as last fetched: {err})"),
    };
    match merge {
        Merge::Commit { commit, at, .. } => {
            change.merged_at = Some(at);
            change.merge_commit = Some(commit);
        }
        Merge::FastForward if change.files.is_empty() => {
            change.not_merged = Some(format!(
                "the job's branch has no commit of its own: nothing was changed on it{stale}"
            ));
        }
        Merge::FastForward => {
            change.merge_commit = Some(tip);
            change.not_merged = Some(format!(
                "the change reached {} by a fast-forward, and git keeps no time for that: merge with a merge commit (git merge --no-ff), or give the time with --merged-at",
                repo.base
            ));
        }
        Merge::No => {
            change.not_merged = Some(format!(
                "not merged yet: the branch {branch} is not in {}{stale}",
                repo.base
            ));
        }
    }
    change
}

/// The commits that are the job's change, as a range for `git diff`: from where the
/// branch left the base branch to its tip, also once it is merged (then the base branch
/// holds the tip, and a plain `base...tip` would show nothing), with how it was merged.
async fn range_of(git: &Git, repo: &Repo, branch_ref: &str, tip: &str) -> (Merge, String) {
    let base_ref = repo.base_ref();
    let merge = find_merge(git, repo, tip, &base_ref).await;
    let range = match &merge {
        Merge::Commit { first_parent, .. } => format!("{first_parent}...{tip}"),
        Merge::FastForward => match start_of(git, repo, branch_ref).await {
            Some(start) => format!("{start}..{tip}"),
            None => format!("{tip}^!"),
        },
        Merge::No => format!("{base_ref}...{tip}"),
    };
    (merge, range)
}

/// [`range_of`] for the branch `branch_ref` as it is now (`None`: there is no branch).
pub async fn diff_range(git: &Git, repo: &Repo, branch_ref: &str) -> Option<String> {
    let tip = git
        .line(
            &repo.dir,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{branch_ref}^{{commit}}"),
            ],
        )
        .await?;
    Some(range_of(git, repo, branch_ref, &tip).await.1)
}

/// How the branch's tip reached the base branch, if it did.
enum Merge {
    /// By a merge commit on the base branch's first-parent line, at its commit time.
    Commit {
        commit: String,
        first_parent: String,
        at: DateTime<Utc>,
    },
    /// The tip is itself on the base branch's line (or the branch has no commit).
    FastForward,
    No,
}

async fn find_merge(git: &Git, repo: &Repo, tip: &str, base_ref: &str) -> Merge {
    let dir = &repo.dir;
    if git
        .run(dir, &["merge-base", "--is-ancestor", tip, base_ref])
        .await
        .is_err()
    {
        return Merge::No;
    }
    // The first commit of the base's own line that has the tip in its history.
    let range = format!("{tip}..{base_ref}");
    let Ok(line) = git
        .run(
            dir,
            &[
                "rev-list",
                "--first-parent",
                "--ancestry-path",
                "--reverse",
                &range,
            ],
        )
        .await
    else {
        return Merge::FastForward;
    };
    let Some(commit) = line.lines().next().map(str::to_owned) else {
        return Merge::FastForward;
    };
    let parents = git
        .line(dir, &["rev-list", "--parents", "-n", "1", &commit])
        .await
        .unwrap_or_default();
    let parents: Vec<&str> = parents.split_whitespace().skip(1).collect();
    let [first_parent, ..] = parents[..] else {
        return Merge::FastForward;
    };
    // The tip came in through another parent than the first: a merge commit.
    if parents.len() < 2
        || git
            .run(dir, &["merge-base", "--is-ancestor", tip, first_parent])
            .await
            .is_ok()
    {
        return Merge::FastForward;
    }
    let at = git
        .line(dir, &["show", "-s", "--format=%cI", &commit])
        .await
        .and_then(|text| DateTime::parse_from_rfc3339(&text).ok())
        .map(|at| at.with_timezone(&Utc));
    match at {
        Some(at) => Merge::Commit {
            first_parent: first_parent.to_owned(),
            commit,
            at,
        },
        None => Merge::FastForward,
    }
}

/// Where the branch started: the oldest entry of its reflog.
async fn start_of(git: &Git, repo: &Repo, branch_ref: &str) -> Option<String> {
    let out = git
        .run(&repo.dir, &["reflog", "show", "--format=%H", branch_ref])
        .await
        .ok()?;
    out.lines().last().map(str::to_owned)
}

/// The navigation files of the tree at `tip`, one a folder (`docs.json` before
/// `mint.json`).
async fn navigations(git: &Git, repo: &Repo, tip: &str) -> Vec<Navigation> {
    let Ok(listing) = git
        .run(&repo.dir, &["ls-tree", "-r", "--name-only", "-z", tip])
        .await
    else {
        return Vec::new();
    };
    let mut found: Vec<Navigation> = Vec::new();
    for name in NAVIGATION_FILES {
        for path in listing
            .split('\0')
            .filter(|path| path.rsplit('/').next() == Some(name))
        {
            let folder = &path[..path.len() - name.len()];
            if found.iter().any(|nav| nav.folder == folder) {
                continue;
            }
            if let Ok(text) = git
                .run(&repo.dir, &["show", &format!("{tip}:{path}")])
                .await
            {
                found.push(Navigation::parse(folder, &text));
            }
        }
    }
    found
}
