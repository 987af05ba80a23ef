//! `a`: the form that tracks an existing job by its id.

use ratatui_textarea::TextArea;

use super::{field, paste_into, value};
use crossterm::event::KeyEvent;

use super::type_into;
use crate::tui::keymap::Action;

/// `a`: the id of an existing job to follow.
#[derive(Debug)]
pub struct TrackForm {
    pub id: TextArea<'static>,
    pub error: Option<String>,
    /// The id was sent to be looked up: the form stays, with what was typed, until the
    /// answer says the job is tracked or what is wrong.
    pub looking_up: bool,
    /// Tracking the job a new-job prompt of unknown outcome may have made: the prompt
    /// becomes that job's.
    pub for_submission: Option<i64>,
}

impl TrackForm {
    /// A key of the form: `Some(id)` when Enter asks to track an id that checks out.
    pub(in crate::tui::app) fn on_key(
        &mut self,
        key: &KeyEvent,
        action: Option<Action>,
    ) -> Option<String> {
        match action {
            _ if self.looking_up => {}
            Some(Action::Apply) => match self.check() {
                Ok(id) => return Some(id),
                Err(problem) => self.error = Some(problem),
            },
            Some(Action::NextField | Action::PrevField) => {}
            _ => {
                type_into(&mut self.id, key);
                self.error = None;
            }
        }
        None
    }

    #[must_use]
    pub fn new() -> Self {
        Self {
            id: field("", true),
            error: None,
            looking_up: false,
            for_submission: None,
        }
    }

    pub fn paste(&mut self, text: &str) {
        paste_into(&mut self.id, text);
    }

    pub(super) fn check(&self) -> Result<String, String> {
        let id = value(&self.id);
        if id.is_empty() {
            Err("type the job id (from the dashboard, a script, or `docdeck jobs list`)".to_owned())
        } else if id
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '/')
        {
            Err("a job id has no spaces, slashes or control characters".to_owned())
        } else {
            Ok(id)
        }
    }
}

impl Default for TrackForm {
    fn default() -> Self {
        Self::new()
    }
}
