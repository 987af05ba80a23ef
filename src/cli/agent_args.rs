//! The real agent's flags on `docdeck serve`, and how they become its configuration.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use sha2::{Digest as _, Sha256};

use super::CliError;
use super::setup::duration_arg;
use crate::config::Secret;
use crate::server::agent::{Forge, GITHUB_API, RealAgentConfig};

/// Variables of the service's own that `--agent-env` may not hand to the agent.
const SECRET_NAMES: &[&str] = &["GITHUB_TOKEN", "DOCDECK_API_KEY"];

#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Real agent (turned on by --agent-command and --repo)")]
pub struct AgentArgs {
    /// The agent to run for each turn, such as "claude -p" or "aider --yes-always --message-file
    /// /dev/stdin": split into words as a shell would, and run without a shell, in the
    /// job's worktree, with the prompt on standard input and in DOCDECK_PROMPT
    #[arg(long, value_name = "CMD", requires = "repo", conflicts_with_all = ["agent_delay_ms", "agent_outcomes", "agent_seed", "repository", "git_ref"])]
    pub agent_command: Option<String>,
    /// The repository the agent works on: a local clone's folder, or a URL to clone
    #[arg(long, value_name = "PATH|URL", requires = "agent_command")]
    pub repo: Option<String>,
    /// Branch jobs start from and pull requests go to [default: the repository's default branch]
    #[arg(long, value_name = "B", requires = "agent_command")]
    pub base_branch: Option<String>,
    /// Remote job branches are pushed to [default: origin, when the repository has one]
    #[arg(long, value_name = "NAME", requires = "agent_command")]
    pub push_remote: Option<String>,
    /// Longest a turn may run; then the agent and every process it started are killed
    /// and the job fails
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = agent_timeout_arg)]
    pub agent_timeout: Duration,
    /// Turns run at once; further turns wait and their jobs stay active
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub max_agents: u16,
    /// A variable of this environment passed through to the agent, such as
    /// ANTHROPIC_API_KEY (repeatable); the agent gets only PATH, HOME, LANG and these
    #[arg(long, value_name = "NAME", value_parser = env_name_arg)]
    pub agent_env: Vec<String>,
    /// How pull requests are opened: github needs GITHUB_TOKEN in this environment
    #[arg(long, value_enum, default_value = "none")]
    pub forge: ForgeArg,
    /// Let the real agent serve on an address other than loopback. Anyone who reaches
    /// it with the key can make this machine run the agent command
    #[arg(long)]
    pub allow_remote_agent: bool,
    /// GitHub's API base URL, for GitHub Enterprise and for tests [env:
    /// DOCDECK_GITHUB_API_URL] [default: https://api.github.com]
    #[arg(long, value_name = "URL", hide = true)]
    pub github_api_url: Option<String>,
}

impl AgentArgs {
    /// The real agent's configuration, when `--agent-command` asks for one.
    pub fn config(&self) -> Result<Option<RealAgentConfig>, CliError> {
        let (Some(command), Some(repo)) = (&self.agent_command, &self.repo) else {
            return Ok(None);
        };
        let work_dir = crate::config::data_dir()?
            .join("agent")
            .join(repo_key(repo));
        let mut config = self.config_in(command, repo, work_dir)?;
        config.launcher = launcher();
        Ok(Some(config))
    }

    /// The configuration with its clones, worktrees and output kept in `work_dir`.
    pub fn config_in(
        &self,
        command: &str,
        repo: &str,
        work_dir: PathBuf,
    ) -> Result<RealAgentConfig, CliError> {
        let mut argv = split_command(command)?;
        // The agent runs in each job's worktree: a path such as `./agent.sh` means the
        // file beside where serve was started, so it is made whole here (it was looked
        // for in the worktree, and every job failed).
        if argv[0].contains('/') && Path::new(&argv[0]).is_relative() {
            let here = std::env::current_dir().map_err(|err| {
                CliError::failed(format!(
                    "cannot tell the current folder to find --agent-command {:?} in: {err}",
                    argv[0]
                ))
            })?;
            let relative = argv[0].trim_start_matches("./").to_owned();
            argv[0] = here.join(relative).to_string_lossy().into_owned();
        }
        let github_token = std::env::var("GITHUB_TOKEN")
            .ok()
            .filter(|token| !token.trim().is_empty())
            .map(Secret::new);
        if self.forge == ForgeArg::Github && github_token.is_none() {
            return Err(CliError::usage(
                "--forge github needs GITHUB_TOKEN in the environment of docdeck serve (a token that may push and open pull requests)",
            ));
        }
        Ok(RealAgentConfig {
            command: argv,
            repo: repo.to_owned(),
            base_branch: self.base_branch.clone(),
            push_remote: self.push_remote.clone(),
            timeout: self.agent_timeout,
            max_agents: usize::from(self.max_agents),
            agent_env: self.agent_env.clone(),
            forge: self.forge.into(),
            github_token,
            github_api: self
                .github_api_url
                .clone()
                .or_else(|| std::env::var("DOCDECK_GITHUB_API_URL").ok())
                .filter(|url| !url.trim().is_empty())
                .unwrap_or_else(|| GITHUB_API.to_owned()),
            work_dir,
            launcher: None,
        })
    }
}

