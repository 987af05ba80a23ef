//! The real agent: each job gets a git worktree on branch `docdeck/<job id>`, each turn
//! runs the user's agent command there, and git (not the exit status alone) says whether
//! the turn changed something; the harness then commits, pushes and links the change.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::Mutex;

use super::forge::{self, Forge, GitHub, PullRequest};
use super::git::{Git, header_env};
use super::process::{self, Exit, Invocation};
use super::request::{commit_message, commit_subject, write_prompt};
use super::setup::Repo;
pub use super::workdir::worktree_of;
use super::workdir::{make_dir_private, make_private_dirs, set_aside_leftovers};
use super::{Agent, BoxFuture};
use crate::secret::Secret;
use crate::server::jobs::{PendingTurn, TurnOutcome, TurnResult};

mod shared;

/// The reason kept with a turn that was running when the service stopped, failed at its
/// next start.
pub const INTERRUPTED: &str = "interrupted by a restart; send a follow-up to retry";

/// The reason kept with a turn whose PostgreSQL node stopped renewing its lease (killed,
/// stopped, or cut off), failed by another node: no restart need have happened.
pub const NODE_STOPPED: &str =
    "interrupted: the node running it stopped; send a follow-up to retry";

/// Everything `docdeck serve` is told about the real agent.
#[derive(Debug, Clone)]
pub struct RealAgentConfig {
    /// The program and its arguments, split like a shell's words.
    pub command: Vec<String>,
    /// A local repository's path, or a URL to clone.
    pub repo: String,
    pub base_branch: Option<String>,
    /// `None`: `origin` when the repository has it, else nothing is pushed.
    pub push_remote: Option<String>,
    pub timeout: Duration,
    pub max_agents: usize,
    /// Names of variables of the service's environment passed to the agent.
    pub agent_env: Vec<String>,
    pub forge: Forge,
    pub github_token: Option<Secret>,
    pub github_api: String,
    /// Where clones, worktrees and the agents' output are kept.
    pub work_dir: PathBuf,
    /// A program that runs the agent command as `LAUNCHER agent-exec -- CMD...` and kills
    /// its process group when the service dies (the `docdeck` binary itself, on Linux).
    /// `None`: the agent is run directly, and only the next start ends an orphan.
    pub launcher: Option<PathBuf>,
}

impl RealAgentConfig {
    /// What its jobs report as their model: the agent program's name.
    #[must_use]
    pub fn model(&self) -> String {
        (self.command.first())
            .map(|program| {
                Path::new(program).file_name().map_or_else(
                    || program.clone(),
                    |name| name.to_string_lossy().into_owned(),
                )
            })
            .unwrap_or_default()
    }
}

/// The variables every agent gets from the service's environment.
const BASE_ENV: &[&str] = &["PATH", "HOME", "LANG"];

/// The real agent, ready to run turns.
pub struct RealAgent {
    config: RealAgentConfig,
    repo: Repo,
    git: Git,
    /// Held around the git operations that share the repository's `.git`: fetch,
    /// worktree add, prune and remove.
    shared: Mutex<()>,
    github: Option<GitHub>,
}

impl RealAgent {
    /// Checks the repository, finds the base branch and remote, and prepares the forge.
    /// Errors say what to change on the command line.
    pub async fn prepare(config: RealAgentConfig) -> Result<Self, String> {
        let program = config.command.first().ok_or("--agent-command is empty")?;
        if !process::runnable(program) {
            return Err(format!(
                "--agent-command: {program:?} is not a program this service can run (not found on PATH, or not executable): give its full path"
            ));
        }
        make_private_dirs(&config.work_dir)?;
        let work_dir = config.work_dir.clone();
        let reaped = tokio::task::spawn_blocking(move || super::orphans::reap(&work_dir))
            .await
            .map_err(|err| format!("cannot look for agents left running: {err}"))?;
        if reaped > 0 {
            tracing::warn!("stopped {reaped} agent(s) left running by an earlier start");
        }
        let (repo, git) = Repo::open(&config).await?;
        let github = match config.forge {
            Forge::None => None,
            Forge::Github => {
                let token = config.github_token.as_ref().ok_or(
                    "--forge github needs GITHUB_TOKEN in the service's environment (a token that may write pull requests)",
                )?;
                let remote = repo.remote_url.as_deref().ok_or(
                    "--forge github needs a remote to push to: give --push-remote, or a repository with an origin",
                )?;
                let (owner, name) = forge::owner_and_name(remote).ok_or_else(|| {
                    format!("cannot tell the GitHub owner and name from the remote {remote}")
                })?;
                Some(GitHub::new(&config.github_api, token, owner, name)?)
            }
        };
        tracing::info!(
            repo = %repo.dir.display(),
            base = %repo.base,
            remote = repo.remote.as_deref().unwrap_or("(none: nothing is pushed)"),
            work = %config.work_dir.display(),
            "real agent ready"
        );
        Ok(Self {
            config,
            repo,
            git,
            shared: Mutex::new(()),
            github,
        })
    }

