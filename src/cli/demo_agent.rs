//! The demo's real agent: a small docs repository (MDX pages and a `docs.json`, shipped
//! in `assets/demo-docs`) made in a temporary folder, and the example agent script
//! (`assets/demo-agent.sh`) that edits it. Gone when the demo quits.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use clap::ValueEnum;
use tempfile::TempDir;

use super::CliError;
use crate::server::agent::{Forge, GITHUB_API, RealAgentConfig};
use crate::server::seed;

/// Which agent the demo runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum DemoAgent {
    /// The example agent script on a demo docs repository: real worktrees, commits and
    /// links to the change
    #[default]
    Real,
    /// Outcomes drawn at random after --agent-delay-ms, and made-up pull request links
    Simulated,
}

/// The files of the demo repository, by path.
const FILES: &[(&str, &str)] = &[
    (
        "docs.json",
        include_str!("../../assets/demo-docs/docs.json"),
    ),
    (
        "introduction.mdx",
        include_str!("../../assets/demo-docs/introduction.mdx"),
    ),
    (
        "quickstart.mdx",
        include_str!("../../assets/demo-docs/quickstart.mdx"),
    ),
    (
        "api-keys.mdx",
        include_str!("../../assets/demo-docs/api-keys.mdx"),
    ),
];

const AGENT: &str = include_str!("../../assets/demo-agent.sh");

/// Where the demo's repository is in its folder: `acme/docs`, so that the jobs list's
/// narrow REPO@REF column (a repository's last two parts) reads `acme/docs@main`, not
/// the temporary folder's random end (`~71Pjm/docs@main`).
fn repo_dir(root: &Path) -> std::path::PathBuf {
    root.join("acme").join("docs")
}

/// The demo's repository and agent, kept until dropped.
pub struct DemoRepo {
    dir: TempDir,
}

impl DemoRepo {
    /// Makes the repository (one commit on `main`) and writes the example agent beside it.
    pub fn create() -> Result<Self, CliError> {
        let dir = tempfile::Builder::new()
            .prefix("docdeck-demo-")
            .tempdir()
            .map_err(|err| CliError::failed(format!("cannot make the demo's folder: {err}")))?;
        let repo = repo_dir(dir.path());
        let write = |path: &Path, text: &str| {
            std::fs::write(path, text)
                .map_err(|err| CliError::failed(format!("cannot write {}: {err}", path.display())))
        };
        std::fs::create_dir_all(&repo)
            .map_err(|err| CliError::failed(format!("cannot make the demo repository: {err}")))?;
        for (name, text) in FILES {
            write(&repo.join(name), text)?;
        }
        let agent = dir.path().join("demo-agent.sh");
        write(&agent, AGENT)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).map_err(
                |err| CliError::failed(format!("cannot make the demo agent runnable: {err}")),
            )?;
        }
        git(&repo, &["init", "--quiet", "-b", "main"])?;
        git(&repo, &["add", "."])?;
        git(
            &repo,
            &["commit", "--quiet", "-m", "Acme docs: first pages"],
        )?;
        Ok(Self { dir })
    }

    /// The real agent running the example script on the demo repository.
    #[must_use]
    pub fn config(&self) -> RealAgentConfig {
        let root = self.dir.path();
        RealAgentConfig {
            command: vec![root.join("demo-agent.sh").to_string_lossy().into_owned()],
            repo: repo_dir(root).to_string_lossy().into_owned(),
            base_branch: Some("main".to_owned()),
            push_remote: None,
            timeout: Duration::from_secs(60),
            max_agents: 2,
            agent_env: Vec::new(),
            forge: Forge::None,
            github_token: None,
            github_api: GITHUB_API.to_owned(),
            work_dir: root.join("work"),
            // The demo's service lives in this process, but its agent is a child that a
            // `kill -9` of the demo would orphan: it runs under `agent-exec` too.
            launcher: super::agent_args::launcher(),
        }
    }
}

/// What the demo's merged job changed in the quickstart: the links it fixed.
const FIXED_LINKS: &str = "
## Next steps

- [Create an API key](/api-keys) to send from your server
- [Read the introduction](/introduction) for what a notification holds
";

impl DemoRepo {
    /// Makes the change of the invented job `job_id` (made at `created`) as its agent
    /// would have: a commit on `docdeck/<job_id>` four minutes after it was made, merged
    /// into `main` with a merge commit a day later, as a team merges a pull request. The
    /// service's own clone gets the job's branch, so the job's change, its merge and its
    /// impact read as a real one's. Returns when it was merged.
    pub fn merge_change(
        &self,
        job_id: &str,
        created: DateTime<Utc>,
    ) -> Result<DateTime<Utc>, CliError> {
        let root = self.dir.path();
        let docs = repo_dir(root);
        let branch = format!("docdeck/{job_id}");
        let committed = created + TimeDelta::minutes(4);
        let merged = created + TimeDelta::days(1);
        let page = docs.join("quickstart.mdx");
        let text = std::fs::read_to_string(&page)
            .map_err(|err| CliError::failed(format!("cannot read {}: {err}", page.display())))?;
        git(&docs, &["checkout", "--quiet", "-b", &branch])?;
        std::fs::write(&page, text + FIXED_LINKS)
            .map_err(|err| CliError::failed(format!("cannot write {}: {err}", page.display())))?;
        let message = format!("{}\n\ndocdeck job {job_id}", seed::MERGED_DEMO_JOB);
        git_at(
            &docs,
            &["commit", "--quiet", "-am", &message],
            Some(committed),
        )?;
        git(&docs, &["checkout", "--quiet", "main"])?;
        let merge = format!("Merge branch '{branch}': the quickstart's links");
        git_at(
            &docs,
            &["merge", "--quiet", "--no-ff", "-m", &merge, &branch],
            Some(merged),
        )?;
        let docs_text = docs.to_string_lossy().into_owned();
        let refspec = format!("+refs/heads/{branch}:refs/heads/{branch}");
        git(
            &root.join("work").join("clone"),
            &["fetch", "--quiet", &docs_text, &refspec],
        )?;
        Ok(merged)
    }
}

