//! The real agent's part in many nodes sharing one PostgreSQL database: a job's turns may
//! run on different nodes, so a node starts, or brings up to date, its worktree of a job
//! from the branch the job's last node pushed.

use std::path::Path;

use super::RealAgent;

impl RealAgent {
    /// Fetches the job's `branch` as pushed into the repository at `dir`; `false` when it
    /// was never pushed (the job then starts from the base branch).
    pub(super) async fn fetch_pushed(&self, dir: &Path, branch: &str) -> bool {
        let Some(remote) = self.repo.upstream() else {
            return false;
        };
        let refspec = format!("+refs/heads/{branch}:refs/heads/{branch}");
        self.git
            .run_with(
                dir,
                &["fetch", "--quiet", remote, &refspec],
                &self.remote_env(),
            )
            .await
            .is_ok()
    }

    /// Brings a kept worktree up to the job's branch as pushed, when another node ran a
    /// later turn of the job (nodes sharing a PostgreSQL database). A branch never pushed,
    /// or one this worktree is ahead of, leaves it as it is; one it is behind is
    /// fast-forwarded to. Where the two went apart, the work here is of a turn that was
    /// never accepted (its node was killed before its push, and the turn failed as
    /// interrupted): the worktree takes the pushed branch, or its next push would be
    /// refused as behind.
    pub(super) async fn catch_up(&self, job_id: &str, tree: &Path) {
        let Some(remote) = self.repo.upstream() else {
            return;
        };
        let refspec = format!("refs/heads/{}", Self::branch(job_id));
        let fetched = self
            .git
            .run_with(
                tree,
                &["fetch", "--quiet", remote, &refspec],
                &self.remote_env(),
            )
            .await;
        if fetched.is_err() {
            return;
        }
        let ahead = (self.git)
            .run(tree, &["merge-base", "--is-ancestor", "FETCH_HEAD", "HEAD"])
            .await
            .is_ok();
        if ahead {
            return;
        }
        if (self.git)
            .run(tree, &["merge", "--ff-only", "--quiet", "FETCH_HEAD"])
            .await
            .is_ok()
        {
            return;
        }
        tracing::warn!(job = %job_id, "this node's worktree of the job went apart from the branch another node pushed: the work of the interrupted turn here is dropped for the pushed branch");
        if let Err(err) = (self.git)
            .run(tree, &["reset", "--hard", "--quiet", "FETCH_HEAD"])
            .await
        {
            tracing::warn!(job = %job_id, "the job's pushed branch cannot be taken: {err}");
        }
    }
}

#[cfg(test)]
#[path = "shared_tests.rs"]
mod tests;
