//! The composer: a multi-line prompt for a new job or a follow-up to one job. Every edit
//! is saved to the journal as a draft (one per target), so nothing typed is lost.

mod answer;
mod missing;

use std::collections::HashMap;

pub(in crate::tui::app) use answer::Accepted;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{CursorMove, TextArea, WrapMode};

use super::outcome::Outcome;
use super::{NoticeKind, Overlay, Pane, Said};
use crate::config::Template;
use crate::insight::templates::Marked;
use crate::text::normalize_newlines;
use crate::tui::keymap::{Action, KeyContext, Keymap};
use crate::tui::message::{DraftKey, EditorError, Effect, Io, Tty};
use crate::tui::typed::typed;

/// The prompt being written, the drafts of other targets, and a send in progress.
#[derive(Debug)]
pub struct Composer {
    pub textarea: TextArea<'static>,
    pub target: DraftKey,
    drafts: HashMap<DraftKey, String>,
    /// The draft being sent and its text: the text cannot change until the answer comes.
    pub sending: Option<(DraftKey, String)>,
    pub error: Option<String>,
    /// The error says the prompt is empty: it stops being true, and goes, once text is
    /// typed.
    error_until_typed: bool,
    /// The error says the service could not be reached (nothing was sent): once it
    /// answers again, that stops being true, and the error says so instead.
    pub(in crate::tui::app) error_until_online: bool,
    /// The new-job prompt a template filled in from marked pages, while there is one.
    pub fill: Option<TemplateFill>,
    /// The pane the composer was opened from, where Esc goes back to.
    pub came_from: Pane,
}

/// What a template put in the new-job draft: Ctrl+T swaps it for the next template only
/// while the text is still exactly that, so no edit of the user's is ever thrown away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateFill {
    /// Which template, of the console's list.
    pub index: usize,
    pub name: String,
    /// The draft's text before the template's (kept above it).
    before: String,
    /// The whole text as the template left it.
    filled: String,
    /// The pages the prompt names.
    pub marks: Marked,
    /// The pane whose marks filled it: the visitors (pages), or the searches (the
    /// missing-page prompt, which has no other template).
    pub from: Pane,
}

impl Composer {
    #[must_use]
    pub fn new() -> Self {
        let mut composer = Self {
            textarea: TextArea::default(),
            target: DraftKey::NewJob,
            drafts: HashMap::new(),
            sending: None,
            error: None,
            error_until_typed: false,
            error_until_online: false,
            fill: None,
            came_from: Pane::Jobs,
        };
        composer.set_text("");
        composer
    }

    pub fn load_drafts(&mut self, drafts: &[(String, String)]) {
        for (key, text) in drafts {
            if let Some(key) = DraftKey::from_journal(key) {
                self.drafts.insert(key, text.clone());
            }
        }
        let current = self.drafts.get(&self.target).cloned().unwrap_or_default();
        self.set_text(&current);
    }

    /// The whole text, lines joined with newlines.
    #[must_use]
    pub fn text(&self) -> String {
        self.textarea.lines().join("\n")
    }

    /// Keys saved drafts for targets other than the one shown, for the title.
    #[must_use]
    pub fn other_drafts(&self) -> usize {
        self.drafts
            .iter()
            .filter(|(key, text)| **key != self.target && !text.trim().is_empty())
            .count()
    }

    /// Whether there is anything but blank space to send.
    #[must_use]
    pub fn has_text(&self) -> bool {
        self.textarea
            .lines()
            .iter()
            .any(|line| !line.trim().is_empty())
    }

