//! The `$EDITOR` hand-off for Ctrl+E: the draft goes to a private temporary file, the
//! editor runs on the real terminal, and the file is read back and removed. When the
//! terminal hangs up while the editor is open, what the editor last wrote there is read
//! back all the same (however the editor ended, or while it still runs), before the file
//! is removed: a dropped connection loses no saved text.

use std::io::Write as _;
use std::path::Path;

use tempfile::NamedTempFile;
use tokio::sync::watch;

use super::message::{DraftKey, EditorError};
use super::terminal::Host;

/// A new file that only this user can read (0600), with a name nobody can guess, created
/// with `O_EXCL` so that a symlink or file planted in the shared temporary folder is never
/// followed or overwritten. Removed when dropped.
pub(crate) fn draft_file(draft: &DraftKey, text: &str) -> std::io::Result<NamedTempFile> {
    let prefix = format!("docdeck-{}-", draft.as_journal().replace(':', "-"));
    let mut file = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".md")
        .tempfile()?;
    file.write_all(text.as_bytes())?;
    file.flush()?;
    Ok(file)
}

/// Ctrl+E from the loop's side: stops reading keys (so the editor gets every one), edits,
/// reads keys again, and asks for a whole redraw. Answers `EditorDone`.
pub(crate) async fn hand_off<B: ratatui::backend::Backend>(
    host: &mut dyn Host,
    terminal: &mut ratatui::Terminal<B>,
    keys: &mut super::KeyReader,
    editor: &str,
    hangup: Option<watch::Receiver<bool>>,
    draft: DraftKey,
    text: String,
) -> super::message::Msg {
    keys.pause().await;
    let result = edit(host, editor, hangup, &draft, text).await;
    keys.resume();
    let _ = super::terminal::full_redraw(terminal);
    super::message::Msg::EditorDone { draft, result }
}

/// Hands the terminal to the editor on a private temporary file and reads the file back
/// (its text as the editor left it: the composer normalises line breaks). On a hangup
/// (`hangup` turning true, or the terminal found gone when the editor ends) the file is
/// read as it is, whatever the editor's exit, and the terminal is not taken back.
pub(crate) async fn edit(
    host: &mut dyn Host,
    editor: &str,
    hangup: Option<watch::Receiver<bool>>,
    draft: &DraftKey,
    text: String,
) -> Result<String, EditorError> {
    let file = draft_file(draft, &text).map_err(EditorError::TempFile)?;
    host.suspend().map_err(EditorError::Terminal)?;
    let ran = run(editor, file.path(), hangup.clone()).await;
    let hung_up = matches!(ran, Ok(Ran::HungUp))
        || hangup.is_some_and(|seen| *seen.borrow())
        || host.hung_up();
    if hung_up {
        // Read by path, before the file is removed: editors that save by renaming a new
        // file over the old one leave a new file there.
        return std::fs::read_to_string(file.path()).map_err(EditorError::ReadBack);
    }
    let resumed = host.resume();
    let result = match ran {
        Ok(Ran::Exited(status)) if status.success() => {
            std::fs::read_to_string(file.path()).map_err(EditorError::ReadBack)
        }
        Ok(Ran::Exited(status)) => Err(EditorError::Exited {
            editor: editor.to_owned(),
            status,
        }),
        // Seen above: a hangup returns early.
        Ok(Ran::HungUp) => Ok(text),
        Err(source) => Err(EditorError::Start {
            editor: editor.to_owned(),
            source,
        }),
    };
    drop(file);
    resumed.map_err(EditorError::Terminal)?;
    result
}

/// How the editor's run ended.
enum Ran {
    Exited(std::process::ExitStatus),
    /// The terminal hung up first; the editor was sent SIGHUP and is not waited for.
    HungUp,
}

async fn run(
    editor: &str,
    path: &Path,
    hangup: Option<watch::Receiver<bool>>,
) -> std::io::Result<Ran> {
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(shell_command(editor))
        .arg("sh")
        .arg(path)
        .spawn()?;
    let hung_up = async {
        let seen = match hangup {
            Some(mut seen) => seen.wait_for(|gone| *gone).await.is_ok(),
            None => false,
        };
        if !seen {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        status = child.wait() => status.map(Ran::Exited),
        () = hung_up => {
            // As a shell does to its jobs when the terminal hangs up: the editor may
            // still save its own recovery copy.
            let pid = child.id().and_then(|id| i32::try_from(id).ok());
            if let Some(pid) = pid.and_then(rustix::process::Pid::from_raw) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::HUP);
            }
            Ok(Ran::HungUp)
        }
    }
}

/// The shell command that edits `"$1"` with `editor`. A plain command (words, options,
/// variables) is run with `exec`, so the editor takes the shell's place and a hangup's
/// SIGHUP reaches the editor itself, not a shell that would leave it running; anything
/// the shell must read as syntax (a function, a list, a redirection, an assignment)
/// runs as it is written.
fn shell_command(editor: &str) -> String {
    let first = editor.split_whitespace().next().unwrap_or_default();
    let syntax = editor.contains([';', '&', '|', '(', ')', '{', '}', '<', '>', '`', '\n'])
        || first.contains('=')
        || matches!(
            first,
            "if" | "for" | "while" | "case" | "until" | "!" | "exec"
        );
    if syntax {
        format!("{editor} \"$1\"")
    } else {
        format!("exec {editor} \"$1\"")
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    #[test]
    fn a_plain_editor_takes_the_shells_place_and_shell_syntax_runs_as_written() {
        assert_eq!(shell_command("vim"), "exec vim \"$1\"");
        assert_eq!(shell_command("code --wait"), "exec code --wait \"$1\"");
        assert_eq!(
            shell_command("$HOME/bin/ed -x"),
            "exec $HOME/bin/ed -x \"$1\""
        );
        for written in [
            "m() { cat \"$1\"; }; m",
            "LANG=C vi",
            "vi 2>/dev/null",
            "exec vi",
        ] {
            assert_eq!(shell_command(written), format!("{written} \"$1\""));
        }
    }

    #[test]
    fn the_draft_file_is_private_new_and_unguessable() {
        let draft = DraftKey::FollowUp("job_1".into());
        let one = draft_file(&draft, "secret plans").unwrap();
        let two = draft_file(&draft, "other").unwrap();
        assert_ne!(one.path(), two.path(), "a fresh name each time");
        let name = one
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            !name.contains(&std::process::id().to_string()),
            "{name} is guessable"
        );
        let meta = std::fs::symlink_metadata(one.path()).unwrap();
        assert!(meta.file_type().is_file());
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(one.path()).unwrap(), "secret plans");
        let path = one.path().to_owned();
        drop(one);
        assert!(!path.exists(), "removed after the edit");
    }
}
