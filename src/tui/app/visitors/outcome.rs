//! What a key of the visitors pane asks of the app beyond what it changed in the pane
//! itself (a fetch, a notice, a form, a job from the marks, the chart, the comparison,
//! the whole range), and the routing that carries it out.

use super::whole::WholeLoad;
use crate::tui::app::{App, DateRange, NoticeKind, Overlay};
use crate::tui::keymap::Action;
use crate::tui::message::{Clock, Effect, Io};

/// What a key in the visitors pane asks of the app, beyond what it changed in the pane.
#[derive(Debug)]
pub(super) enum PaneOutcome {
    /// Handled in the pane (or not a key of the pane).
    Done,
    /// The page to show changed: fetch it.
    Fetch,
    /// Nothing to do, and the notice line says why.
    Notice(&'static str),
    /// A new range or page size, saved and fetched.
    SetFilter(DateRange, u32),
    /// A form to open over the pane.
    Open(Overlay),
    /// The running export was cancelled.
    ExportCancelled,
    /// A page was marked or unmarked.
    Marked { path: String, marked: bool },
    /// `n`: a new job from the marked pages.
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
        if self.on_held_action(action) {
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
        match self.visitors.on_action(action, now.wall.date_naive()) {
            PaneOutcome::Done => {}
            PaneOutcome::Fetch => self.fetch_visitors(now, effects),
            PaneOutcome::Notice(text) => self.notify_here(NoticeKind::Info, text),
            PaneOutcome::SetFilter(range, limit) => self.set_filter(range, limit, now, effects),
            PaneOutcome::Open(overlay) => self.overlay = Some(overlay),
            PaneOutcome::ExportCancelled => {
                effects.push(Effect::Io(Io::CancelExport));
                self.notify(NoticeKind::Info, "export cancelled; nothing was written");
            }
            PaneOutcome::Marked { path, marked } => self.said_marked(&path, marked),
            PaneOutcome::NewJob => self.new_job_from_marks(now, effects),
            PaneOutcome::Chart => self.toggle_chart(now, effects),
            PaneOutcome::Compare => self.toggle_compare(now, effects),
            PaneOutcome::Whole => self.toggle_whole(now, effects),
            PaneOutcome::Stop => {
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
