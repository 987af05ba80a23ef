//! docdeck's own clone of a team's working folder (issue 23, point 10). `--repo` may be a
//! clone a person works in; registering a worktree and a `docdeck/job_*` branch there for
//! every job would fill their repository with docdeck's work. So the service works in a
//! clone of its own in its work folder: it fetches from the given folder, pushes where the
//! given folder pushes (its remotes are copied by name and URL), and commits as the given
//! folder's configured identity. Worktrees an earlier version registered in the team's
//! folder are handed over once at start.

use std::path::{Path, PathBuf};

use super::git::Git;

/// The name, in docdeck's clone, of the remote that is the team's folder. Unusual enough
/// not to collide with a remote the team's clone has (those are copied by name).
pub const SOURCE_REMOTE: &str = "docdeck-source";

/// Makes (the first time) or brings up to date docdeck's clone of `team` at `clone`, and
/// returns the clone's folder.
pub async fn own_clone(git: &Git, team: &Path, clone: &Path) -> Result<PathBuf, String> {
    let team_text = team.to_string_lossy().into_owned();
    if !clone.join(".git").is_dir() {
        let parent = clone.parent().unwrap_or(clone);
        std::fs::create_dir_all(parent)
            .map_err(|err| format!("cannot make {}: {err}", parent.display()))?;
        let target = clone.to_string_lossy().into_owned();
        git.run(
            parent,
            &[
                "clone",
                "--quiet",
                "--no-checkout",
                "--origin",
                SOURCE_REMOTE,
                &team_text,
                &target,
            ],
        )
        .await
        .map_err(|err| format!("cannot make docdeck's own clone of --repo {team_text}: {err}"))?;
    } else {
        set_remote(git, clone, SOURCE_REMOTE, &team_text).await?;
    }
    for name in remotes(git, team).await? {
        if name == SOURCE_REMOTE {
            continue;
        }
        if let Some(url) = git.line(team, &["remote", "get-url", &name]).await {
            set_remote(git, clone, &name, &url).await?;
        }
    }
    for key in ["user.name", "user.email"] {
        if let Some(value) = git.line(team, &["config", key]).await {
            git.run(clone, &["config", key, &value]).await?;
        }
    }
    Ok(clone.to_path_buf())
}

/// The remotes a repository has, by name.
pub async fn remotes(git: &Git, dir: &Path) -> Result<Vec<String>, String> {
    Ok(git
        .run(dir, &["remote"])
        .await?
        .lines()
        .map(str::to_owned)
        .collect())
}

async fn set_remote(git: &Git, dir: &Path, name: &str, url: &str) -> Result<(), String> {
    let known = remotes(git, dir).await?;
    let verb = if known.iter().any(|r| r == name) {
        "set-url"
    } else {
        "add"
    };
    git.run(dir, &["remote", verb, name, url]).await.map(|_| ())
}

/// Hands over the worktrees an earlier version registered in the team's folder under
/// `worktrees`: each job's branch is fetched into docdeck's clone (so its follow-ups go
/// on from it), and a worktree with nothing uncommitted is removed from the team's
/// folder. One with uncommitted work is left where it is and named in the error list, so
/// nothing is lost; the team's `docdeck/*` branches are left to them. Returns how many
/// were handed over and what could not be.
pub async fn hand_over(
    git: &Git,
    team: &Path,
    clone: &Path,
    worktrees: &Path,
) -> (usize, Vec<String>) {
    let Ok(listing) = git.run(team, &["worktree", "list", "--porcelain"]).await else {
        return (0, Vec::new());
    };
    let ours = worktrees
        .canonicalize()
        .unwrap_or_else(|_| worktrees.into());
    let mut moved = 0;
    let mut kept = Vec::new();
    for path in listing
        .lines()
        .filter_map(|line| line.strip_prefix("worktree "))
        .map(PathBuf::from)
        .filter(|path| path.starts_with(&ours) || path.starts_with(worktrees))
    {
        match hand_over_one(git, team, clone, &path).await {
            Ok(()) => moved += 1,
            Err(why) => kept.push(format!("{}: {why}", path.display())),
        }
    }
    (moved, kept)
}

async fn hand_over_one(git: &Git, team: &Path, clone: &Path, path: &Path) -> Result<(), String> {
    let job = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .ok_or("not a job's worktree")?;
    let branch = format!("refs/heads/docdeck/{job}");
    if path.exists() {
        let dirty = git.run(path, &["status", "--porcelain"]).await?;
        if !dirty.trim().is_empty() {
            return Err(
                "it holds uncommitted work; commit or remove it, then restart the service".into(),
            );
        }
    }
    let refspec = format!("+{branch}:{branch}");
    let team_text = team.to_string_lossy().into_owned();
    git.run(clone, &["fetch", "--quiet", &team_text, &refspec])
        .await?;
    if path.exists() {
        let target = path.to_string_lossy().into_owned();
        git.run(team, &["worktree", "remove", "--force", &target])
            .await?;
    }
    git.run(team, &["worktree", "prune"]).await?;
    Ok(())
}
