//! What happens to the console (`Msg`) and what it asks the outside world to do
//! (`Effect`). `update` turns one into the other; nothing here does I/O.

use std::path::PathBuf;
use std::time::Instant;

use chrono::{DateTime, Utc};
use crossterm::event::Event;

use crate::api::{ApiError, Job, VisitorsPage, VisitorsQuery};
use crate::export::DataFormat;

mod alert;
mod frame;
mod generation;
mod insight;
mod local;
mod signal;
mod signals;
mod trend;

use crate::journal::{
    ANALYTICS_HOURLY_LIMIT, AnalyticsBudget, SentPrompt, StatusChange, TrackedJob, UnsureSend,
};
pub use alert::{Alert, AlertCommand, AlertError};
pub use frame::{Found, Hits, Pane, RowsArea, TextExtent, Viewport};
pub use generation::{Awaits, Generation, Generations};
pub use insight::{InsightIo, InsightMsg, WholeEnd};
pub use local::{EditorError, LocalError};
pub use signal::{Comments, ImpactFailed, ImpactRead, SignalIo, SignalMsg};
pub use signals::SignalsPage;
pub use trend::TrendPlan;

/// The instant `update` runs at: monotonic for schedules, wall time for what is shown.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pub mono: Instant,
    pub wall: DateTime<Utc>,
}

impl Clock {
    /// The real time now.
    #[must_use]
    pub fn now() -> Self {
        Self {
            mono: Instant::now(),
            wall: Utc::now(),
        }
    }
}

/// Which composer draft a text belongs to: a new job, or a follow-up to one job.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DraftKey {
    NewJob,
    FollowUp(String),
}

impl DraftKey {
    /// The key the journal stores the draft under.
    #[must_use]
    pub fn as_journal(&self) -> String {
        match self {
            Self::NewJob => "new".to_owned(),
            Self::FollowUp(id) => format!("job:{id}"),
        }
    }

    /// Reads a journal key back; keys this build does not know are ignored.
    #[must_use]
    pub fn from_journal(key: &str) -> Option<Self> {
        match key {
            "new" => Some(Self::NewJob),
            _ => key
                .strip_prefix("job:")
                .filter(|id| !id.is_empty())
                .map(|id| Self::FollowUp(id.to_owned())),
        }
    }
}

/// What the journal held when the console opened.
#[derive(Debug, Clone, Default)]
pub struct Startup {
    pub jobs: Vec<TrackedJob>,
    pub drafts: Vec<(String, String)>,
    pub visitors_filter: Option<String>,
    pub budget: Budget,
    /// An unusable journal file was moved aside at start: said so on screen.
    pub set_aside: Option<String>,
    /// New-job prompts of unknown outcome, listed until dismissed or tracked.
    pub unsure: Vec<UnsureSend>,
}

/// Uses of the hourly budgets, as counted in the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    pub create_used: u32,
    pub message_used: u32,
    /// Analytics requests of the last hour (pages, trend buckets, comparisons, exports),
    /// and the rule for work that needs more: ask above 10, refuse above what is left.
    pub analytics: AnalyticsBudget,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            create_used: 0,
            message_used: 0,
            analytics: AnalyticsBudget::new(ANALYTICS_HOURLY_LIMIT, Vec::new()),
        }
    }
}

/// How a submission ended.
#[derive(Debug)]
pub enum Submitted {
    Accepted(Box<Job>),
    Failed(ApiError),
    /// Failed before anything was sent (the journal could not record the prompt).
    NotSent(LocalError),
}

