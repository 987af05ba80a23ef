//! What the visitors pane reads of the rest of the console for one key or message: the
//! clock, what the link and the hour's budget allow now, the settings and the screen.
//! The app builds it (`App::in_visitors`); the pane never reaches into the app.

use chrono::NaiveDate;

use crate::tui::message::Clock;

/// The shared state the pane reads, as of one key or message.
#[derive(Debug, Clone)]
pub(in crate::tui::app) struct Ctx {
    pub now: Clock,
    /// Why analytics cannot be called now (a 429 pauses them), if so.
    pub paused: Option<String>,
    /// Why the hour's analytics budget cannot afford a read now, if so.
    pub over_budget: Option<String>,
    /// Analytics requests left this hour, as the journal counts them.
    pub analytics_left: u32,
    /// The most rows the whole range holds.
    pub whole_max_rows: usize,
    /// The terminal's size, once known.
    pub size: Option<(u16, u16)>,
    /// The key that reads the page again, as the help names it.
    pub refresh_key: String,
    /// Whether the pane has the focus.
    pub focused: bool,
    /// Whether an overlay is open over the panes.
    pub overlay_open: bool,
    /// Rows of the table on screen, as the last frame measured.
    pub rows_on_screen: usize,
}

impl Ctx {
    pub fn today(&self) -> NaiveDate {
        self.now.wall.date_naive()
    }
}
