//! The console's state; `update` (update.rs): every input, reply and timer goes through one
//! pure function that changes the state and returns the effects to run. No I/O, no await, and
//! the clock is passed in, so every behaviour is testable without a terminal or network.
//!
//! The parts, and which way the arrows go (nothing imports what is above it):
//!
//! ```text
//! loop (tui/mod.rs) ── Msg ──▶ App::update ── Effect ──▶ effects/ (I/O) ── Msg ──▶ loop
//!   └─ draws with view/, which reports what a frame measured as Msg::Drawn
//! App: the router. Owns the focus, the overlays, the notice line and the link (link/)
//!   ├─ jobs/     JobList: keys, reads, tracking, the poll schedule    ┐ each owns its
//!   ├─ composer/ Composer: keys, the send, $EDITOR, templates         │ state, hands
//!   ├─ visitors/ VisitorsTable: keys, the page, trend, period before, │ back an Outcome
//!   │            whole range and export (reads the app through Ctx)   │ App::route runs
//!   ├─ searches/ SearchesPane: searches, unanswered questions, marks  ┘ it
//!   ├─ forms/    track, dates, export: keys; Enter's value goes to the pane it is about
//!   ├─ confirm   Question: asks before spending analytics requests, answers the pane
//!   ├─ help      Help: the help and the log over what is open, and their scroll
//!   └─ notices, wake: the log of notices; what follows every message, when to wake
//! message/ (Msg, Effect, Generation, Viewport, Pane…): the ground floor all of them use
//! ```

mod composer;
mod confirm;
mod cursor;
mod focus;
mod forms;
mod help;
mod input;
mod jobs;
mod keys;
mod link;
mod mouse;
mod notices;
mod options;
mod outcome;
mod overlay;
mod reload;
mod searches;
mod signal;
pub mod table;
mod update;
mod viewport;
mod visitors;
mod wake;

#[cfg(test)]
pub(in crate::tui) mod tests;

use std::time::Instant;

pub use super::message::{Found, Hits, Pane, RowsArea, TextExtent, Viewport};
pub use composer::{Composer, TemplateFill};
pub use confirm::{Costly, Question};
pub use forms::{ExportForm, FilterForm, FilterProblems, FormField, TrackForm, preset_names};
pub use help::Help;
pub(crate) use jobs::poll;
pub use jobs::{
    DetailSearch, IMPACT_WINDOW_DAYS, IMPACT_WINDOWS, ImpactLoad, Impacts, JobDetail, JobList,
    JobRow, JobSort, humans_change, short_id, unsure_submission,
};
pub use keys::{MIN_HEIGHT, MIN_WIDTH};
pub use link::{CHECK_JOB_ID, CallClass, Connection, ConnectionCheck, Link, RatePauses};
pub use notices::{LOG_LENGTH, LoggedNotice, NoticeLog};
pub use options::{ConsoleOptions, JobColumn, NotifyMode, Prefs, UnknownColumn};
pub use overlay::{Notice, NoticeKind, Overlay, Said};
pub use searches::{
    Dates as SignalDates, ListError, QUESTION_PAGE, SEARCH_PAGE, SearchesPane, SignalList,
    SignalMarks, Which, unclicked,
};
use viewport::scrolled;
pub use visitors::{
    BarScale, CHART_MIN_HEIGHT, COMMENT_PAGES, CommentsLoad, DateRange, FEEDBACK_PAGES,
    FeedbackLoad, Marks, PAGE_SIZES, PageLoad, PageThumbs, PageView, PreviousLoad, Shown, Thumbs,
    TrendLoad, VisitorsColumn, VisitorsTable, WholeLoad, WholeRow, WholeTable,
};
pub use wake::countdown_text;

use super::keymap::Keymap;

use poll::{Cadences, Scheduler};

/// All the console's state.
#[derive(Debug)]
pub struct App {
    pub config: ConsoleOptions,
    pub focus: Pane,
    pub overlay: Option<Overlay>,
    pub jobs: JobList,
    pub composer: Composer,
    pub visitors: VisitorsTable,
    /// `4`: what readers searched for and asked the assistant without finding it.
    pub searches: SearchesPane,
    /// The link to the service, its rate pauses and the hourly budgets.
    pub link: Link,
    /// When something on screen next changes with the clock alone.
    display_due: Option<Instant>,
    pub notice: Option<Notice>,
    /// Every notice said, with its time, for `L`.
    pub log: NoticeLog,
    /// The pane the notice is about (what a key did there), if it is about one.
    notice_pane: Option<Pane>,
    pub loaded: bool,
    pub quit: bool,
    /// The terminal's size, once known: below the minimum only quit keys are read.
    pub size: Option<(u16, u16)>,
    /// Where the help or the log was opened, and its scroll.
    pub help: Help,
    /// What the last frame measured (see [`Viewport`]).
    viewport: Viewport,
    dirty: bool,
}

impl App {
    #[must_use]
    pub fn new(config: ConsoleOptions) -> Self {
        let poll = Scheduler::new(Cadences::with_interval(config.poll_interval), config.seed);
        let (notice, log) = NoticeLog::starting(&config.prefs.warnings);
        Self {
            focus: Pane::Jobs,
            overlay: None,
            jobs: JobList::new(poll),
            composer: Composer::new(),
            visitors: VisitorsTable::default(),
            searches: SearchesPane::default(),
            link: Link::default(),
            display_due: None,
            notice,
            log,
            notice_pane: None,
            loaded: false,
            quit: false,
            size: None,
            help: Help::default(),
            viewport: Viewport::default(),
            dirty: true,
            config,
        }
    }

    /// The keys in force, for the help and the hints.
    #[must_use]
    pub fn keymap(&self) -> &Keymap {
        &self.config.prefs.keymap
    }
}
