//! The words of an alert: what a `notify_command` is told about a job, the command that
//! is run, and how it failed. Plain data that travels in messages; running it is the
//! effects' business (`effects/alert.rs`).

use std::time::Duration;

/// `notify_command`: the program and its arguments, and how long it may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertCommand {
    pub argv: Vec<String>,
    /// Past it the command's whole process group is killed (10 s; tests shorten it).
    pub limit: Duration,
}

impl AlertCommand {
    /// How long an alert command may run before it is killed.
    pub const LIMIT: Duration = Duration::from_secs(10);

    #[must_use]
    pub fn new(argv: Vec<String>) -> Self {
        Self {
            argv,
            limit: Self::LIMIT,
        }
    }
}

/// What the alert says: the job, as the service last described it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub command: AlertCommand,
    pub job_id: String,
    /// The final status, as the service names it (`completed`, `failed`, `archived`).
    pub status: String,
    pub pr_link: Option<String>,
    /// The job's first prompt, as sent from here, when known.
    pub prompt: Option<String>,
}

/// How a `notify_command` failed, with what to check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AlertError {
    /// `reason` says what failed (not found, not executable, too large an environment).
    #[error("notify_command could not start: {reason}")]
    Spawn { program: String, reason: String },
    #[error(
        "notify_command {program:?} exited with {code}: run it by hand with DOCDECK_JOB_ID and DOCDECK_JOB_STATUS set to see why"
    )]
    Exited { program: String, code: i32 },
    #[error(
        "notify_command {program:?} was stopped by a signal: run it by hand with DOCDECK_JOB_ID and DOCDECK_JOB_STATUS set to see why"
    )]
    Signalled { program: String },
    #[error(
        "notify_command {program:?} ran longer than {}s and was stopped: it must return (start anything that waits, such as a dialog, in the background)",
        limit.as_secs_f64()
    )]
    TimedOut { program: String, limit: Duration },
}
