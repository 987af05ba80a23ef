//! `e`: where and how to write the whole range.

use std::path::PathBuf;

use ratatui_textarea::TextArea;

use super::{field, paste_into, show_focus, value};
use crossterm::event::KeyEvent;

use super::type_into;
use crate::api::{DateParam, VisitorsQuery};
use crate::export::DataFormat;
use crate::tui::keymap::Action;

/// `e`: where and how to write the whole range.
#[derive(Debug)]
pub struct ExportForm {
    pub format: DataFormat,
    pub path: TextArea<'static>,
    pub(super) on_format: bool,
    pub error: Option<String>,
    /// The file exists: the path as typed and where it resolved. Enter on the same text
    /// replaces it; any edit asks again.
    pub replace: Option<(String, PathBuf)>,
    /// The rows of the whole range read, which are written as shown, with nothing
    /// fetched; `None` when the range is fetched page by page.
    pub whole_rows: Option<usize>,
    query: VisitorsQuery,
}

impl ExportForm {
    /// A key of the form: `Some` when Enter starts the export (a file is named).
    pub(in crate::tui::app) fn on_key(
        &mut self,
        key: &KeyEvent,
        action: Option<Action>,
    ) -> Option<()> {
        match action {
            Some(Action::Apply) => {
                if value(&self.path).is_empty() {
                    self.error = Some("type the file to write".to_owned());
                    self.set_on_format(false);
                } else {
                    return Some(());
                }
            }
            Some(Action::NextField | Action::PrevField) => {
                let on = !self.on_format;
                self.set_on_format(on);
            }
            Some(Action::ChoiceLeft | Action::ChoiceRight) if self.on_format => {
                self.toggle_format();
            }
            _ if self.on_format => {}
            _ => {
                type_into(&mut self.path, key);
                self.error = None;
                if self
                    .replace
                    .as_ref()
                    .is_some_and(|(t, _)| *t != value(&self.path))
                {
                    self.replace = None;
                }
            }
        }
        None
    }

    /// Proposes `visitors-FROM-TO.csv` in the current folder.
    #[must_use]
    pub fn new(query: &VisitorsQuery) -> Self {
        let query = VisitorsQuery {
            limit: None,
            offset: None,
            ..query.clone()
        };
        let day = |d: Option<DateParam>| {
            d.map_or_else(
                || "all".to_owned(),
                |d| d.instant().format("%Y-%m-%d").to_string(),
            )
        };
        let name = format!(
            "visitors-{}-{}.csv",
            day(query.date_from),
            day(query.date_to)
        );
        Self {
            format: DataFormat::Csv,
            path: field(&name, false),
            on_format: true,
            error: None,
            replace: None,
            whole_rows: None,
            query,
        }
    }

    /// Whether the cursor is on the format (else on the file name).
    #[must_use]
    pub fn on_format(&self) -> bool {
        self.on_format
    }

    pub(super) fn set_on_format(&mut self, on: bool) {
        self.on_format = on;
        show_focus(&mut self.path, !on);
    }

    /// The range to export, whole (no page).
    #[must_use]
    pub fn query(&self) -> &VisitorsQuery {
        &self.query
    }

    /// The file as typed, and whether replacing it was confirmed.
    #[must_use]
    pub fn target(&self) -> (PathBuf, bool) {
        let typed = value(&self.path);
        let confirmed = self.replace.as_ref().is_some_and(|(t, _)| *t == typed);
        (PathBuf::from(typed), confirmed)
    }

    /// The export found the file there: ask on the file field.
    pub fn ask_overwrite(&mut self, resolved: PathBuf) {
        self.replace = Some((value(&self.path), resolved));
        self.set_on_format(false);
        self.error = None;
    }

    pub fn paste(&mut self, text: &str) {
        if !self.on_format {
            paste_into(&mut self.path, text);
            self.replace = None;
        }
    }

    pub(super) fn toggle_format(&mut self) {
        let from = self.format.extension();
        self.format = match self.format {
            DataFormat::Json => DataFormat::Csv,
            DataFormat::Csv => DataFormat::Json,
        };
        let to = self.format.extension();
        let path = value(&self.path);
        if let Some(stem) = path.strip_suffix(from) {
            self.path = field(&format!("{stem}{to}"), !self.on_format);
        }
    }
}