/// Runs git for the demo repository, as a fixed author (the machine may have no identity)
/// and without signing (a global setting must not stop the demo).
fn git(dir: &Path, args: &[&str]) -> Result<(), CliError> {
    git_at(dir, args, None)
}

/// [`git`], with the author's and committer's time set to `at` when given.
fn git_at(dir: &Path, args: &[&str], at: Option<DateTime<Utc>>) -> Result<(), CliError> {
    let mut command = Command::new("git");
    if let Some(at) = at {
        let date = format!("@{} +0000", at.timestamp());
        command
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date);
    }
    let output = command
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "docdeck demo")
        .env("GIT_AUTHOR_EMAIL", "demo@docdeck.invalid")
        .env("GIT_COMMITTER_NAME", "docdeck demo")
        .env("GIT_COMMITTER_EMAIL", "demo@docdeck.invalid")
        .output()
        .map_err(|err| {
            CliError::failed(format!(
                "the demo's real agent needs git, which cannot be run ({err}): install git, or run `docdeck demo --agent simulated`"
            ))
        })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(CliError::failed(format!(
            "cannot make the demo repository: git {} failed: {}",
            args.first().copied().unwrap_or_default(),
            String::from_utf8_lossy(&output.stderr).trim()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::agent::Agent as _;
    use crate::server::agent::RealAgent;
    use crate::server::jobs::{PendingTurn, TurnOutcome};

    fn turn(prompt: &str) -> PendingTurn {
        PendingTurn {
            job_seq: 1,
            job_id: "job_demo1".into(),
            project: "demo".into(),
            turn: 1,
            prompt: prompt.into(),
            repository: String::new(),
            prompts: vec![prompt.into()],
        }
    }

    #[tokio::test]
    async fn the_example_agent_notes_the_request_in_the_page_it_names() {
        let demo = DemoRepo::create().unwrap();
        let mut config = demo.config();
        assert_eq!(
            config.launcher.is_some(),
            cfg!(target_os = "linux"),
            "a kill -9 of the demo must not orphan its agent"
        );
        // This test's binary is not docdeck: it has no `agent-exec` to run the agent with.
        config.launcher = None;
        config.command.push("0".into());
        let agent = RealAgent::prepare(config).await.unwrap();
        let result = agent
            .run_turn(&turn("Explain key rotation in api-keys"))
            .await;
        assert_eq!(result.outcome, TurnOutcome::PullRequest, "{result:?}");
        // A page of the service, made whole by the node that answers for the job.
        assert_eq!(result.pr_link.as_deref(), Some("/changes/demo/job_demo1"));
        let diff = agent.changes("job_demo1").await.unwrap().unwrap();
        assert!(diff.contains("+++ b/api-keys.mdx"), "{diff}");
        assert!(
            diff.contains(
                "+Requested in docdeck job job_demo1, turn 1: Explain key rotation in api-keys"
            ),
            "{diff}"
        );
        let question = agent
            .run_turn(&PendingTurn {
                turn: 2,
                ..turn("Is the quickstart right?")
            })
            .await;
        assert_eq!(question.outcome, TurnOutcome::NoChange);
        let failing = agent
            .run_turn(&PendingTurn {
                turn: 3,
                ..turn("fail on purpose")
            })
            .await;
        assert_eq!(failing.outcome, TurnOutcome::Failed);
    }

    #[tokio::test]
    async fn the_demos_merged_job_reads_as_a_change_merged_a_day_after_it_was_made() {
        let demo = DemoRepo::create().unwrap();
        let mut config = demo.config();
        config.launcher = None;
        let agent = RealAgent::prepare(config).await.unwrap();
        let created = DateTime::parse_from_rfc3339("2026-11-21T09:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let merged = demo.merge_change("job_merged1", created).unwrap();
        assert_eq!(merged.to_rfc3339(), "2026-11-22T09:00:00+00:00");
        let change = agent.change_of("job_merged1").await.unwrap();
        assert_eq!(change.merged_at, Some(merged), "{change:?}");
        assert_eq!(change.not_merged, None);
        assert_eq!(change.pages(), ["/quickstart"], "{change:?}");
        let diff = agent.changes("job_merged1").await.unwrap().unwrap();
        assert!(diff.contains("+- [Create an API key](/api-keys)"), "{diff}");
    }
}