    /// Replaces the text (cursor at the end) and sets how the area looks for the target,
    /// once here rather than on every frame. Long lines wrap at words on screen (the text
    /// keeps its own line breaks).
    fn set_text(&mut self, text: &str) {
        let lines: Vec<String> = normalize_newlines(text)
            .split('\n')
            .map(str::to_owned)
            .collect();
        self.textarea = TextArea::new(lines);
        self.textarea.set_wrap_mode(WrapMode::WordOrGlyph);
        self.textarea.move_cursor(CursorMove::Bottom);
        self.textarea.move_cursor(CursorMove::End);
        self.textarea
            .set_cursor_line_style(ratatui::style::Style::new());
        // The terminal's own cursor marks the place (the view puts it there); a drawn
        // one beside it would be a second cursor.
        self.textarea.set_cursor_style(ratatui::style::Style::new());
        self.textarea.set_placeholder_text(match self.target {
            DraftKey::NewJob => "What should the agent change in your docs?",
            DraftKey::FollowUp(_) => "What should the agent do next on this job?",
        });
    }

    /// Switches to another target; the text of the current one stays in its draft.
    pub fn retarget(&mut self, target: DraftKey) {
        if self.target == target {
            return;
        }
        self.target = target;
        let text = self.drafts.get(&self.target).cloned().unwrap_or_default();
        self.set_text(&text);
        self.error = None;
    }

    /// The service answers again: an error that said it could not be reached is replaced
    /// by what is true now (`send` is the send key). Whether the composer changed.
    pub fn service_back(&mut self, send: &str) -> bool {
        if !std::mem::take(&mut self.error_until_online) || self.error.is_none() {
            return false;
        }
        self.error = Some(format!(
            "The service answers again; nothing was sent before. {send} sends the kept text."
        ));
        true
    }

    /// A key typed into the text. Ignored while sending, so what is sent is what is shown.
    /// Ctrl+J is LF (what some terminals send for Enter, and what an unbracketed paste
    /// sends between lines): a line break, never the textarea's "delete to line start".
    pub fn key(&mut self, key: &KeyEvent, effects: &mut Vec<Effect>) {
        if self.sending.is_some() {
            return;
        }
        let changed = if is_line_break(key) {
            self.textarea.insert_newline();
            true
        } else {
            self.textarea.input(*key)
        };
        if changed {
            self.edited(effects);
        }
    }

    /// A bracketed paste, as every input takes text ([`typed`]): CR and CRLF (how
    /// terminals and Windows files break lines) become line breaks, and control and
    /// bidirectional characters, which the screen would hide, are dropped, so none
    /// reaches the draft or the agent.
    pub fn paste(&mut self, text: &str, effects: &mut Vec<Effect>) {
        if self.sending.is_none() && self.textarea.insert_str(typed(text)) {
            self.edited(effects);
        }
    }

    fn edited(&mut self, effects: &mut Vec<Effect>) {
        let text = self.text();
        if self.error_until_typed && !text.trim().is_empty() {
            self.error_until_typed = false;
            self.error = None;
        }
        self.drafts.insert(self.target.clone(), text.clone());
        effects.push(Effect::Io(Io::SaveDraft {
            draft: self.target.clone(),
            text,
        }));
    }

    /// Moves the text shown to the draft of `target` (after what that draft holds) and
    /// shows it there; the draft it came from is emptied.
    pub fn move_text_to(&mut self, target: DraftKey, effects: &mut Vec<Effect>) {
        let text = self.text();
        self.set_text("");
        self.edited(effects);
        self.retarget(target);
        let joined = if self.has_text() {
            format!("{}\n\n{text}", self.text())
        } else {
            text
        };
        self.set_text(&joined);
        self.edited(effects);
    }

    /// Puts template `index`'s prompt for `marks` in the new-job draft, after the text it
    /// holds (kept, above a blank line), and shows that draft.
    pub fn fill_from(
        &mut self,
        templates: &[Template],
        index: usize,
        marks: Marked,
        effects: &mut Vec<Effect>,
    ) {
        self.retarget(DraftKey::NewJob);
        let before = match &self.fill {
            Some(fill) if fill.filled == self.text() => fill.before.clone(),
            _ => self.text().trim_end().to_owned(),
        };
        self.refill(templates, index, before, marks, effects);
    }

