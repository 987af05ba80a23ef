//! The real agent's work folder and worktrees: private folders (0700) for the clone, the
//! worktrees and the agents' output; where each job's worktree lives; and what a turn
//! commits under its prompt, never what an earlier turn left behind.

use std::path::{Path, PathBuf};

use super::git::Git;
use crate::server::jobs::PendingTurn;

/// The work folder and the folders of worktrees and output under it, 0700: they hold the
/// repository, the agents' work and their output. Folders an older docdeck made are
/// narrowed to 0700 too.
pub fn make_private_dirs(work_dir: &Path) -> Result<(), String> {
    for dir in [
        work_dir.to_path_buf(),
        work_dir.join("worktrees"),
        work_dir.join("output"),
    ] {
        crate::sqlite::create_private_dir(&dir)
            .map_err(|err| format!("cannot make {}: {err}", dir.display()))?;
        make_dir_private(&dir);
    }
    Ok(())
}

/// Narrows `dir` to 0700 when others may enter it.
pub fn make_dir_private(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if let Ok(metadata) = std::fs::metadata(dir) {
            let mode = metadata.permissions().mode();
            if mode & 0o077 != 0 {
                let narrowed = std::fs::Permissions::from_mode(mode & 0o700);
                if let Err(err) = std::fs::set_permissions(dir, narrowed) {
                    tracing::warn!(dir = %dir.display(), "cannot make it private: {err}");
                }
            }
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Where the worktree of a job lives under the agent's work folder.
#[must_use]
pub fn worktree_of(work_dir: &Path, job_id: &str) -> PathBuf {
    work_dir.join("worktrees").join(job_id)
}

/// Stashes what an earlier turn of the job left uncommitted (it failed, or the service was
/// killed during it), so that this turn's commit holds only this turn's work.
pub async fn set_aside_leftovers(git: &Git, tree: &Path, turn: &PendingTurn) -> Result<(), String> {
    let status = git.run(tree, &["status", "--porcelain"]).await?;
    if status.trim().is_empty() {
        return Ok(());
    }
    let message = format!(
        "docdeck: left uncommitted by a turn of job {} that did not finish; set aside before turn {}",
        turn.job_id, turn.turn
    );
    git.run(
        tree,
        &[
            "stash",
            "push",
            "--include-untracked",
            "--quiet",
            "-m",
            &message,
        ],
    )
    .await?;
    tracing::warn!(job = %turn.job_id, turn = turn.turn, "{message} (see `git stash list`)");
    Ok(())
}
