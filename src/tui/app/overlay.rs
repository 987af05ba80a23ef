//! What sits on top of the panes (an overlay that takes the keys: help, a job's detail,
//! a form, a question) and the one-line notice above the status bar.

use super::{ExportForm, FilterForm, JobDetail, Question, TrackForm};
use crate::tui::keymap::KeyContext;

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
    pub text: String,
}
