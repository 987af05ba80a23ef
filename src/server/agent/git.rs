//! The `git` command line as the real agent uses it: every call a child process with an
//! environment emptied down to what git needs, so the service's secrets never reach it
//! (a forge token is added only to the calls that talk to the remote).

use std::path::Path;
use std::process::Stdio;

/// Variables git may need from the service's environment: where it finds programs and
/// its global configuration, the language of its messages, and how it reaches an SSH
/// remote.
const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "LANG",
    "XDG_CONFIG_HOME",
    "SSH_AUTH_SOCK",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
];

/// Runs git with a fixed base environment.
#[derive(Debug, Clone)]
pub struct Git {
    env: Vec<(String, String)>,
}

impl Git {
    /// Git with the variables of [`PASSED`] that are set, prompts for credentials off (a
    /// service has nobody to answer them), and `identity` (name, email) for commits when
    /// given.
    pub fn new(identity: Option<(&str, &str)>) -> Self {
        let mut env: Vec<(String, String)> = PASSED
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|v| ((*name).to_owned(), v)))
            .collect();
        env.push(("GIT_TERMINAL_PROMPT".into(), "0".into()));
        if let Some((name, email)) = identity {
            for (key, value) in [
                ("GIT_AUTHOR_NAME", name),
                ("GIT_AUTHOR_EMAIL", email),
                ("GIT_COMMITTER_NAME", name),
                ("GIT_COMMITTER_EMAIL", email),
            ] {
                env.push((key.into(), value.into()));
            }
        }
        Self { env }
    }

    /// Runs `git ARGS` in `dir` and returns its standard output. The error names the
    /// command (never the environment, where a token may be) and quotes git's message.
    pub async fn run(&self, dir: &Path, args: &[&str]) -> Result<String, String> {
        self.run_with(dir, args, &[]).await
    }

    /// As [`Git::run`], with `extra` variables (such as a forge token's configuration).
    pub async fn run_with(
        &self,
        dir: &Path,
        args: &[&str],
        extra: &[(String, String)],
    ) -> Result<String, String> {
        let output = tokio::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .envs(extra.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output()
            .await
            .map_err(|err| {
                let verb = args.first().copied().unwrap_or_default();
                format!(
                    "cannot run git {verb}: {}",
                    crate::launch::why_not_started("git", &err)
                )
            })?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let message: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
            let tail = message[message.len().saturating_sub(4)..].join(" / ");
            Err(format!(
                "`git {}` failed ({}): {}",
                args.first().copied().unwrap_or_default(),
                output.status,
                if tail.is_empty() { "no message" } else { &tail }
            ))
        }
    }

    /// As [`Git::run`], keeping at most `limit` bytes of the output; the rest is read and
    /// counted, never held. Returns what was kept and the whole output's size.
    pub async fn run_capped(
        &self,
        dir: &Path,
        args: &[&str],
        limit: usize,
    ) -> Result<(Vec<u8>, u64), String> {
        use tokio::io::AsyncReadExt as _;
        let mut child = tokio::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| format!("cannot run git (is it installed and on PATH?): {err}"))?;
        let mut kept = Vec::new();
        let mut total: u64 = 0;
        if let Some(mut stdout) = child.stdout.take() {
            let mut buffer = vec![0u8; 64 * 1024];
            loop {
                let n = stdout
                    .read(&mut buffer)
                    .await
                    .map_err(|err| format!("cannot read git's output: {err}"))?;
                if n == 0 {
                    break;
                }
                total += n as u64;
                let room = limit.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&buffer[..room]);
            }
        }
        let status = child
            .wait()
            .await
            .map_err(|err| format!("cannot wait for git: {err}"))?;
        if !status.success() {
            return Err(format!(
                "`git {}` failed ({status})",
                args.first().copied().unwrap_or_default()
            ));
        }
        Ok((kept, total))
    }

    /// The trimmed first line of `git ARGS`, or `None` when it fails.
    pub async fn line(&self, dir: &Path, args: &[&str]) -> Option<String> {
        let out = self.run(dir, args).await.ok()?;
        let line = out.lines().next()?.trim().to_owned();
        (!line.is_empty()).then_some(line)
    }
}

/// The environment that hands git an HTTP header for `url`'s host without writing it
/// anywhere: `GIT_CONFIG_COUNT`/`KEY`/`VALUE` are read by git as command-line configuration.
#[must_use]
pub fn header_env(url_prefix: &str, header: &str) -> Vec<(String, String)> {
    vec![
        ("GIT_CONFIG_COUNT".into(), "1".into()),
        (
            "GIT_CONFIG_KEY_0".into(),
            format!("http.{url_prefix}.extraheader"),
        ),
        ("GIT_CONFIG_VALUE_0".into(), header.to_owned()),
    ]
}
