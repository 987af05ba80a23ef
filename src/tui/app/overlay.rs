//! What sits on top of the panes (an overlay that takes the keys: help, a job's detail,
//! a form, a question) and the one-line notice above the status bar.

use super::{CallClass, ExportForm, FilterForm, JobDetail, Question, TrackForm};
use crate::api::ApiError;
use crate::tui::keymap::KeyContext;
use std::sync::Arc;

use crate::tui::message::{AlertError, EditorError, ExportEnd, LocalError};

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
#[derive(Debug, Clone)]
pub enum Said {
    Text(String),
    /// The link to the service fails: what the call that found it answered (it leaves
    /// the notice line when the link recovers).
    LinkFailed(ApiError),
    /// A 429 paused this class of call; the others go on.
    RateLimited(CallClass),
    /// An alert command could not run, or failed.
    AlertFailed(AlertError),
    /// No browser opened the link: it was copied instead (`copied` says how).
    OpenFailed {
        reason: String,
        copied: String,
    },
    /// An export that stopped or failed.
    Export(ExportEnd),
    /// Something on this machine failed while carrying out an effect.
    Local(Arc<LocalError>),
    /// A draft could not be saved in the journal.
    DraftNotSaved(Arc<LocalError>),
    /// `$EDITOR` left the draft as it was.
    Editor(Arc<EditorError>),
}

/// Two notices are the same when they say the same (the local errors inside cannot be
/// compared otherwise).
impl PartialEq for Said {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Text(a), Self::Text(b)) => a == b,
            (Self::LinkFailed(a), Self::LinkFailed(b)) => a == b,
            (Self::RateLimited(a), Self::RateLimited(b)) => a == b,
            (Self::AlertFailed(a), Self::AlertFailed(b)) => a == b,
            (
                Self::OpenFailed { reason, copied },
                Self::OpenFailed {
                    reason: r,
                    copied: c,
                },
            ) => reason == r && copied == c,
            (Self::Export(a), Self::Export(b)) => a == b,
            (Self::Local(a), Self::Local(b)) | (Self::DraftNotSaved(a), Self::DraftNotSaved(b)) => {
                a.to_string() == b.to_string()
            }
            (Self::Editor(a), Self::Editor(b)) => a.to_string() == b.to_string(),
            _ => false,
        }
    }
}

impl Eq for Said {}

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
