//! `notify_command`: the person's program, run when a job reaches a final status, so the
//! news can reach a desktop, a phone (ntfy) or a chat webhook. It is run without a shell,
//! in an emptied environment (the API key is never in it) that carries the job in
//! `DOCDECK_*` variables: text from the service reaches it only there, never as an
//! argument. The prompt is also on its standard input and in a private file
//! (`DOCDECK_PROMPT_FILE`), and in `DOCDECK_PROMPT` only when it fits in one variable. It runs in its own process group, killed whole past its time limit; the
//! console never waits for it, and hears only how it ended.

use std::process::Stdio;

use crate::tui::message::{Alert, AlertError};

/// Variables of the console's own environment the command gets: what finds programs and
/// speaks the person's language, and what reaches their desktop session (so that
/// `notify-send` works). None of them holds the key.
const PASSED_ON: [&str; 7] = [
    "PATH",
    "HOME",
    "LANG",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "DBUS_SESSION_BUS_ADDRESS",
    "XDG_RUNTIME_DIR",
];

impl Alert {
    /// The command's whole environment.
    fn environment(&self, env: &dyn Fn(&str) -> Option<String>) -> Vec<(String, String)> {
        // A NUL cannot be in an environment variable: the rest of the text still goes.
        let clean = |text: &str| text.replace('\0', "");
        let mut vars: Vec<(String, String)> = PASSED_ON
            .iter()
            .filter_map(|name| env(name).map(|value| ((*name).to_owned(), value)))
            .collect();
        vars.extend([
            ("DOCDECK_JOB_ID".to_owned(), clean(&self.job_id)),
            ("DOCDECK_JOB_STATUS".to_owned(), clean(&self.status)),
            (
                "DOCDECK_PR_LINK".to_owned(),
                clean(self.pr_link.as_deref().unwrap_or_default()),
            ),
        ]);
        vars.extend(crate::launch::prompt_variable(
            self.prompt.as_deref().unwrap_or_default(),
        ));
        vars
    }
}

/// Runs the alert's command to its end or its time limit. `env` reads the console's own
/// environment (a parameter, so tests do not touch the process's).
pub async fn run(
    alert: Alert,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<(), AlertError> {
    let argv = &alert.command.argv;
    let program = argv.first().cloned().unwrap_or_default();
    let prompt = alert.prompt.clone().unwrap_or_default();
    // Kept until the command has ended; removed when dropped.
    let prompt_file = prompt_file(&prompt);
    let mut command = tokio::process::Command::new(&program);
    command
        .args(&argv[1..])
        .env_clear()
        .envs(alert.environment(env))
        .envs(prompt_file.as_ref().map(|file| {
            (
                "DOCDECK_PROMPT_FILE".to_owned(),
                file.path().display().to_string(),
            )
        }))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command.spawn().map_err(|err| AlertError::Spawn {
        program: program.clone(),
        reason: crate::launch::why_not_started(&program, &err),
    })?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its standard input closes it: not an error.
        tokio::spawn(async move {
            let _ = tokio::io::AsyncWriteExt::write_all(&mut stdin, prompt.as_bytes()).await;
        });
    }
    let limit = alert.command.limit;
    let status = match tokio::time::timeout(limit, child.wait()).await {
        Ok(Ok(status)) => status,
        Ok(Err(err)) => {
            return Err(AlertError::Spawn {
                program,
                reason: err.to_string(),
            });
        }
        Err(_) => {
            // What it started (a `sleep`, a `curl`) goes too.
            if let Some(leader) = child.id() {
                crate::launch::kill_group(leader);
            }
            let _ = child.kill().await;
            return Err(AlertError::TimedOut { program, limit });
        }
    };
    match status.code() {
        Some(0) => Ok(()),
        Some(code) => Err(AlertError::Exited { program, code }),
        None => Err(AlertError::Signalled { program }),
    }
}

/// The prompt in a new private file (mode 0600, a random name), or `None` when it cannot
/// be made: the command still has the prompt on its standard input.
fn prompt_file(prompt: &str) -> Option<tempfile::NamedTempFile> {
    let mut file = tempfile::Builder::new()
        .prefix("docdeck-prompt-")
        .suffix(".txt")
        .tempfile()
        .ok()?;
    std::io::Write::write_all(&mut file, prompt.as_bytes()).ok()?;
    Some(file)
}

#[cfg(test)]
mod tests;
