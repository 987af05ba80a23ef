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
    /// later turn of the job (nodes sharing a PostgreSQL database): fast-forward only. A
    /// branch never pushed, or not ahead, leaves it as it is.
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
        if fetched.is_ok()
            && let Err(err) = self
                .git
                .run(tree, &["merge", "--ff-only", "--quiet", "FETCH_HEAD"])
                .await
        {
            tracing::warn!(job = %job_id, "the job's pushed branch cannot be fast-forwarded to: {err}");
        }
    }
}
