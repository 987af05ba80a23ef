//! The catch-up of a node's worktree of a job with the branch another node pushed, on
//! real repositories in a temp dir: a kept branch behind the pushed one is brought up to
//! it, a worktree that went apart from it takes it, and one ahead of it is left alone.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::super::{RealAgent, RealAgentConfig};
use crate::server::agent::{Forge, GITHUB_API};

/// Runs git in `dir` with an identity of its own; its output, trimmed.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=other node",
            "-c",
            "user.email=other@localhost",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// A commit on the branch checked out in `dir`: its id.
fn commit(dir: &Path, file: &str) -> String {
    std::fs::write(dir.join(file), file).expect("a file is written");
    git(dir, &["add", file]);
    git(dir, &["commit", "--quiet", "-m", file]);
    git(dir, &["rev-parse", "HEAD"])
}

/// The shared remote (bare), the team's clone the node is given, and another node's clone
/// that pushes the jobs' branches.
struct Repos {
    root: tempfile::TempDir,
}

impl Repos {
    fn new() -> Self {
        let root = tempfile::tempdir().expect("a temp dir");
        let at = root.path();
        git(at, &["init", "--quiet", "--bare", "remote.git"]);
        git(at, &["clone", "--quiet", "remote.git", "team"]);
        commit(&at.join("team"), "README.md");
        git(
            &at.join("team"),
            &["push", "--quiet", "origin", "HEAD:main"],
        );
        git(at, &["clone", "--quiet", "remote.git", "other"]);
        Self { root }
    }

    fn path(&self, name: &str) -> std::path::PathBuf {
        self.root.path().join(name)
    }

    /// The other node pushes a commit onto the job's branch (made from main the first
    /// time); its id.
    fn other_pushes(&self, job: &str, file: &str) -> String {
        let other = self.path("other");
        let branch = RealAgent::branch(job);
        git(&other, &["fetch", "--quiet", "origin"]);
        let exists = Command::new("git")
            .args(["rev-parse", "--verify", "--quiet"])
            .arg(format!("refs/remotes/origin/{branch}"))
            .current_dir(&other)
            .output()
            .expect("git runs")
            .status
            .success();
        let start = if exists {
            format!("origin/{branch}")
        } else {
            "origin/main".to_owned()
        };
        git(&other, &["checkout", "--quiet", "-B", &branch, &start]);
        let id = commit(&other, file);
        git(&other, &["push", "--quiet", "origin", &branch]);
        id
    }

    async fn node(&self) -> RealAgent {
        let config = RealAgentConfig {
            command: vec!["true".to_owned()],
            repo: self.path("team").to_string_lossy().into_owned(),
            base_branch: Some("main".to_owned()),
            push_remote: None,
            timeout: Duration::from_secs(60),
            max_agents: 1,
            agent_env: Vec::new(),
            forge: Forge::None,
            github_token: None,
            github_api: GITHUB_API.to_owned(),
            work_dir: self.path("node"),
            launcher: None,
        };
        RealAgent::prepare(config)
            .await
            .expect("the node's agent is ready")
    }
}

fn head(tree: &Path) -> String {
    git(tree, &["rev-parse", "HEAD"])
}

/// A node restarted in its work folder keeps the job's branch (its worktree was removed)
/// at the turn it ran; another node ran and pushed a later turn. The worktree made from
/// the kept branch is brought up to the pushed one, or its next push is refused as behind.
#[tokio::test]
async fn a_kept_branch_behind_the_pushed_one_catches_up() {
    let repos = Repos::new();
    let node = repos.node().await;
    let first = repos.other_pushes("job_kept", "turn-1.md");
    // This node ran turn 1: its clone keeps the branch at it.
    let branch = RealAgent::branch("job_kept");
    let refspec = format!("refs/heads/{branch}:refs/heads/{branch}");
    let clone = node.repo.dir.clone();
    let upstream = node
        .repo
        .upstream()
        .expect("the node has an upstream")
        .to_owned();
    git(&clone, &["fetch", "--quiet", &upstream, &refspec]);
    assert_eq!(git(&clone, &["rev-parse", &branch]), first);
    let second = repos.other_pushes("job_kept", "turn-2.md");

    let tree = node.ensure_worktree("job_kept").await.expect("a worktree");
    assert_eq!(
        head(&tree),
        second,
        "the kept branch caught up with the pushed one"
    );
}

/// This node's turn of the job was interrupted after it committed and before it pushed
/// (the turn failed as interrupted, its work never accepted); another node ran the
/// follow-up from the pushed branch. The two went apart: the worktree takes the pushed
/// branch. A worktree ahead of the pushed branch is left as it is.
#[tokio::test]
async fn a_worktree_that_went_apart_takes_the_pushed_branch() {
    let repos = Repos::new();
    let node = repos.node().await;
    let first = repos.other_pushes("job_apart", "turn-1.md");
    let tree = node.ensure_worktree("job_apart").await.expect("a worktree");
    assert_eq!(head(&tree), first, "made from the pushed branch");
    let interrupted = commit(&tree, "interrupted.md");
    let second = repos.other_pushes("job_apart", "turn-2.md");

    let again = node
        .ensure_worktree("job_apart")
        .await
        .expect("the worktree");
    assert_eq!(again, tree);
    assert_eq!(head(&tree), second, "the pushed branch, not {interrupted}");
    assert!(!tree.join("interrupted.md").exists());

    // Ahead of the pushed branch (this node's own next turn, not pushed yet): kept.
    let ahead = commit(&tree, "turn-3.md");
    node.catch_up("job_apart", &tree).await;
    assert_eq!(head(&tree), ahead);
}
