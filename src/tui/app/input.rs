//! Input from the terminal (keys, pastes, resizes, clicks), routed by the context that
//! reads it now: the typing line, the overlay, the global keys, then the focused pane.

use crossterm::event::{Event, KeyEvent};

use super::outcome::Outcome;
use super::table::{FilterEdit, FilterKey};
use super::{App, CallClass, NoticeKind, Overlay, Pane, composer, keys, notices};
use crate::tui::keymap::{Action, KeyContext};
use crate::tui::message::{Clock, Effect};

impl App {
    pub(super) fn on_event(&mut self, event: Event, now: Clock, effects: &mut Vec<Effect>) {
        match event {
            Event::Key(key) => self.on_key(&key, now, effects),
            Event::Paste(text) => {
                self.dirty |= !self.too_small()
                    && match &mut self.overlay {
                        Some(overlay) => overlay.paste(&text),
                        None if self.focus == Pane::Composer => {
                            self.composer.paste(&text, effects);
                            true
                        }
                        None => false,
                    };
            }
            Event::Resize(width, height) => {
                self.size = Some((width, height));
                if self.focus == Pane::Visitors && self.loaded {
                    // A taller screen may show the chart by default now.
                    self.in_visitors(now, effects, |v, ctx, fx| {
                        v.want_trend(ctx, fx);
                        Outcome::Done
                    });
                }
                // Text wraps anew: where it ends is known again after the next frame.
                self.viewport.detail = None;
                self.viewport.help = None;
                self.dirty = true;
            }
            Event::FocusGained => self.dirty = true,
            Event::Mouse(mouse) => self.dirty |= self.on_mouse(mouse, now, effects),
            Event::FocusLost => {}
        }
    }

    pub(super) fn on_key(&mut self, key: &KeyEvent, now: Clock, effects: &mut Vec<Effect>) {
        if self.too_small() {
            if let Some(action) = keys::too_small_key(self.keymap(), key) {
                self.on_global(action, now, effects);
            }
            return;
        }
        if self.on_typing_key(key) {
            self.dirty = true;
            return;
        }
        let context = self.context();
        let action = self.config.prefs.keymap.action(context, key);
        match (context, action) {
            // Under `--read-only`, a key that would write says so instead of doing nothing.
            (_, Some(action)) if self.config.read_only && action.writes() => {
                self.notify(NoticeKind::Warning, keys::READ_ONLY);
            }
            (_, Some(action)) if action.is_global() => self.on_global(action, now, effects),
            (KeyContext::Help, action) => {
                if !(self.help).on_action(&mut self.overlay, action, self.viewport.help) {
                    return;
                }
            }
            (KeyContext::Form, action) => self.on_form_key(key, action, now, effects),
            (KeyContext::Confirm, Some(action)) => {
                if let Some(Overlay::Confirm(question)) = self.overlay.take() {
                    self.route(question.on_action(action), now, effects);
                }
            }
            (KeyContext::Confirm, None) => return,
            (KeyContext::Detail, Some(action)) => {
                if let Some(Overlay::Detail(detail)) = &mut self.overlay {
                    let matches = self.viewport.found.map_or(0, |f| f.matches);
                    let outcome = detail.on_action(action, self.viewport.detail, matches);
                    self.route(outcome, now, effects);
                }
            }
            (KeyContext::Composer, Some(Action::ToNewJob)) => {
                let outcome = (self.composer).move_to_new_job(&self.config.prefs.keymap, effects);
                self.route(outcome, now, effects);
            }
            (KeyContext::Composer, Some(action)) => {
                let ctx = composer::Ctx {
                    templates: &self.config.templates,
                    keymap: &self.config.prefs.keymap,
                    paused: (self.link).refusal(CallClass::of_draft(&self.composer.target), now),
                };
                let had_text = !self.composer.text().trim().is_empty();
                let outcome = self.composer.on_action(action, &ctx, effects);
                self.route(outcome, now, effects);
                // A notice about the draft (the missing-page prompt's) leaves once a key
                // empties it.
                if had_text && self.composer.text().trim().is_empty() {
                    let line = (&mut self.notice, &mut self.notice_pane);
                    self.dirty |= notices::leave_line(line.0, line.1, |a| a == Pane::Composer);
                }
            }
            (_, None) if keys::is_ctrl_c(key) => {
                self.notify(NoticeKind::Info, keys::how_to_quit(self.keymap()));
            }
            (KeyContext::Composer, None) => {
                let had_text = !self.composer.text().trim().is_empty();
                self.composer.key(key, effects);
                // A notice about the draft (the missing-page prompt's) leaves once a key
                // empties it.
                if had_text && self.composer.text().trim().is_empty() {
                    let line = (&mut self.notice, &mut self.notice_pane);
                    self.dirty |= notices::leave_line(line.0, line.1, |a| a == Pane::Composer);
                }
            }
            (_, Some(action)) => self.on_action(action, now, effects),
            // An unbound key changes nothing; it leaves alone what an earlier message of
            // the same batch asked for.
            (_, None) => return,
        }
        self.dirty = true;
    }

    pub(super) fn on_action(&mut self, action: Action, now: Clock, effects: &mut Vec<Effect>) {
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.overlay = Some(Overlay::Help(self.context())),
            Action::NextPane => {
                self.focus(self.focus.step(1, self.config.read_only), now, effects);
            }
            Action::PrevPane => {
                self.focus(self.focus.step(-1, self.config.read_only), now, effects);
            }
            Action::FocusJobs => self.focus(Pane::Jobs, now, effects),
            Action::FocusComposer => self.focus(Pane::Composer, now, effects),
            Action::FocusVisitors => self.focus(Pane::Visitors, now, effects),
            Action::FocusSearches => self.focus(Pane::Searches, now, effects),
            Action::Refresh => self.refresh(now, effects),
            Action::TogglePause => {
                let paused = !self.jobs.poll.is_paused();
                self.jobs.poll.set_paused(paused);
                let text = if paused {
                    let key = self
                        .keymap()
                        .key_or_name(KeyContext::Jobs, Action::TogglePause);
                    format!("polling paused: {key} resumes")
                } else {
                    "polling resumed".to_owned()
                };
                self.notify(NoticeKind::Info, text);
            }
            _ if self.focus == Pane::Jobs => {
                let page = self.viewport.jobs_rows;
                let outcome = self.jobs.on_action(action, page, &self.config, effects);
                self.route(outcome, now, effects);
            }
            _ if self.focus == Pane::Visitors => {
                self.in_visitors(now, effects, |v, ctx, fx| v.on_key(action, ctx, fx));
            }
            _ if self.focus == Pane::Searches => {
                self.in_searches(now, effects, |s, ctx, fx| s.on_key(action, ctx, fx));
            }
            _ => {}
        }
    }

    /// Gives a key to the line being typed in, if one is; whether it took the key.
    pub(in crate::tui::app) fn on_typing_key(&mut self, key: &KeyEvent) -> bool {
        let Some(typed) = FilterKey::of(key) else {
            return false;
        };
        if self.overlay.is_none() && self.focus == Pane::Visitors && self.visitors.filter_typing() {
            return self.visitors.edit_filter(typed);
        }
        match &mut self.overlay {
            None if self.focus == Pane::Jobs && self.jobs.view().typing() => {
                self.jobs.edit_filter(typed) != FilterEdit::Ignored
            }
            Some(Overlay::Detail(detail)) => detail.on_typing_key(typed),
            _ => false,
        }
    }
}
