//! What can fail on this machine while the console carries out an effect (the journal, a
//! background task, the `$EDITOR` hand-off): typed, so the messages can carry it and the
//! view can put it into words.

/// Something on this machine that failed while carrying out an effect: the console goes
/// on and says so.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    #[error("journal: {0}")]
    Journal(#[from] crate::journal::JournalError),
    #[error("the journal is unavailable after a crash in another task")]
    JournalPoisoned,
    #[error("a background task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// Why an edit in `$EDITOR` left the draft as it was.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    #[error("cannot write a temporary file for the editor: {0}")]
    TempFile(std::io::Error),
    #[error("cannot hand the terminal over: {0}")]
    Terminal(std::io::Error),
    #[error("cannot run {editor}: {source}")]
    Start {
        editor: String,
        source: std::io::Error,
    },
    #[error("{editor} exited with {status}")]
    Exited {
        editor: String,
        status: std::process::ExitStatus,
    },
    #[error("cannot read the edited text back: {0}")]
    ReadBack(std::io::Error),
}