/// Something that happened, for `update` to take in.
#[derive(Debug)]
pub enum Msg {
    /// A key, a paste, a resize or focus, from the terminal.
    Input(Event),
    /// A timer the loop set from `App::next_wake` went off.
    Tick,
    /// What the journal held at start (tracked jobs, drafts, settings): the console
    /// starts reading only once it has this.
    Loaded(Box<Startup>),
    /// The tracked jobs as the journal has them now (another docdeck may have added some).
    TrackedList(Vec<TrackedJob>),
    /// The answer to a poll or refresh of one job: a changed row, or a failed read that
    /// backs off.
    JobFetched {
        id: String,
        result: Result<Job, ApiError>,
    },
    /// The answer to `a`: `id` is the whole id the typed text stood for (the journal
    /// knows jobs by a unique prefix), and `first_prompt` what the journal holds of a job
    /// tracked again.
    Tracked {
        id: String,
        result: Result<Job, ApiError>,
        first_prompt: Option<String>,
    },
    /// How a new job or follow-up ended: accepted (the job is listed and polled), failed,
    /// or never sent.
    Submitted { draft: DraftKey, outcome: Submitted },
    /// The journal's conversation and status timeline of the job whose detail is open.
    Detail {
        id: String,
        conversation: Vec<SentPrompt>,
        timeline: Vec<StatusChange>,
    },
    /// When the project's views begin and end, as the service said with a visitors page
    /// (the local service does): an empty range offers those dates.
    ViewsSpan(Option<crate::api::limit::ViewsSpan>),
    /// A page of visitors, or why not; dropped when its generation is not the latest.
    Visitors {
        generation: Generation,
        result: Result<VisitorsPage, ApiError>,
    },
    /// The chart, the comparison or the whole range heard back.
    Insight(InsightMsg),
    /// A page of searches or assistant questions for the searches pane, or why not;
    /// dropped when its generation is not the list's latest.
    Signals {
        generation: Generation,
        result: Result<SignalsPage, ApiError>,
    },
    /// A job's impact or a page's comments heard back.
    Signal(SignalMsg),
    /// Rows and pages fetched so far by the running export, shown under the table.
    ExportProgress { rows: u64, pages: u64 },
    /// How the export ended.
    ExportDone(ExportEnd),
    /// The hour's uses of create and message as the journal counts them now.
    Budget(Budget),
    /// New-job prompts of unknown outcome, as the journal has them now.
    Unsure(Vec<UnsureSend>),
    /// `$EDITOR` has given the terminal back: the draft's new text, or why it is unchanged.
    EditorDone {
        draft: DraftKey,
        result: Result<String, EditorError>,
    },
    /// Something local failed (the journal, the opener); the console goes on and says so.
    LocalFailure(LocalError),
    /// The journal could not keep a draft: the text is still on screen, but would not
    /// survive a crash.
    DraftNotSaved(LocalError),
    /// The answer to the start-up check of the key and project (a read of a job id that
    /// does not exist: 404 means both were accepted).
    ConnectionChecked(Result<(), ApiError>),
    /// `notify_command` failed (could not start, exited with an error, ran too long):
    /// said as a warning, so a broken alert does not go unnoticed.
    AlertFailed(AlertError),
    /// The desktop's opener could not open `url` (it failed to start or exited with an
    /// error): the console copies the link instead.
    OpenFailed { url: String, reason: String },
    /// SIGTERM, SIGHUP or SIGINT: leave cleanly.
    Terminate,
    /// The process goes on after a stop (Ctrl+Z, then `fg`): the loop has taken the
    /// terminal again; everything is drawn anew.
    Continued,
    /// What the frame just drawn measured (rows on screen, where texts end, what the
    /// detail's search found): the view reports it, the loop passes it on before anything
    /// else, so page-wise keys and clicks go by what is on screen.
    Drawn(Viewport),
}

/// How an export ended. Paths are absolute, so the user is told exactly where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportEnd {
    /// Every row of the range is in the file.
    Written { path: PathBuf, rows: u64 },
    /// The file exists and replacing it was not confirmed: nothing was fetched.
    Exists(PathBuf),
    /// The service failed or paged without end part-way. The rows fetched so far are in
    /// `kept` (a file of their own, never the one asked for), when it could be written.
    Stopped {
        offset: u64,
        reason: ApiError,
        rows: u64,
        kept: Option<PathBuf>,
    },
    /// Nothing was written.
    Failed(ExportError),
}

/// Why an export wrote nothing, or stopped. I/O errors are kept as their words, so an
/// end can be compared and cloned like the rest of the state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("~ needs HOME to be set: type the whole path")]
    NoHome,
    #[error("cannot tell the current folder ({0}): type the whole path")]
    NoCurrentFolder(String),
    #[error("cannot write {}: {reason}", path.display())]
    Write { path: PathBuf, reason: String },
    #[error("cannot encode the rows: {0}")]
    Encode(String),
    #[error("the export's task failed: {0}")]
    Task(String),
    /// The service failed before any row came.
    #[error("{0}")]
    Service(ApiError),
}

/// Something `update` wants done. Split by who carries it out, so each side matches
/// its own kind exhaustively and a new effect cannot be dropped without a word.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Network, journal, files and the opener: the runner (`effects.rs`) starts a task that
    /// answers with a `Msg`.
    Io(Io),
    /// Writes to the terminal or hands it over: the loop (`mod.rs`), which owns it.
    Tty(Tty),
}

