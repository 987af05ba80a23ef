//! Text typed into a line rather than read as keys: the jobs list's filter (`/`, kept
//! with Enter, cleared with Esc) and the search of the detail's text (`/`, then `n`/`N`
//! from match to match). Only the view knows how the detail wraps, so it finds the
//! matches as it draws and says how many there are ([`crate::tui::app::Viewport::found`]); the
//! app keeps which one is current and asks the view to bring it on screen.

use crossterm::event::KeyEvent;

use crate::listing::Pattern;
use crate::tui::app::table::{FilterEdit, FilterKey, edited};
use crate::tui::app::{App, Overlay, Pane};
use crate::tui::keymap::Action;

/// A search of the detail's text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DetailSearch {
    pub pattern: Pattern,
    /// The search line takes the keys.
    pub typing: bool,
    /// Which match is current, counted from the top (the view wraps it round).
    pub current: usize,
    /// The next frame scrolls the current match into sight.
    pub seek: bool,
}

/// What the last frame found of the detail's search: how many rows match, and the row
/// the text was scrolled to (to bring the current one into sight).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Found {
    pub matches: usize,
    pub scroll: usize,
}

impl App {
    /// Gives a key to the line being typed in, if one is; whether it took the key.
    pub(in crate::tui::app) fn on_typing_key(&mut self, key: &KeyEvent) -> bool {
        let Some(typed) = FilterKey::of(key) else {
            return false;
        };
        if self.overlay.is_none() && self.focus == Pane::Visitors && self.filter_typing() {
            return self.edit_visitors_filter(typed);
        }
        match &mut self.overlay {
            None if self.focus == Pane::Jobs && self.jobs.view().typing() => {
                self.jobs.edit_filter(typed) != FilterEdit::Ignored
            }
            Some(Overlay::Detail(detail)) => {
                let Some(search) = detail.search.as_mut().filter(|s| s.typing) else {
                    return false;
                };
                edit_search(search, typed);
                if matches!(typed, FilterKey::Esc) {
                    detail.search = None;
                }
                true
            }
            _ => false,
        }
    }

    /// Leaves the filter line as Enter does (the pane is left while it is typed in).
    pub(in crate::tui::app) fn keep_filter(&mut self) {
        if self.jobs.view().typing() {
            self.jobs.edit_filter(FilterKey::Enter);
        }
        if self.filter_typing() {
            self.edit_visitors_filter(FilterKey::Enter);
        }
    }

    /// `/`, `n`, `N` and Esc in the detail; whether the action was one of them.
    pub(in crate::tui::app) fn on_search_action(&mut self, action: Action) -> bool {
        let Some(Overlay::Detail(detail)) = &mut self.overlay else {
            return false;
        };
        let count = self.viewport.found.map_or(0, |f| f.matches);
        match (action, detail.search.as_mut()) {
            (Action::Search, Some(search)) => search.typing = true,
            (Action::Search, None) => {
                detail.search = Some(DetailSearch {
                    typing: true,
                    ..DetailSearch::default()
                });
            }
            (Action::NextMatch | Action::PrevMatch, Some(search)) if count > 0 => {
                let step = if action == Action::NextMatch {
                    1
                } else {
                    count - 1
                };
                search.current = (search.current % count + step) % count;
                search.seek = true;
            }
            // Esc leaves the search before it closes the detail.
            (Action::Close, Some(_)) => detail.search = None,
            _ => return false,
        }
        true
    }

    /// The frame brought the current match into sight: the scroll starts from there.
    pub(in crate::tui::app) fn adopt_found(&mut self) {
        let (Some(Overlay::Detail(detail)), Some(found)) = (&mut self.overlay, self.viewport.found)
        else {
            return;
        };
        if let Some(search) = detail.search.as_mut().filter(|s| s.seek) {
            search.seek = false;
            detail.scroll = found.scroll;
        }
    }
}

/// A key of the detail's search line: the pattern changes and the first match is
/// sought; Enter keeps it for `n`/`N`.
fn edit_search(search: &mut DetailSearch, key: FilterKey) {
    if matches!(key, FilterKey::Enter | FilterKey::Esc) {
        search.typing = false;
    } else if let Some(pattern) = edited(&search.pattern, key) {
        search.pattern = pattern;
        search.current = 0;
        search.seek = true;
    }
}