    /// Ctrl+T: the next template for the same pages. Refused (with the reason) when the
    /// text changed since the template filled it, or when this is not the new-job draft.
    pub fn next_template(
        &mut self,
        templates: &[Template],
        effects: &mut Vec<Effect>,
    ) -> Result<String, &'static str> {
        if self.target != DraftKey::NewJob {
            return Err("templates are for new jobs: Esc, then n in the visitors pane");
        }
        if self.sending.is_some() || templates.is_empty() {
            return Err("no template to change to now");
        }
        let text = self.text();
        if (self.fill.as_ref()).is_some_and(|f| f.filled == text && f.from == Pane::Searches) {
            return Err(
                "the missing-page prompt has no other template: edit it, or Ctrl+U undoes it",
            );
        }
        let (index, before, marks) = match &self.fill {
            Some(fill) if fill.filled == text => (
                (fill.index + 1) % templates.len(),
                fill.before.clone(),
                fill.marks.clone(),
            ),
            None if !self.has_text() => (0, String::new(), Marked::default()),
            _ => {
                return Err(
                    "the prompt was edited: Ctrl+T replaces only a template's own text (Ctrl+U undoes edits)",
                );
            }
        };
        self.refill(templates, index, before, marks, effects);
        Ok(templates[index].name.clone())
    }

    fn refill(
        &mut self,
        templates: &[Template],
        index: usize,
        before: String,
        marks: Marked,
        effects: &mut Vec<Effect>,
    ) {
        let Some(template) = templates.get(index) else {
            return;
        };
        let prompt = crate::insight::templates::fill(template, &marks);
        let (before, filled) = self.put_prompt(prompt, before, effects);
        self.fill = Some(TemplateFill {
            index,
            name: template.name.clone(),
            before,
            filled,
            marks,
            from: Pane::Visitors,
        });
    }

    /// Puts `prompt` after `before` as the new-job draft's text; returns the `before`
    /// kept and the whole text.
    fn put_prompt(
        &mut self,
        prompt: String,
        before: String,
        effects: &mut Vec<Effect>,
    ) -> (String, String) {
        // The draft already ends with this very prompt (kept from an earlier start, whose
        // fill is not remembered): it is not put in a second time.
        let before = match before.trim_end().strip_suffix(prompt.trim_end()) {
            Some(rest) if !before.trim().is_empty() => rest.trim_end().to_owned(),
            _ => before,
        };
        let filled = if before.is_empty() {
            prompt
        } else {
            format!("{before}\n\n{prompt}")
        };
        // Added after the text there is, as one edit, so that one undo takes it back;
        // a template that replaces another (Ctrl+T) or trailing blanks start afresh.
        let current = self.text();
        match normalize_newlines(&filled).strip_prefix(current.as_str()) {
            Some(added) if !added.is_empty() => {
                self.textarea.cancel_selection();
                self.textarea.move_cursor(CursorMove::Bottom);
                self.textarea.move_cursor(CursorMove::End);
                self.textarea.insert_str(added);
            }
            Some(_) => {}
            None => self.set_text(&filled),
        }
        self.edited(effects);
        (before, filled)
    }

    /// Forgets a draft that was sent; clears the text if it is the one shown.
    pub(super) fn sent(&mut self, draft: &DraftKey, effects: &mut Vec<Effect>) {
        self.drafts.remove(draft);
        if self.target == *draft {
            self.set_text("");
        }
        effects.push(Effect::Io(Io::SaveDraft {
            draft: draft.clone(),
            text: String::new(),
        }));
    }
}

/// Enter, Ctrl+J (LF) and Ctrl+M (CR), whatever other modifiers a terminal adds.
#[must_use]
pub(crate) fn is_line_break(key: &KeyEvent) -> bool {
    match key.code {
        KeyCode::Enter => true,
        KeyCode::Char('j' | 'J' | 'm' | 'M') => key.modifiers.contains(KeyModifiers::CONTROL),
        _ => false,
    }
}

impl Default for Composer {
    fn default() -> Self {
        Self::new()
    }
}

/// What the composer reads of the app for one key.
pub(in crate::tui::app) struct Ctx<'a> {
    pub templates: &'a [Template],
    pub keymap: &'a Keymap,
    /// Why the call the target needs (create or message) cannot be made now, if a 429
    /// pauses it.
    pub paused: Option<String>,
}