/// What the runner does: each effect becomes a task that answers with zero or more `Msg`s.
#[derive(Debug, Clone, PartialEq)]
pub enum Io {
    /// Reads one job (a poll or a refresh); answers `JobFetched`. A read that changed the
    /// job is stored in the journal first.
    FetchJob(String),
    /// Looks up a typed id (or a unique prefix of a known one) and tracks the job; with a
    /// submission, the new-job prompt of unknown outcome is recorded as that job's.
    /// Answers `Tracked`.
    Track {
        typed: String,
        submission: Option<i64>,
    },
    /// Reads the new-job prompts of unknown outcome again; answers `Unsure`.
    LoadUnsure,
    /// The user said a prompt of unknown outcome made no job: the journal forgets it.
    DismissUnsure(i64),
    /// `x`: the journal stops tracking a job (the service keeps it).
    Untrack(String),
    /// Records a prompt, sends it once, records the outcome; answers `Submitted`. Never
    /// retried: a send that may have reached the service is reported as such.
    Submit { draft: DraftKey, prompt: String },
    /// Reads the conversation and timeline of the job whose detail opened; answers
    /// `Detail`.
    LoadDetail(String),
    /// Reads one page of visitors; answers `Visitors` with the same generation, so a
    /// reply for a page no longer wanted is dropped.
    FetchVisitors {
        generation: Generation,
        query: VisitorsQuery,
    },
    /// Reads for the chart, the comparison or the whole range.
    Insight(InsightIo),
    /// Reads one page of searches or assistant questions (the query's kind says which);
    /// answers `Signals` with the same generation.
    ReadSignals {
        generation: Generation,
        query: crate::api::signals::SignalsQuery,
    },
    /// Reads a job's impact or a page's comments.
    Signal(SignalIo),
    /// Writes every row of a range to a file in the background; answers
    /// `ExportProgress` as pages come and `ExportDone` at the end.
    Export {
        query: VisitorsQuery,
        format: DataFormat,
        /// As typed: `~` and relative paths are resolved when the export runs.
        path: PathBuf,
        /// The user confirmed replacing the file; otherwise an existing file stops it.
        overwrite: bool,
    },
    /// Writes text already made (the whole range as read: its filter, order and
    /// comparison) to a file, fetching nothing; answers `ExportDone`.
    ExportWhole {
        text: String,
        rows: u64,
        /// As typed, resolved as for `Export`.
        path: PathBuf,
        overwrite: bool,
    },
    /// Esc during an export: stops it; no file is written.
    CancelExport,
    /// Keeps a draft's text in the journal, so it survives a crash or an SSH drop (only
    /// the newest text of each draft is written when typing outruns the disk).
    SaveDraft { draft: DraftKey, text: String },
    /// Remembers a setting of the console (the visitors filter) for the next start.
    SaveSetting { name: &'static str, value: String },
    /// Counts the hour's uses of create and message again; answers `Budget`.
    RefreshBudget,
    /// Checks the key and project with one read that costs no budget; answers
    /// `ConnectionChecked`.
    CheckConnection,
    /// Re-reads the tracked jobs from the journal (another docdeck may have added some);
    /// answers `TrackedList`.
    ReloadTracked,
    /// Opens a link with the desktop's opener; answers `OpenFailed` when it cannot.
    OpenUrl(String),
    /// Runs `notify_command` for a job that reached a final status; answers
    /// `AlertFailed` when it fails, nothing when it worked.
    Alert(Box<Alert>),
}

/// What the loop does itself, because it owns the terminal.
#[derive(Debug, Clone, PartialEq)]
pub enum Tty {
    /// Puts text on the user's clipboard with an OSC 52 escape (works over SSH).
    Copy(String),
    /// Rings the terminal bell: a job reached a final status.
    Bell,
    /// A desktop notification as an OSC 9 escape, which reaches the user's own machine
    /// over SSH when the terminal supports it.
    Notify { title: String, body: String },
    /// Ctrl+Z: give the terminal back and stop, as a shell job does; `fg` resumes.
    Suspend,
    /// Ctrl+E: hands the terminal to `$EDITOR` on the draft; answers `EditorDone`.
    Edit { draft: DraftKey, text: String },
}
