//! Colours and glyphs. With `NO_COLOR` every style drops its colour but keeps its
//! modifiers, and every status keeps its glyph and word, so nothing depends on colour.

use ratatui::style::{Color, Modifier, Style};

use crate::api::JobStatus;
use crate::tui::app::NoticeKind;

/// Styles for one session: coloured or not.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    #[must_use]
    pub fn dim(self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    #[must_use]
    pub fn bold(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// The row under the cursor and the focused tab.
    #[must_use]
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    #[must_use]
    pub fn accent(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    #[must_use]
    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    #[must_use]
    pub fn warning(self) -> Style {
        self.fg(Color::Yellow)
    }

    #[must_use]
    pub fn human(self) -> Style {
        self.fg(Color::Blue)
    }

    #[must_use]
    pub fn ai(self) -> Style {
        self.fg(Color::Magenta)
    }

    #[must_use]
    pub fn notice(self, kind: NoticeKind) -> Style {
        match kind {
            NoticeKind::Info => Style::new(),
            NoticeKind::Done => self.fg(Color::Green).add_modifier(Modifier::BOLD),
            NoticeKind::Warning => self.warning(),
            NoticeKind::Error => self.error(),
        }
    }

    /// Glyph, word and style of a status; `None` is a job not read yet.
    #[must_use]
    pub fn status(self, status: Option<&JobStatus>) -> (String, Style) {
        match status {
            None => ("· -".to_owned(), self.dim()),
            Some(JobStatus::Active) => ("● active".to_owned(), self.fg(Color::Yellow)),
            Some(JobStatus::Completed) => ("✓ completed".to_owned(), self.fg(Color::Green)),
            Some(JobStatus::Failed) => ("✗ failed".to_owned(), self.fg(Color::Red)),
            Some(JobStatus::Archived) => ("▪ archived".to_owned(), self.dim()),
            Some(other @ JobStatus::Unknown(_)) => (
                format!("? {}", crate::text::sanitize(&other.to_string())),
                self.fg(Color::Magenta),
            ),
        }
    }
}
