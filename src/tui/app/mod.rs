//! The console's state and `update`: every input, reply and timer goes through one pure
//! function that changes the state and returns the effects to run. No I/O, no await, and
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
mod viewport;
mod visitors;
mod wake;

#[cfg(test)]
pub(in crate::tui) mod tests;

use std::sync::Arc;
use std::time::Instant;

pub use super::message::{Found, Hits, Pane, RowsArea, TextExtent, Viewport};
pub use composer::{Composer, TemplateFill};
pub use confirm::{Costly, Question};
pub use forms::{ExportForm, FilterForm, FilterProblems, FormField, TrackForm, preset_names};
pub use help::Help;
pub(crate) use jobs::poll;
pub use jobs::{
    DetailSearch, IMPACT_WINDOW_DAYS, ImpactLoad, Impacts, JobDetail, JobList, JobRow, JobSort,
    humans_change, short_id, unsure_submission,
};
pub use keys::{MIN_HEIGHT, MIN_WIDTH};
pub use link::{CHECK_JOB_ID, CallClass, Connection, ConnectionCheck, Link, RatePauses};
pub use notices::{LOG_LENGTH, LoggedNotice, NoticeLog};
pub use options::{ConsoleOptions, JobColumn, NotifyMode, Prefs, UnknownColumn};
pub use overlay::{Notice, NoticeKind, Overlay, Said};
pub use searches::{
    Dates as SignalDates, Held as SignalsHeld, ListError, QUESTION_PAGE, SEARCH_PAGE, SearchesPane,
    SignalList, SignalMarks, Which, unclicked,
};
use viewport::scrolled;
pub use visitors::{
    BarScale, CHART_MIN_HEIGHT, COMMENT_PAGES, CommentsLoad, DateRange, FEEDBACK_PAGES,
    FeedbackLoad, Held, HeldRow, Marks, PAGE_SIZES, PageLoad, PageThumbs, PageView, PreviousLoad,
    Shown, Thumbs, TrendLoad, VisitorsColumn, VisitorsTable, WholeLoad,
};
use wake::RowsChange;
pub use wake::countdown_text;

