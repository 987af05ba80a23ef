//! The notices said on the notice line, kept with their times in a log one key away
//! (`L`, as lazygit's command log), so that two said at once, or one said while you
//! looked elsewhere, is never lost; and the notice line cleared when what it says is
//! about a pane that was left (what a key did there), while news (a job ended, the link
//! failed, a rate limit) stays.

use std::collections::VecDeque;

use chrono::{DateTime, Utc};

use super::{App, Notice, NoticeKind, Pane, Said};

/// Notices kept in the log; older ones are dropped.
pub const LOG_LENGTH: usize = 200;

/// One notice as the log keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedNotice {
    pub at: DateTime<Utc>,
    pub notice: Notice,
}

/// The log of recent notices, newest first.
#[derive(Debug, Default)]
pub struct NoticeLog {
    entries: VecDeque<LoggedNotice>,
    /// Said since the last message was taken in: `update` dates them with its clock.
    pending: Vec<Notice>,
}

impl NoticeLog {
    /// The notice line and the log as the console opens: what was printed before the
    /// screen opened is seen only after quitting, so it is said again, from the first
    /// frame.
    pub(super) fn starting(warnings: &[String]) -> (Option<Notice>, Self) {
        let notice = (!warnings.is_empty()).then(|| Notice {
            kind: NoticeKind::Warning,
            said: Said::Text(warnings.join(" · ")),
        });
        let mut log = Self::default();
        if let Some(notice) = &notice {
            log.note(notice.clone());
        }
        (notice, log)
    }

    /// Notes a notice to be dated when the message that said it is done.
    pub(super) fn note(&mut self, notice: Notice) {
        self.pending.push(notice);
    }

    /// Dates the notices said while taking in a message. Returns whether any was.
    pub(super) fn settle(&mut self, at: DateTime<Utc>) -> bool {
        let any = !self.pending.is_empty();
        for notice in self.pending.drain(..) {
            self.entries.push_front(LoggedNotice { at, notice });
        }
        self.entries.truncate(LOG_LENGTH);
        any
    }

    /// Newest first.
    pub fn entries(&self) -> impl Iterator<Item = &LoggedNotice> {
        self.entries.iter()
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl App {
    /// Says `text` on the notice line, and keeps it in the log.
    pub(crate) fn notify(&mut self, kind: NoticeKind, said: impl Into<Said>) {
        let notice = Notice {
            kind,
            said: said.into(),
        };
        self.log.note(notice.clone());
        self.notice = Some(notice);
        self.notice_pane = None;
        self.dirty = true;
    }

    /// As [`App::notify`], for what a key did in the focused pane: it stops being true,
    /// and leaves the notice line, when the pane is left.
    pub(crate) fn notify_here(&mut self, kind: NoticeKind, said: impl Into<Said>) {
        self.notify(kind, said);
        self.notice_pane = Some(self.focus);
    }
}

/// Clears the notice line when what it says is about a pane (what a key did there) and
/// `leaves` says that notice goes now; it stays in the log. Whether it was cleared.
pub(super) fn leave_line(
    notice: &mut Option<Notice>,
    about: &mut Option<Pane>,
    leaves: impl FnOnce(Pane) -> bool,
) -> bool {
    if about.is_some_and(leaves) {
        *notice = None;
        *about = None;
        true
    } else {
        false
    }
}
