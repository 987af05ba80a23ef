//! The keys that mean the same everywhere (quit, help, panes, refresh, pause), the help
//! opened over another overlay, the "too small" screen that takes only quit, and the word
//! said when `--read-only` refuses a key.

use crossterm::event::KeyEvent;

use super::{App, NoticeKind, Overlay};
use crate::tui::keymap::{Action, KeyContext};
use crate::tui::message::{Clock, Effect, Tty};

/// Smallest terminal the console draws in; below it only `q` and Ctrl+C are read.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 15;

impl App {
    /// Whether the screen is below the minimum size, so that it shows only "too small".
    #[must_use]
    pub fn too_small(&self) -> bool {
        self.size
            .is_some_and(|(width, height)| width < MIN_WIDTH || height < MIN_HEIGHT)
    }

    /// The "too small" screen offers `q` to quit: that and Ctrl+C quit; no other key
    /// reaches the pane or form hidden behind it.
    pub(super) fn on_key_too_small(&mut self, key: &KeyEvent, effects: &mut Vec<Effect>) {
        match self.keymap().action(KeyContext::Jobs, key) {
            Some(Action::Quit) => self.quit = true,
            Some(Action::Suspend) => effects.push(Effect::Tty(Tty::Suspend)),
            _ => {}
        }
    }

    /// Ctrl+C after `[keys.global]` gave `quit` other keys: say which quit, rather than
    /// leave the key that quits every terminal program doing nothing without a word.
    pub(super) fn say_how_to_quit(&mut self) {
        let quit = self.keymap().key_or_name(KeyContext::Jobs, Action::Quit);
        self.notify(
            NoticeKind::Info,
            format!("Ctrl+C is not bound ([keys.global] gave quit other keys): {quit} quits"),
        );
    }

    /// Under `--read-only`, a key that would write says so instead of doing nothing.
    pub(super) fn refused_read_only(&mut self, action: Action) -> bool {
        if !(self.config.read_only && action.writes()) {
            return false;
        }
        self.notify(
            NoticeKind::Warning,
            "read-only: new jobs and follow-ups are off here (--read-only)",
        );
        true
    }

    /// Quit, help, the panes, refresh and pause, from any place. Switching panes closes
    /// the detail or help on top; help opened over an overlay goes back to it.
    pub(super) fn on_global(&mut self, action: Action, now: Clock, effects: &mut Vec<Effect>) {
        match action {
            Action::Quit => self.quit = true,
            Action::Suspend => effects.push(Effect::Tty(Tty::Suspend)),
            Action::Help => self.open_help(),
            Action::Notices => self.toggle_log(),
            Action::NextPane
            | Action::PrevPane
            | Action::FocusJobs
            | Action::FocusComposer
            | Action::FocusVisitors => {
                self.overlay = None;
                self.under_help = None;
                self.on_action(action, now, effects);
            }
            Action::Refresh | Action::TogglePause => self.on_action(action, now, effects),
            Action::Up
            | Action::Down
            | Action::Top
            | Action::Bottom
            | Action::Open
            | Action::Close
            | Action::NewJob
            | Action::FollowUp
            | Action::Track
            | Action::Untrack
            | Action::Copy
            | Action::OpenLink
            | Action::Send
            | Action::LeaveComposer
            | Action::Editor
            | Action::ToNewJob
            | Action::NextPage
            | Action::PrevPage
            | Action::Filter
            | Action::Export
            | Action::MoreRows
            | Action::FewerRows
            | Action::Mark
            | Action::ToggleChart
            | Action::Compare
            | Action::WholeRange
            | Action::NextTemplate
            | Action::NextField
            | Action::PrevField
            | Action::ChoiceLeft
            | Action::ChoiceRight
            | Action::Apply
            | Action::Search
            | Action::SortNext
            | Action::SortReverse
            | Action::ClearFilter
            | Action::NextMatch
            | Action::PrevMatch
            | Action::Impact => {}
        }
    }

    /// Help for the place the keys go to now, over whatever overlay is open.
    pub(super) fn open_help(&mut self) {
        let context = self.context();
        if context == KeyContext::Help {
            self.close_help();
            return;
        }
        self.under_help = self.overlay.take().map(Box::new);
        self.overlay = Some(Overlay::Help(context));
        self.help_scroll = 0;
        self.viewport.help = None;
    }

    /// Keys of the help: close it, or scroll it where it does not fit. Returns whether
    /// the key did anything.
    pub(super) fn on_help_action(&mut self, action: Option<Action>) -> bool {
        let by = |rows: isize| super::scrolled(self.help_scroll, self.viewport.help, rows);
        match action {
            Some(Action::Close) => self.close_help(),
            Some(Action::Up) => self.help_scroll = by(-1),
            Some(Action::Down) => self.help_scroll = by(1),
            Some(Action::PrevPage) => self.help_scroll = by(-10),
            Some(Action::NextPage) => self.help_scroll = by(10),
            Some(Action::Top) => self.help_scroll = 0,
            Some(Action::Bottom) => self.help_scroll = usize::MAX,
            _ => return false,
        }
        true
    }

    pub(super) fn close_help(&mut self) {
        self.overlay = self.under_help.take().map(|overlay| *overlay);
    }
}

/// Ctrl+C, as terminals send it.
pub(super) fn is_ctrl_c(key: &KeyEvent) -> bool {
    key.modifiers
        .contains(crossterm::event::KeyModifiers::CONTROL)
        && matches!(key.code, crossterm::event::KeyCode::Char('c' | 'C'))
}
