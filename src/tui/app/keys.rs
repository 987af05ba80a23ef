//! The keys that mean the same everywhere (quit, help, panes, refresh, pause), the "too
//! small" screen that takes only quit, and the word said when `--read-only` refuses a key.

use crossterm::event::KeyEvent;

use super::App;
use crate::tui::keymap::{Action, KeyContext, Keymap};
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

    /// Quit, help, the panes, refresh and pause, from any place. Switching panes closes
    /// the detail or help on top; help opened over an overlay goes back to it.
    pub(super) fn on_global(&mut self, action: Action, now: Clock, effects: &mut Vec<Effect>) {
        match action {
            Action::Quit => self.quit = true,
            Action::Suspend => effects.push(Effect::Tty(Tty::Suspend)),
            Action::Help => {
                let context = self.context();
                if self.help.toggle_help(&mut self.overlay, context) {
                    self.viewport.help = None;
                }
            }
            Action::Notices => {
                if self.help.toggle_log(&mut self.overlay) {
                    self.viewport.help = None;
                }
            }
            Action::NextPane
            | Action::PrevPane
            | Action::FocusJobs
            | Action::FocusComposer
            | Action::FocusVisitors
            | Action::FocusSearches => {
                self.overlay = None;
                self.help.forget();
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
            | Action::ImpactColumn
            | Action::ImpactWindow
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
            | Action::SwitchList => {}
            Action::Impact => {}
        }
    }
}

/// What `--read-only` says of a key that would write.
pub(super) const READ_ONLY: &str = "read-only: new jobs and follow-ups are off here (--read-only)";

/// The "too small" screen offers `q` to quit: that and Ctrl+C quit; no other key reaches
/// the pane or form hidden behind it. The effect of `key` there, if any.
pub(super) fn too_small_key(keymap: &Keymap, key: &KeyEvent) -> Option<Action> {
    keymap
        .action(KeyContext::Jobs, key)
        .filter(|action| matches!(action, Action::Quit | Action::Suspend))
}

/// Ctrl+C after `[keys.global]` gave `quit` other keys: which quit, rather than leave the
/// key that quits every terminal program doing nothing without a word.
pub(super) fn how_to_quit(keymap: &Keymap) -> String {
    let quit = keymap.key_or_name(KeyContext::Jobs, Action::Quit);
    format!("Ctrl+C is not bound ([keys.global] gave quit other keys): {quit} quits")
}

/// Ctrl+C, as terminals send it.
pub(super) fn is_ctrl_c(key: &KeyEvent) -> bool {
    key.modifiers
        .contains(crossterm::event::KeyModifiers::CONTROL)
        && matches!(key.code, crossterm::event::KeyCode::Char('c' | 'C'))
}
