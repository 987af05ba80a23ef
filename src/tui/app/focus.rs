//! Which pane has the focus, and the context that reads keys: the one thing every pane
//! shares. Moving the focus is where a pane is first loaded and where a typed filter is
//! kept.

use super::outcome::Outcome;
use super::{App, Overlay, Pane, notices};
use crate::tui::keymap::KeyContext;
use crate::tui::message::{Clock, Effect, Io};

impl App {
    /// The context that reads keys now.
    #[must_use]
    pub fn context(&self) -> KeyContext {
        match &self.overlay {
            Some(Overlay::Help(_) | Overlay::Notices) => KeyContext::Help,
            Some(Overlay::Detail(_)) => KeyContext::Detail,
            Some(Overlay::Track(_) | Overlay::Filter(_) | Overlay::Export(_)) => KeyContext::Form,
            Some(Overlay::Confirm(_)) => KeyContext::Confirm,
            None => match self.focus {
                Pane::Jobs => KeyContext::Jobs,
                Pane::Composer => KeyContext::Composer,
                Pane::Visitors => KeyContext::Visitors,
                Pane::Searches => KeyContext::Searches,
            },
        }
    }

    /// Moves the focus; the visitors pane loads its first page the first time it is seen
    /// (so a console that never looks at analytics never spends that budget).
    pub(crate) fn focus(&mut self, pane: Pane, now: Clock, effects: &mut Vec<Effect>) {
        if pane == Pane::Composer && self.config.read_only {
            return;
        }
        // A filter line being typed in is kept as Enter keeps it.
        self.jobs.keep_filter();
        self.visitors.keep_filter();
        // A notice about what a key did in another pane leaves the notice line.
        self.dirty |= notices::leave_line(&mut self.notice, &mut self.notice_pane, |about| {
            about != pane
        });
        if pane == Pane::Composer && self.focus != Pane::Composer {
            self.composer.came_from = self.focus;
        }
        self.focus = pane;
        match pane {
            Pane::Visitors if self.visitors.wants_first_page() => {
                self.in_visitors(now, effects, |v, ctx, fx| {
                    v.fetch(ctx, fx);
                    Outcome::Done
                });
            }
            Pane::Searches => self.in_searches(now, effects, |s, ctx, fx| {
                s.show(ctx, fx);
                Outcome::Changed
            }),
            Pane::Composer => {
                if let Some(target) = self.jobs.aim(&self.composer.target) {
                    self.composer.retarget(target);
                }
                effects.push(Effect::Io(Io::RefreshBudget));
            }
            _ => {}
        }
    }
}
