//! What a pane asks of the app beyond what it changed in itself, and the routing that
//! carries it out. A pane (the jobs list, the visitors table) owns its state and keys;
//! what is shared (the focus, the overlays, the notice line, the other panes, requests
//! under the rate pauses) it hands back here as an [`Outcome`], and `App` routes it.

use crate::tui::app::{App, DateRange, NoticeKind, Overlay, Pane, WholeLoad};
use crate::tui::keymap::Action;
use crate::tui::message::{Clock, DraftKey, Effect, Io};

/// What a key in a pane asks of the app, beyond what it changed in the pane.
#[derive(Debug)]
pub(in crate::tui::app) enum Outcome {
    /// Handled in the pane (or not a key of the pane).
    Done,
    /// Something about what the key did here: it leaves the notice line with the pane.
    Said(NoticeKind, String),
    /// News that stays on the notice line when the pane is left.
    News(NoticeKind, String),
    /// The page to show changed: fetch it.
    Fetch,
    /// Nothing to do, and the notice line says why.
    Notice(&'static str),
    /// A new range or page size, saved and fetched.
    SetFilter(DateRange, u32),
    /// An overlay to open over the pane.
    Open(Overlay),
    /// Close the overlay the key was read in.
    Close,
    /// From the detail: a follow-up to this job, which the list selects.
    FollowUp(String),
    /// From the detail: copy what the list's selected job offers (`y`).
    CopySelected,
    /// From the detail: open the selected job's link (`o`).
    OpenSelected,
    /// Write in the composer, to a new job or as a follow-up to one.
    Compose(DraftKey),
    /// The running export was cancelled.
    ExportCancelled,
    /// A page was marked or unmarked.
    Marked { path: String, marked: bool },
    /// `n` in the visitors pane: a new job from the marked pages.
    NewJob,
    /// `c`: show or hide the chart.
    Chart,
    /// `v`: compare with the period before, or stop.
    Compare,
    /// `w`: hold the whole range, or go back to pages.
    Whole,
    /// Esc: stop what is being read in the background.
    Stop,
}

impl App {
    /// Routes a key of the visitors pane: the pane changes itself, the app does what is
    /// shared (requests under the rate pauses, notices, overlays, settings).
    pub(in crate::tui::app) fn on_visitors_action(
        &mut self,
        action: Action,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        if let Some(outcome) = self
            .visitors
            .on_held_action(action, self.viewport.visitors_rows)
        {
            self.route(outcome, now, effects);
            return;
        }
        if matches!(
            action,
            Action::SortNext | Action::SortReverse | Action::Search
        ) {
            let why = match &self.visitors.whole {
                WholeLoad::TooMany { max_rows } => format!(
                    "sorting and filtering need the whole range, and this one has more than \
                     {max_rows} rows: the service's pages stay"
                ),
                _ => "sorting and filtering need the whole range: w holds it".to_owned(),
            };
            self.notify(NoticeKind::Info, why);
            return;
        }
        let outcome = self.visitors.on_action(action, now.wall.date_naive());
        self.route(outcome, now, effects);
    }

    /// Carries out what a pane handed back.
    pub(in crate::tui::app) fn route(
        &mut self,
        outcome: Outcome,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        match outcome {
            Outcome::Done => {}
            Outcome::Said(kind, text) => self.notify_here(kind, text),
            Outcome::News(kind, text) => self.notify(kind, text),
            Outcome::Fetch => self.fetch_visitors(now, effects),
            Outcome::Notice(text) => self.notify_here(NoticeKind::Info, text),
            Outcome::SetFilter(range, limit) => self.set_filter(range, limit, now, effects),
            Outcome::Open(overlay) => {
                if matches!(overlay, Overlay::Detail(_)) {
                    // A new text: where it ends is known after its first frame.
                    self.viewport.detail = None;
                }
                self.overlay = Some(overlay);
            }
            Outcome::Close => self.overlay = None,
            Outcome::FollowUp(id) => {
                self.overlay = None;
                self.jobs.select(&id);
                let outcome = self.jobs.follow_up();
                self.route(outcome, now, effects);
            }
            Outcome::CopySelected => {
                let outcome = self.jobs.copy_selected(&self.config, effects);
                self.route(outcome, now, effects);
            }
            Outcome::OpenSelected => {
                let outcome = self.jobs.open_selected(&self.config, effects);
                self.route(outcome, now, effects);
            }
            Outcome::Compose(draft) => {
                self.composer.retarget(draft);
                self.focus(Pane::Composer, now, effects);
            }
            Outcome::ExportCancelled => {
                effects.push(Effect::Io(Io::CancelExport));
                self.notify(NoticeKind::Info, "export cancelled; nothing was written");
            }
            Outcome::Marked { path, marked } => {
                let text = self.visitors.marks.said(&path, marked);
                self.notify_here(NoticeKind::Info, text);
            }
            Outcome::NewJob => self.new_job_from_marks(now, effects),
            Outcome::Chart => self.toggle_chart(now, effects),
            Outcome::Compare => self.toggle_compare(now, effects),
            Outcome::Whole => self.toggle_whole(now, effects),
            Outcome::Stop => {
                let whole = matches!(self.visitors.whole, WholeLoad::Fetching { .. });
                if whole {
                    self.stop_whole(effects);
                    self.visitors.whole = WholeLoad::Stopped("stopped: w starts again".into());
                }
                if !self.cancel_trend(effects) && !whole {
                    self.notify(NoticeKind::Info, "nothing is being read");
                }
            }
        }
    }
}
