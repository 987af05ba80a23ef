//! The words of the notices whose text depends on what failed (the link, a rate limit, an
//! alert, a browser, an export, the journal, `$EDITOR`): the app keeps them typed ([`Said`]); the view writes them, on the notice
//! line, in the log and under the visitors table.

use std::fmt;

use crate::api::ApiError;
use crate::tui::app::Said;
use crate::tui::message::ExportEnd;

impl fmt::Display for Said {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Text(text) => f.write_str(text),
            Self::LinkFailed(err) => write!(f, "{err}"),
            // No wait in words here: it would go stale on screen; the status bar counts down.
            Self::RateLimited(class) => write!(
                f,
                "{} paused by the service's rate limit (the status bar counts down); other \
                 calls go on",
                class.label()
            ),
            Self::AlertFailed(err) => write!(f, "{err}"),
            Self::OpenFailed { reason, copied } => {
                write!(f, "could not open a browser ({reason}): {copied}")
            }
            Self::Export(end) => f.write_str(&export_end_text(end)),
            Self::Local(reason) => write!(f, "{reason}"),
            Self::DraftNotSaved(reason) => write!(f, "the draft could not be saved: {reason}"),
            Self::Editor(reason) => write!(f, "$EDITOR: {reason}; the text is unchanged"),
        }
    }
}

/// How an export ended, in words: the same under the table and in the notice line.
#[must_use]
pub fn export_end_text(end: &ExportEnd) -> String {
    match end {
        ExportEnd::Written { path, rows } => {
            format!("exported {rows} rows to {}", path.display())
        }
        ExportEnd::Exists(path) => format!("{} exists: nothing exported", path.display()),
        ExportEnd::Stopped {
            offset,
            reason,
            rows,
            kept,
        } => {
            let kept = match kept {
                Some(path) => format!("kept {rows} rows in {}", path.display()),
                None => format!("the {rows} rows fetched could not be kept"),
            };
            format!("{}; {kept}", stopped_text(*offset, reason))
        }
        ExportEnd::Failed(reason) => format!("export failed: {reason}; nothing was written"),
    }
}

/// "export stopped at offset N: why". Broken paging already says where it stopped.
#[must_use]
pub fn stopped_text(offset: u64, reason: &ApiError) -> String {
    if matches!(reason, ApiError::BrokenPaging { .. }) {
        format!("export stopped: {reason}")
    } else {
        format!("export stopped at offset {offset}: {reason}")
    }
}
