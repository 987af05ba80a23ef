//! The small forms drawn over a pane: track a job by id, the visitors dates and page
//! size, and an export. Each checks its fields as they are typed, so the form shows
//! what is wrong before Enter.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Modifier, Style};
use ratatui_textarea::{CursorMove, TextArea};

use super::composer::is_line_break;
use super::outcome::Outcome;
use super::{App, CallClass, NoticeKind, Overlay};

mod export;
mod filter;
mod track;

use crate::tui::keymap::Action;
use crate::tui::message::{Clock, Effect};
use crate::tui::typed::typed;
pub use export::ExportForm;
pub use filter::{FilterForm, FilterProblems, FormField, preset_names};
pub use track::TrackForm;

/// A one-line text field, drawn as it is: its look follows the cursor when the cursor
/// moves ([`show_focus`]), not on every frame.
fn field(text: &str, focused: bool) -> TextArea<'static> {
    let mut area = TextArea::new(vec![text.to_owned()]);
    area.move_cursor(CursorMove::End);
    area.set_cursor_line_style(Style::new());
    show_focus(&mut area, focused);
    area
}

/// The field with the cursor is underlined and shows the cursor; the others show neither.
fn show_focus(area: &mut TextArea<'static>, focused: bool) {
    if focused {
        area.set_cursor_style(Style::new().add_modifier(Modifier::REVERSED));
        area.set_style(Style::new().add_modifier(Modifier::UNDERLINED));
    } else {
        area.set_cursor_style(Style::new());
        area.set_style(Style::new());
    }
}

fn value(area: &TextArea<'_>) -> String {
    area.lines().concat().trim().to_owned()
}

/// Types a key into a one-line field. A line break (Enter with any modifier, Ctrl+J,
/// Ctrl+M) never makes a second line: `on_form_key` reads it as Enter. Ctrl+U clears the
/// field, as in a shell (the text area took it as undo, which did nothing to a field
/// that opened filled, so the new-user trial's dates were typed after the old ones).
fn type_into(area: &mut TextArea<'static>, key: &KeyEvent) {
    if key.code == KeyCode::Char('u') && key.modifiers == KeyModifiers::CONTROL {
        area.move_cursor(CursorMove::Head);
        let _ = area.delete_line_by_end();
    } else if !is_line_break(key) {
        let _ = area.input(*key);
    }
}

/// Pastes into a one-line field: the text as every input takes it ([`typed`]: control
/// and bidirectional characters dropped, CR and CRLF as line breaks), breaks at the ends
/// dropped (a copied line brings its own), and the lines left joined with a space, so
/// nothing pasted is hidden and the field's check says what is wrong with it.
fn paste_into(area: &mut TextArea<'static>, text: &str) {
    let text = typed(text);
    let joined = text
        .trim_matches('\n')
        .split('\n')
        .collect::<Vec<_>>()
        .join(" ");
    let _ = area.insert_str(joined);
}

impl Overlay {
    /// A paste into the form open, if one is; whether it took it.
    pub(super) fn paste(&mut self, text: &str) -> bool {
        match self {
            Self::Track(form) => form.paste(text),
            Self::Filter(form) => form.paste(text),
            Self::Export(form) => form.paste(text),
            Self::Help(_) | Self::Detail(_) | Self::Confirm(_) | Self::Notices => return false,
        }
        true
    }
}

impl App {
    pub(super) fn on_form_key(
        &mut self,
        key: &KeyEvent,
        action: Option<Action>,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        if action == Some(Action::Close) {
            self.overlay = None;
            return;
        }
        // LF and CR typed as keys (a terminal's Enter, an unbracketed paste) mean Enter.
        let action = if action.is_none() && is_line_break(key) {
            Some(Action::Apply)
        } else {
            action
        };
        let Some(overlay) = self.overlay.take() else {
            return;
        };
        // Each form takes its keys; what Enter asks for with a form that checks out, the
        // pane it is about does.
        self.overlay = match overlay {
            Overlay::Track(mut form) => match form.on_key(key, action) {
                None => Some(Overlay::Track(form)),
                Some(id) => {
                    let paused = self.link.refusal(CallClass::Read, now);
                    let keymap = &self.config.prefs.keymap;
                    match (self.jobs).start_tracking(form, id, paused, keymap, effects) {
                        Ok(form) => Some(Overlay::Track(form)),
                        Err(said) => {
                            self.notify(NoticeKind::Info, said);
                            None
                        }
                    }
                }
            },
            Overlay::Filter(mut form) => match form.on_key(key, action) {
                None => Some(Overlay::Filter(form)),
                Some((range, limit)) => {
                    self.in_visitors(now, effects, |v, ctx, fx| {
                        v.set_filter(range, limit, ctx, fx);
                        Outcome::Done
                    });
                    None
                }
            },
            Overlay::Export(mut form) => match form.on_key(key, action) {
                None => Some(Overlay::Export(form)),
                Some(()) => {
                    self.visitors.start_export(form, effects);
                    None
                }
            },
            other => Some(other),
        };
    }
}
