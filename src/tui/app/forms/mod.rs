//! The small forms drawn over a pane: track a job by id, the visitors dates and page
//! size, and an export. Each checks its fields as they are typed, so the form shows
//! what is wrong before Enter.

use crossterm::event::KeyEvent;
use ratatui::style::{Modifier, Style};
use ratatui_textarea::{CursorMove, TextArea};

use super::composer::is_line_break;
use super::outcome::Outcome;
use super::{App, CallClass, NoticeKind, Overlay};

mod export;
mod filter;
mod track;

use crate::text::normalize_newlines;
use crate::tui::keymap::Action;
use crate::tui::message::{Clock, Effect};
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
/// Ctrl+M) never makes a second line: `on_form_key` reads it as Enter.
fn type_into(area: &mut TextArea<'static>, key: &KeyEvent) {
    if !is_line_break(key) {
        let _ = area.input(*key);
    }
}

/// Pastes into a one-line field: CR and CRLF count as line breaks, breaks at the ends are
/// dropped (a copied line brings its own), and the lines left are joined with a space, so
/// nothing pasted is hidden and the field's check says what is wrong with it.
fn paste_into(area: &mut TextArea<'static>, text: &str) {
    let text = normalize_newlines(text);
    let joined = text
        .trim_matches('\n')
        .split('\n')
        .collect::<Vec<_>>()
        .join(" ");
    let _ = area.insert_str(joined);
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
        self.overlay = match overlay {
            Overlay::Track(form) => self.track_form(form, key, action, now, effects),
            Overlay::Filter(form) => self.filter_form(form, key, action, now, effects),
            Overlay::Export(form) => self.export_form(form, key, action, effects),
            other => Some(other),
        };
    }

    fn track_form(
        &mut self,
        mut form: Box<TrackForm>,
        key: &KeyEvent,
        action: Option<Action>,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) -> Option<Overlay> {
        match action {
            _ if form.looking_up => {}
            Some(Action::Apply) => match form.check() {
                Ok(id) => {
                    let paused = self.link.refusal(CallClass::Read, now);
                    let keymap = &self.config.prefs.keymap;
                    return match (self.jobs).start_tracking(form, id, paused, keymap, effects) {
                        Ok(form) => Some(Overlay::Track(form)),
                        Err(said) => {
                            self.notify(NoticeKind::Info, said);
                            None
                        }
                    };
                }
                Err(problem) => form.error = Some(problem),
            },
            Some(Action::NextField | Action::PrevField) => {}
            _ => {
                type_into(&mut form.id, key);
                form.error = None;
            }
        }
        Some(Overlay::Track(form))
    }

    fn filter_form(
        &mut self,
        mut form: Box<FilterForm>,
        key: &KeyEvent,
        action: Option<Action>,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) -> Option<Overlay> {
        match action {
            Some(Action::Apply) => {
                if let Ok((range, limit)) = form.check() {
                    self.in_visitors(now, effects, |v, ctx, fx| {
                        v.set_filter(range, limit, ctx, fx);
                        Outcome::Done
                    });
                    return None;
                }
                form.refused = true;
            }
            Some(Action::NextField) => form.next_field(true),
            Some(Action::PrevField) => form.next_field(false),
            Some(Action::ChoiceLeft | Action::ChoiceRight) if form.field == FormField::Range => {
                form.choose(if action == Some(Action::ChoiceLeft) {
                    -1
                } else {
                    1
                });
            }
            _ => {
                if let Some(area) = form.focused_text() {
                    type_into(area, key);
                    form.typed();
                }
            }
        }
        Some(Overlay::Filter(form))
    }

    fn export_form(
        &mut self,
        mut form: Box<ExportForm>,
        key: &KeyEvent,
        action: Option<Action>,
        effects: &mut Vec<Effect>,
    ) -> Option<Overlay> {
        match action {
            Some(Action::Apply) => {
                if value(&form.path).is_empty() {
                    form.error = Some("type the file to write".to_owned());
                    form.set_on_format(false);
                } else {
                    self.visitors.start_export(form, effects);
                    return None;
                }
            }
            Some(Action::NextField | Action::PrevField) => {
                let on = !form.on_format;
                form.set_on_format(on);
            }
            Some(Action::ChoiceLeft | Action::ChoiceRight) if form.on_format => {
                form.toggle_format()
            }
            _ if form.on_format => {}
            _ => {
                type_into(&mut form.path, key);
                form.error = None;
                if form
                    .replace
                    .as_ref()
                    .is_some_and(|(t, _)| *t != value(&form.path))
                {
                    form.replace = None;
                }
            }
        }
        Some(Overlay::Export(form))
    }
}
