//! What sits on top of the panes (an overlay that takes the keys: help, a job's detail,
//! a form, a question) and the one-line notice above the status bar.

use super::{ExportForm, FilterForm, JobDetail, Question, TrackForm};
use crate::tui::keymap::KeyContext;
use crate::tui::message::{AlertError, ExportEnd};

/// A window on top of the panes that takes the keys while open.
#[derive(Debug)]
pub enum Overlay {
    Help(KeyContext),
    Detail(JobDetail),
    Track(Box<TrackForm>),
    Filter(Box<FilterForm>),
    Export(Box<ExportForm>),
    /// Work that costs analytics requests waits for y or n.
    Confirm(Question),
    /// `L`: the log of recent notices, newest first, with their times.
    Notices,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    Info,
    Done,
    Warning,
    Error,
}

/// The one-line message above the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub kind: NoticeKind,
    pub said: Said,
}

impl Notice {
    /// What the notice says, in the view's words.
    #[must_use]
    pub fn text(&self) -> String {
        self.said.to_string()
    }
}

/// What a notice says: a sentence written where it is said, or, where the words depend on
/// what failed, what failed (the view words it: `view/said.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    Text(String),
    /// An alert command could not run, or failed.
    AlertFailed(AlertError),
    /// No browser opened the link: it was copied instead (`copied` says how).
    OpenFailed {
        reason: String,
        copied: String,
    },
    /// An export that stopped or failed.
    Export(ExportEnd),
}

impl From<String> for Said {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<&str> for Said {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}
