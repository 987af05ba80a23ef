//! The opened job (Enter in the jobs list): its conversation and timeline, scrolled,
//! and searched (`/`, then `n`/`N` from match to match). Only the view knows how the text
//! wraps, so it finds the matches as it draws and says how many there are
//! ([`crate::tui::app::Viewport::found`]); the detail keeps which one is current and asks
//! the view to bring it on screen.

use crate::journal::{SentPrompt, StatusChange};
use crate::listing::Pattern;
use crate::tui::app::outcome::Outcome;
use crate::tui::app::table::{FilterKey, edited};
use crate::tui::app::{Found, TextExtent, scrolled};
use crate::tui::keymap::Action;

/// The opened job: its conversation and timeline come from the journal.
#[derive(Debug, Clone, PartialEq)]
pub struct JobDetail {
    pub id: String,
    pub conversation: Option<Vec<SentPrompt>>,
    pub timeline: Vec<StatusChange>,
    /// The first screen row shown, counted after wrapping. Keys move it freely; the view
    /// clamps it to the last page as it draws (only it knows how lines wrap), and a move
    /// starts from where the last frame could show it, so `k` after `G` moves at once.
    pub scroll: usize,
    /// The search of its text, while one is open.
    pub search: Option<DetailSearch>,
}

impl JobDetail {
    #[must_use]
    pub fn new(id: String) -> Self {
        Self {
            id,
            conversation: None,
            timeline: Vec::new(),
            scroll: 0,
            search: None,
        }
    }
}

impl JobDetail {
    /// A key of the detail, with what the last frame measured of its text (`extent`) and
    /// found of its search (`matches`).
    pub(in crate::tui::app) fn on_action(
        &mut self,
        action: Action,
        extent: Option<TextExtent>,
        matches: usize,
    ) -> Outcome {
        if self.on_search_action(action, matches) {
            return Outcome::Done;
        }
        let page = extent.map_or(1, |e| e.rows).max(1).cast_signed();
        let by = |rows: isize| scrolled(self.scroll, extent, rows);
        match action {
            Action::Close => return Outcome::Close,
            Action::Up => self.scroll = by(-1),
            Action::Down => self.scroll = by(1),
            Action::PrevPage => self.scroll = by(-page),
            Action::NextPage => self.scroll = by(page),
            Action::Top => self.scroll = 0,
            Action::Bottom => self.scroll = usize::MAX,
            Action::FollowUp => return Outcome::FollowUp(self.id.clone()),
            Action::Copy => return Outcome::CopySelected,
            Action::OpenLink => return Outcome::OpenSelected,
            Action::Impact => return Outcome::ReadImpact(self.id.clone()),
            Action::ImpactWindow => return Outcome::ImpactWindow(self.id.clone()),
            _ => {}
        }
        Outcome::Done
    }

    /// `/`, `n`, `N` and Esc in the detail; whether the action was one of them.
    fn on_search_action(&mut self, action: Action, count: usize) -> bool {
        match (action, self.search.as_mut()) {
            (Action::Search, Some(search)) => search.typing = true,
            (Action::Search, None) => {
                self.search = Some(DetailSearch {
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
            (Action::Close, Some(_)) => self.search = None,
            _ => return false,
        }
        true
    }

    /// A key of the search line, while it is typed in; whether it took the key.
    pub(in crate::tui::app) fn on_typing_key(&mut self, typed: FilterKey) -> bool {
        let Some(search) = self.search.as_mut().filter(|s| s.typing) else {
            return false;
        };
        edit_search(search, typed);
        if matches!(typed, FilterKey::Esc) {
            self.search = None;
        }
        true
    }

    /// The frame brought the current match into sight: the scroll starts from there.
    pub(in crate::tui::app) fn adopt_found(&mut self, found: Found) {
        if let Some(search) = self.search.as_mut().filter(|s| s.seek) {
            search.seek = false;
            self.scroll = found.scroll;
        }
    }
}

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