    /// Where jobs work, as they report it: the repository's folder, or the URL given.
    #[must_use]
    pub fn repository(&self) -> String {
        if let Some(given) = &self.repo.given {
            given.display().to_string()
        } else {
            self.config.repo.clone()
        }
    }

    /// What jobs report as their model: the agent program's name.
    #[must_use]
    pub fn model(&self) -> String {
        self.config.model()
    }

    /// Whether a job's branch is pushed after each turn that changed something, so that
    /// another node can continue it.
    #[must_use]
    pub fn pushes(&self) -> bool {
        self.repo.remote.is_some()
    }

    /// The base branch jobs start from.
    #[must_use]
    pub fn base_branch(&self) -> &str {
        &self.repo.base
    }

    fn branch(job_id: &str) -> String {
        format!("docdeck/{job_id}")
    }

    fn worktree(&self, job_id: &str) -> PathBuf {
        worktree_of(&self.config.work_dir, job_id)
    }

    fn output_path(&self, turn: &PendingTurn) -> PathBuf {
        self.output_file(&turn.job_id, turn.turn)
    }

    /// Where the output of `job_id`'s turn `turn` is kept.
    fn output_file(&self, job_id: &str, turn: i64) -> PathBuf {
        self.config
            .work_dir
            .join("output")
            .join(job_id)
            .join(format!("turn-{turn}.log"))
    }