use super::keymap::Keymap;
use super::message::{Clock, Effect, Io, Msg, Tty};
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

    /// Takes in one message; returns what to do about it.
    pub fn update(&mut self, msg: Msg, now: Clock) -> Vec<Effect> {
        let mut effects = Vec::new();
        let rows = RowsChange::of(&msg);
        let was_failing = self.link.connection.is_failing();
        match msg {
            Msg::Input(event) => self.on_event(event, now, &mut effects),
            Msg::Tick => {
                // Relative times on screen move with the clock: redraw when one changed.
                self.dirty |= self.jobs.clock_ticking(now.mono)
                    || self.display_due.is_some_and(|due| due <= now.mono);
                if self.focus == Pane::Searches {
                    self.in_searches(now, &mut effects, |s, ctx, fx| {
                        outcome::changed(s.pause_over(ctx, fx))
                    });
                }
            }
            Msg::ConnectionChecked(result) => {
                let recorded = self.link.checked(result, now);
                self.heard(recorded, CallClass::Read, None, now);
            }
            Msg::AlertFailed(err) => self.notify(NoticeKind::Warning, Said::AlertFailed(err)),
            Msg::OpenFailed { url, reason } => {
                let copied = self.config.clipboard.notice("the link", &url);
                effects.push(Effect::Tty(Tty::Copy(url)));
                self.notify(NoticeKind::Warning, Said::OpenFailed { reason, copied });
            }
            Msg::Loaded(startup) => self.on_loaded(*startup, now),
            Msg::TrackedList(jobs) => {
                // Jobs another docdeck made were counted in the journal's hourly budgets:
                // the status bar reads them again.
                if self.jobs.add_tracked(jobs, now) {
                    self.dirty = true;
                    effects.push(Effect::Io(Io::RefreshBudget));
                }
            }
            Msg::JobFetched { id, result } => {
                self.record_call(result.as_ref().map(|_| ()), CallClass::Read, Some(&id), now);
                let detail_open = matches!(&self.overlay, Some(Overlay::Detail(d)) if d.id == id);
                let outcome = (self.jobs).on_fetched(
                    &id,
                    result,
                    detail_open,
                    &self.config,
                    now,
                    &mut effects,
                );
                self.route(outcome, now, &mut effects);
            }
            Msg::Tracked {
                id,
                result,
                first_prompt,
            } => {
                if !matches!(result, Err(crate::api::ApiError::InvalidInput(_))) {
                    self.record_call(result.as_ref().map(|_| ()), CallClass::Read, None, now);
                }
                let form = match &mut self.overlay {
                    Some(Overlay::Track(form)) if form.looking_up => Some(&mut **form),
                    _ => None,
                };
                let outcome = self.jobs.on_tracked(&id, result, first_prompt, form, now);
                self.route(outcome, now, &mut effects);
            }
            Msg::Submitted { draft, outcome } => {
                self.on_submitted(draft, outcome, now, &mut effects);
            }
            Msg::Unsure(list) => {
                self.jobs.set_unsure(list);
                self.dirty = true;
            }
            Msg::Detail {
                id,
                conversation,
                timeline,
            } => {
                if let Some(Overlay::Detail(detail)) = &mut self.overlay
                    && detail.id == id
                {
                    detail.conversation = Some(conversation);
                    detail.timeline = timeline;
                    self.viewport.detail = None;
                }
                self.dirty = true;
            }
            Msg::ViewsSpan(span) => {
                self.dirty |= self.visitors.span != span;
                self.visitors.span = span;
            }
            Msg::Visitors { generation, result } => {
                self.record_call(result.as_ref().map(|_| ()), CallClass::Analytics, None, now);
                self.in_visitors(now, &mut effects, |v, ctx, fx| {
                    v.on_page(generation, result, ctx, fx)
                });
            }
            Msg::Insight(msg) => {
                if let Some(call) = msg.analytics_call() {
                    self.record_call(call, CallClass::Analytics, None, now);
                }
                self.in_visitors(now, &mut effects, |v, ctx, _| v.on_insight(msg, ctx));
            }
            Msg::Signals { generation, result } => {
                self.record_call(result.as_ref().map(|_| ()), CallClass::Analytics, None, now);
                self.in_searches(now, &mut effects, |s, _, _| s.on_reply(generation, result));
            }
            Msg::Signal(msg) => self.on_signal(msg, now, &mut effects),
            Msg::ExportProgress { rows, pages } => {
                self.visitors.export_progress(rows, pages);
                self.dirty = true;
            }
            Msg::ExportDone(end) => {
                self.in_visitors(now, &mut effects, |v, ctx, _| v.on_export_done(end, ctx));
            }
            Msg::Budget(budget) => {
                self.dirty |= self.link.budget != budget;
                self.link.budget = budget;
            }
            Msg::EditorDone { draft, result } => {
                let outcome = self.composer.on_editor_done(draft, result, &mut effects);
                self.route(outcome, now, &mut effects);
            }
            Msg::LocalFailure(reason) => {
                self.notify(NoticeKind::Error, Said::Local(Arc::new(reason)));
            }
            Msg::DraftNotSaved(reason) => {
                self.notify(NoticeKind::Error, Said::DraftNotSaved(Arc::new(reason)));
            }
            Msg::Terminate => self.quit = true,
            Msg::Continued => self.dirty = true,
            Msg::Drawn(viewport) => {
                // Nothing on screen changes: the next frame uses these numbers.
                self.viewport = viewport;
                if let (Some(Overlay::Detail(detail)), Some(found)) =
                    (&mut self.overlay, viewport.found)
                {
                    detail.adopt_found(found);
                }
            }
        }
        self.after_message(rows, was_failing, now, &mut effects);
        effects
    }

    /// The keys in force, for the help and the hints.
    #[must_use]
    pub fn keymap(&self) -> &Keymap {
        &self.config.prefs.keymap
    }
}
