//! What a turn hands on from its request: the prompt written to a file for the agent
//! (`DOCDECK_PROMPT_FILE`), and the commit that holds the request (the prompt's first line
//! as subject; the whole prompt and the job as body).

use std::path::Path;

use crate::server::jobs::PendingTurn;

/// Writes the turn's prompt (or its commit message) where `DOCDECK_PROMPT_FILE` says,
/// readable by the service's user only (a prompt may hold what others should not read).
pub(super) async fn write_prompt(path: &Path, prompt: &str) -> Result<(), String> {
    let failed =
        |err: std::io::Error| format!("cannot write the prompt file {}: {err}", path.display());
    if let Some(dir) = path.parent() {
        tokio::fs::create_dir_all(dir).await.map_err(failed)?;
    }
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    options.mode(0o600);
    let mut file = options.open(path).await.map_err(failed)?;
    tokio::io::AsyncWriteExt::write_all(&mut file, prompt.as_bytes())
        .await
        .map_err(failed)?;
    // tokio writes in the background: only a flush says the bytes are in the file, before
    // the agent or `git commit --file` reads it.
    tokio::io::AsyncWriteExt::flush(&mut file)
        .await
        .map_err(failed)
}

/// The commit of a turn holds the request: the prompt's first line as its subject, and
/// the whole prompt (when there is more to it) and the job's id as its body.
pub(super) fn commit_message(turn: &PendingTurn) -> String {
    let subject = commit_subject(&turn.prompt);
    let prompt = turn.prompt.trim();
    let mut message = format!("{subject}\n\n");
    if prompt != subject {
        message.push_str(prompt);
        message.push_str("\n\n");
    }
    message.push_str(&format!(
        "Docdeck-Job: {}\nDocdeck-Turn: {}\n",
        turn.job_id, turn.turn
    ));
    message
}

/// The first line of the prompt, shortened to a commit subject.
pub(super) fn commit_subject(prompt: &str) -> String {
    let line = prompt
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("docdeck agent turn");
    let line = line.trim();
    if line.chars().count() <= 72 {
        line.to_owned()
    } else {
        let cut: String = line.chars().take(71).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests;