    /// Variables that let git reach the remote with the forge token, for fetch and push.
    fn remote_env(&self) -> Vec<(String, String)> {
        match (
            &self.config.github_token,
            &self.repo.remote_url,
            self.config.forge,
        ) {
            (Some(token), Some(url), Forge::Github) => forge::https_prefix(url)
                .map(|prefix| header_env(&prefix, &forge::git_auth_header(token)))
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// The job's worktree, made from the base branch (freshly fetched) the first time.
    async fn ensure_worktree(&self, job_id: &str) -> Result<PathBuf, String> {
        let path = self.worktree(job_id);
        if path.join(".git").exists() {
            self.catch_up(job_id, &path).await;
            return Ok(path);
        }
        let _shared = self.shared.lock().await;
        let dir = &self.repo.dir;
        let branch = Self::branch(job_id);
        self.git.run(dir, &["worktree", "prune"]).await?;
        let target = path.to_string_lossy().into_owned();
        let mut has_branch = self
            .git
            .line(
                dir,
                &[
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    &format!("refs/heads/{branch}"),
                ],
            )
            .await
            .is_some();
        if !has_branch {
            // A follow-up of a job whose earlier turns another node ran continues from
            // the branch that node pushed.
            has_branch = self.fetch_pushed(dir, &branch).await;
        }
        if has_branch {
            self.git
                .run(dir, &["worktree", "add", &target, &branch])
                .await?;
            // The branch kept here may be behind the one pushed: a node restarted in this
            // work folder after another node ran later turns of the job. Its push would be
            // refused as behind (found by `pg_two_nodes`), so it catches up first.
            self.catch_up(job_id, &path).await;
        } else {
            let start = self.repo.fetch_base(&self.git, &self.remote_env()).await?;
            self.git
                .run(
                    dir,
                    &[
                        "worktree",
                        "add",
                        "--no-track",
                        "-b",
                        &branch,
                        &target,
                        &start,
                    ],
                )
                .await?;
        }
        make_dir_private(&path);
        Ok(path)
    }

    /// The agent command, behind the launcher when there is one.
    fn argv(&self) -> Vec<String> {
        match &self.config.launcher {
            Some(launcher) => [
                launcher.to_string_lossy().into_owned(),
                "agent-exec".to_owned(),
                "--".to_owned(),
            ]
            .into_iter()
            .chain(self.config.command.iter().cloned())
            .collect(),
            None => self.config.command.clone(),
        }
    }

    /// Where the prompt of a turn is written for the agent (`DOCDECK_PROMPT_FILE`).
    fn prompt_path(&self, turn: &PendingTurn) -> PathBuf {
        self.config
            .work_dir
            .join("prompts")
            .join(&turn.job_id)
            .join(format!("turn-{}.txt", turn.turn))
    }

    /// The agent's environment: the base variables and `--agent-env` names that are set,
    /// and the turn's own. The prompt is in `DOCDECK_PROMPT` only when it fits in one
    /// variable; it is always on standard input and in `DOCDECK_PROMPT_FILE`.
    fn agent_env(&self, turn: &PendingTurn, prompt_file: &Path) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = BASE_ENV
            .iter()
            .map(|name| (*name).to_owned())
            .chain(self.config.agent_env.iter().cloned())
            .filter_map(|name| std::env::var(&name).ok().map(|value| (name, value)))
            .collect();
        env.extend(crate::launch::prompt_variable(&turn.prompt));
        env.push((
            "DOCDECK_PROMPT_FILE".into(),
            prompt_file.display().to_string(),
        ));
        env.push(("DOCDECK_JOB_ID".into(), turn.job_id.clone()));
        env.push(("DOCDECK_TURN".into(), turn.turn.to_string()));
        env
    }

    async fn turn(&self, turn: &PendingTurn) -> Result<TurnResult, String> {
        let tree = self.ensure_worktree(&turn.job_id).await?;
        set_aside_leftovers(&self.git, &tree, turn).await?;
        let before = self.git.run(&tree, &["rev-parse", "HEAD"]).await?;
        let output = self.output_path(turn);
        let record = super::orphans::records_dir(&self.config.work_dir)
            .join(format!("{}-turn-{}", turn.job_id, turn.turn));
        let shown = output.display().to_string();
        let prompt_file = self.prompt_path(turn);
        write_prompt(&prompt_file, &turn.prompt).await?;
        tracing::info!(job = %turn.job_id, turn = turn.turn, output = %shown, "agent turn started");
        let ran = process::run(Invocation {
            argv: &self.argv(),
            dir: &tree,
            env: self.agent_env(turn, &prompt_file),
            stdin: turn.prompt.as_bytes(),
            timeout: self.config.timeout,
            output: &output,
            record: Some(&record),
            launcher: self.config.launcher.is_some(),
        })
        .await?;
        let kept = |mut result: TurnResult| {
            result.output = ran.kept.map(|_| shown.clone());
            result
        };
        let output_note = if ran.kept.is_some() {
            format!("its output is in {shown}")
        } else {
            format!("its output could not be kept in {shown}")
        };
        match ran.exit {
            Exit::TimedOut => {
                return Ok(kept(TurnResult::failed(format!(
                    "the agent ran past --agent-timeout ({}) and was stopped with every process it started; {output_note}",
                    humantime::format_duration(self.config.timeout)
                ))));
            }
            Exit::Exited(status) if !status.success() => {
                return Ok(kept(TurnResult::failed(format!(
                    "the agent command ended with {status}; {output_note}"
                ))));
            }
            Exit::Exited(_) => {}
        }
        let dirty = !self
            .git
            .run(&tree, &["status", "--porcelain"])
            .await?
            .trim()
            .is_empty();
        if dirty {
            self.git.run(&tree, &["add", "--all"]).await?;
            // From a file: the whole prompt can be larger than one argument may be.
            let message = prompt_file.with_extension("commit");
            write_prompt(&message, &commit_message(turn)).await?;
            let message = message.to_string_lossy().into_owned();
            self.git
                .run(&tree, &["commit", "--quiet", "--file", &message])
                .await?;
        }
        let after = self.git.run(&tree, &["rev-parse", "HEAD"]).await?;
        if after == before {
            return Ok(kept(TurnResult::of(TurnOutcome::NoChange)));
        }
        let link = self.publish(turn).await?;
        Ok(kept(TurnResult {
            pr_link: Some(link),
            ..TurnResult::of(TurnOutcome::PullRequest)
        }))
    }

    /// Pushes the job's branch and returns where its change can be seen.
    async fn publish(&self, turn: &PendingTurn) -> Result<String, String> {
        let branch = Self::branch(&turn.job_id);
        let tree = self.worktree(&turn.job_id);
        if let Some(remote) = &self.repo.remote {
            let refspec = format!("{branch}:refs/heads/{branch}");
            self.git
                .run_with(
                    &tree,
                    &["push", "--quiet", remote, &refspec],
                    &self.remote_env(),
                )
                .await?;
        }
        if let Some(github) = &self.github {
            let title = commit_subject(turn.prompts.first().unwrap_or(&turn.prompt));
            let body = forge::pull_request_body(&turn.prompts);
            return github
                .open_or_update(&PullRequest {
                    head: &branch,
                    base: &self.repo.base,
                    title: &title,
                    body: &body,
                })
                .await;
        }
        let compare = self
            .repo
            .remote_url
            .as_deref()
            .and_then(|url| forge::compare_url(url, &self.repo.base, &branch));
        if let Some(link) = compare {
            return Ok(link);
        }
        // Kept as a path: each node answering for the job makes it whole with its own
        // address (`to_wire_at`), so the link outlives the node that ran the turn.
        Ok(format!("/changes/{}/{}", turn.project, turn.job_id))
    }
}

impl Agent for RealAgent {
    fn run_turn<'a>(&'a self, turn: &'a PendingTurn) -> BoxFuture<'a, TurnResult> {
        Box::pin(async move {
            let result = self.turn(turn).await.unwrap_or_else(TurnResult::failed);
            if let Some(reason) = &result.reason {
                tracing::warn!(job = %turn.job_id, turn = turn.turn, "turn failed: {reason}");
            }
            result
        })
    }