/// This binary, to run the agent through `docdeck agent-exec` so that it dies with the
/// service (Linux only: it relies on `PR_SET_PDEATHSIG`).
pub(super) fn launcher() -> Option<PathBuf> {
    if cfg!(target_os = "linux") {
        std::env::current_exe().ok()
    } else {
        None
    }
}

/// Splits `CMD` into words as a POSIX shell would (quotes and backslashes), without
/// expanding anything: it is run without a shell.
pub fn split_command(command: &str) -> Result<Vec<String>, CliError> {
    let words = shell_words::split(command).map_err(|err| {
        CliError::usage(format!(
            "--agent-command {command:?} cannot be split into words ({err}): check its quotes"
        ))
    })?;
    if words.is_empty() {
        return Err(CliError::usage(
            "--agent-command is empty: give the agent's program and arguments, such as \"claude -p\"",
        ));
    }
    Ok(words)
}

/// A short stable name for a repository, so each gets its own work folder.
fn repo_key(repo: &str) -> String {
    let canonical = std::fs::canonicalize(repo)
        .map(|path| path.to_string_lossy().into_owned())
        .unwrap_or_else(|_| repo.to_owned());
    let digest = Sha256::digest(canonical.as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

fn agent_timeout_arg(text: &str) -> Result<Duration, String> {
    match duration_arg(text)? {
        zero if zero.is_zero() => Err(format!(
            "{text:?} would stop every agent at once: give a duration above zero, such as 30m"
        )),
        timeout => Ok(timeout),
    }
}

fn env_name_arg(text: &str) -> Result<String, String> {
    let valid = !text.is_empty()
        && !text.starts_with(|c: char| c.is_ascii_digit())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!(
            "{text:?} is not a variable name: give the NAME only (letters, digits, _), such as ANTHROPIC_API_KEY"
        ));
    }
    if SECRET_NAMES.contains(&text) {
        return Err(format!(
            "{text} is the service's own secret and never reaches the agent"
        ));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell_without_expansion() {
        assert_eq!(
            split_command(r#"claude -p --allowedTools "Edit Write" '$HOME'"#).unwrap(),
            vec!["claude", "-p", "--allowedTools", "Edit Write", "$HOME"]
        );
        assert!(
            split_command("agent 'open")
                .unwrap_err()
                .message
                .contains("quotes")
        );
        assert!(split_command("  ").unwrap_err().message.contains("empty"));
    }

    #[test]
    fn agent_env_takes_names_and_refuses_the_services_secrets() {
        assert_eq!(
            env_name_arg("ANTHROPIC_API_KEY").unwrap(),
            "ANTHROPIC_API_KEY"
        );
        assert!(env_name_arg("A=1").unwrap_err().contains("NAME only"));
        assert!(
            env_name_arg("GITHUB_TOKEN")
                .unwrap_err()
                .contains("never reaches")
        );
        assert!(agent_timeout_arg("0s").is_err());
        assert_eq!(repo_key("https://x/y"), repo_key("https://x/y"));
        assert_ne!(repo_key("https://x/y"), repo_key("https://x/z"));
    }

    #[test]
    fn a_relative_agent_path_is_taken_from_where_serve_starts() {
        // The trial of stop 33: `--agent-command ./agent.sh` passed the start's check and
        // then was looked for in each job's worktree, failing every job.
        let cli = <crate::cli::Cli as clap::Parser>::parse_from(["docdeck", "serve"]);
        let Some(crate::cli::Command::Serve(serve)) = cli.command else {
            panic!("not serve")
        };
        let here = std::env::current_dir().unwrap();
        let config = |command| {
            serve
                .agent
                .config_in(command, "repo", PathBuf::from("work"))
                .unwrap()
                .command
        };
        assert_eq!(
            config("./agent.sh -p"),
            vec![
                here.join("agent.sh").to_string_lossy().into_owned(),
                "-p".to_owned()
            ]
        );
        assert_eq!(
            config("scripts/agent")[0],
            here.join("scripts/agent").to_string_lossy()
        );
        assert_eq!(config("/opt/agent")[0], "/opt/agent");
        assert_eq!(config("claude -p")[0], "claude", "found on PATH");
    }
}

/// `--forge`: how pull requests are opened. The command line's words for the service's
/// [`Forge`], which knows nothing of the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ForgeArg {
    /// No forge API: a compare link for GitHub, GitLab and Bitbucket remotes, otherwise
    /// the service's own /changes page
    #[default]
    None,
    /// Open pull requests through GitHub's REST API with GITHUB_TOKEN
    Github,
}

impl From<ForgeArg> for Forge {
    fn from(arg: ForgeArg) -> Self {
        match arg {
            ForgeArg::None => Self::None,
            ForgeArg::Github => Self::Github,
        }
    }
}