impl Composer {
    /// A key of the composer that is not typed into the text.
    pub(in crate::tui::app) fn on_action(
        &mut self,
        action: Action,
        ctx: &Ctx<'_>,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        match action {
            Action::Send => return self.submit(ctx, effects),
            Action::LeaveComposer => return Outcome::Back(self.came_from),
            Action::Editor if self.sending.is_none() => effects.push(Effect::Tty(Tty::Edit {
                draft: self.target.clone(),
                text: self.text(),
            })),
            Action::NextTemplate => {
                let said = match self.next_template(ctx.templates, effects) {
                    Ok(name) => format!("template: {name}"),
                    Err(why) => why.to_owned(),
                };
                return Outcome::News(NoticeKind::Info, said.into());
            }
            Action::Help => return Outcome::Open(Overlay::Help(KeyContext::Composer)),
            Action::Quit => return Outcome::Quit,
            _ => {}
        }
        Outcome::Done
    }

    fn submit(&mut self, ctx: &Ctx<'_>, effects: &mut Vec<Effect>) -> Outcome {
        if self.sending.is_some() {
            return Outcome::News(NoticeKind::Info, "still sending the last prompt".into());
        }
        let prompt = self.text().trim().to_owned();
        if prompt.is_empty() {
            let send = ctx.keymap.key_or_name(KeyContext::Composer, Action::Send);
            self.error = Some(format!(
                "the prompt is empty: type what the agent should do, then {send}"
            ));
            self.error_until_typed = true;
            return Outcome::Changed;
        }
        if let Some(why) = &ctx.paused {
            self.error = Some(format!("{why}; the text is kept"));
            return Outcome::Changed;
        }
        let draft = self.target.clone();
        self.error = None;
        self.sending = Some((draft.clone(), prompt.clone()));
        effects.push(Effect::Io(Io::Submit { draft, prompt }));
        Outcome::Changed
    }

    /// Ctrl+N: the follow-up's text moves to the new-job draft, for a job that takes no
    /// more follow-ups (archived: the service answers 409).
    pub(in crate::tui::app) fn move_to_new_job(
        &mut self,
        keymap: &Keymap,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        let DraftKey::FollowUp(_) = &self.target else {
            return Outcome::News(NoticeKind::Info, "this is already the new-job draft".into());
        };
        if self.sending.is_some() {
            return Outcome::Done;
        }
        self.move_text_to(DraftKey::NewJob, effects);
        let send = keymap.key_or_name(KeyContext::Composer, Action::Send);
        Outcome::News(
            NoticeKind::Info,
            format!("the text is now the new-job draft: {send} creates a job with it").into(),
        )
    }

    /// `n` in the visitors pane: the new-job draft filled from the marked pages (the
    /// template's instruction alone when none is). Returns what to say, or why not.
    pub(in crate::tui::app) fn fill_from_marks(
        &mut self,
        templates: &[Template],
        marks: Marked,
        effects: &mut Vec<Effect>,
    ) -> Result<String, &'static str> {
        if self.sending.is_some() {
            return Err("a prompt is being sent: n works again once it is answered");
        }
        let index = self.fill.as_ref().map_or(0, |fill| fill.index);
        self.fill_from(templates, index, marks, effects);
        let name = self.fill.as_ref().map_or("", |f| f.name.as_str());
        Ok(format!(
            "template {name}: read and edit, then Ctrl+S sends (Ctrl+T: next template)"
        ))
    }

    /// `$EDITOR` closed: its text replaces the draft it was opened on, if still shown.
    pub(in crate::tui::app) fn on_editor_done(
        &mut self,
        draft: DraftKey,
        result: Result<String, EditorError>,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        match result {
            Ok(text) if self.target == draft && self.sending.is_none() => {
                self.set_text(typed(&text).trim_end_matches('\n'));
                self.edited(effects);
            }
            Ok(_) => {}
            Err(reason) => {
                let said = Said::Editor(std::sync::Arc::new(reason));
                return Outcome::News(NoticeKind::Error, said);
            }
        }
        Outcome::Changed
    }
}