    fn max_concurrent(&self) -> Option<usize> {
        Some(self.config.max_agents)
    }

    fn reruns_interrupted_turns(&self) -> bool {
        false
    }

    fn stop_running(&self) -> BoxFuture<'_, ()> {
        let work_dir = self.config.work_dir.clone();
        Box::pin(async move {
            let _ = tokio::task::spawn_blocking(move || super::orphans::stop_all(&work_dir)).await;
        })
    }

    fn output_of(&self, job_id: &str, turn: i64) -> Option<String> {
        let path = self.output_file(job_id, turn);
        path.is_file().then(|| path.display().to_string())
    }

    fn changes<'a>(&'a self, job_id: &'a str) -> BoxFuture<'a, Option<Result<String, String>>> {
        Box::pin(async move {
            let branch = format!("refs/heads/{}", Self::branch(job_id));
            let dir = &self.repo.dir;
            // No branch yet (the job waits for its first turn): no change, as for a job
            // whose agent changed nothing. A merged branch still shows what it changed.
            let Some(range) = super::touched::diff_range(&self.git, &self.repo, &branch).await
            else {
                return Some(Ok(String::new()));
            };
            let args = ["diff", "--no-color", "--no-ext-diff", &range];
            Some(
                self.git
                    .run_capped(dir, &args, super::DIFF_LIMIT)
                    .await
                    .map(|(kept, total)| super::cut_diff(&kept, total)),
            )
        })
    }

    fn change_of<'a>(&'a self, job_id: &'a str) -> BoxFuture<'a, Option<crate::api::JobChange>> {
        Box::pin(async move {
            let _shared = self.shared.lock().await;
            let branch = Self::branch(job_id);
            let env = self.remote_env();
            Some(super::touched::change_of(&self.git, &self.repo, &env, &branch).await)
        })
    }

    fn forget<'a>(&'a self, job_id: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let prompts = self.config.work_dir.join("prompts").join(job_id);
            if let Err(err) = tokio::fs::remove_dir_all(&prompts).await
                && err.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!(job = %job_id, "cannot remove the prompt files: {err}");
            }
            let path = self.worktree(job_id);
            if !path.exists() {
                return;
            }
            let _shared = self.shared.lock().await;
            let target = path.to_string_lossy().into_owned();
            match self
                .git
                .run(&self.repo.dir, &["worktree", "remove", "--force", &target])
                .await
            {
                Ok(_) => tracing::info!(job = %job_id, "removed the worktree of an archived job"),
                Err(err) => tracing::warn!(job = %job_id, "cannot remove a worktree: {err}"),
            }
        })
    }
}
