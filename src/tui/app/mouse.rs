//! The mouse, when it is on: a click on a tab switches pane, a click on a row selects
//! it and a second click on the same row opens it (as Enter does), and the wheel scrolls
//! the list or the text under the overlay. Clicks are found against where the last frame
//! drew things ([`super::Hits`]), so this stays a pure function of the app's state.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use super::{App, Overlay, Pane};
use crate::tui::keymap::Action;
use crate::tui::message::{Clock, Effect};

/// Rows one turn of the wheel moves.
pub const WHEEL_ROWS: usize = 3;

impl App {
    /// A mouse event; whether it changed anything (moves and releases do not).
    pub(super) fn on_mouse(
        &mut self,
        mouse: MouseEvent,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) -> bool {
        if !self.config.mouse || self.too_small() {
            return false;
        }
        match mouse.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                self.on_click(mouse.column, mouse.row, now, effects)
            }
            MouseEventKind::ScrollDown => self.on_wheel(Action::Down, now, effects),
            MouseEventKind::ScrollUp => self.on_wheel(Action::Up, now, effects),
            MouseEventKind::Down(_)
            | MouseEventKind::Up(_)
            | MouseEventKind::Drag(_)
            | MouseEventKind::Moved
            | MouseEventKind::ScrollLeft
            | MouseEventKind::ScrollRight => false,
        }
    }

    fn on_click(&mut self, column: u16, row: u16, now: Clock, effects: &mut Vec<Effect>) -> bool {
        let hits = self.viewport.hits;
        if let Some(pane) = hits.tab_at(column, row) {
            let action = match pane {
                Pane::Jobs => Action::FocusJobs,
                Pane::Composer => Action::FocusComposer,
                Pane::Visitors => Action::FocusVisitors,
                Pane::Searches => Action::FocusSearches,
            };
            self.on_global(action, now, effects);
            return true;
        }
        // Over an overlay, a click hits nothing below it.
        if self.overlay.is_some() {
            return false;
        }
        let Some(at) = hits.rows.and_then(|rows| rows.row_at(column, row)) else {
            return false;
        };
        match self.focus {
            Pane::Jobs => {
                self.jobs.keep_filter();
                self.visitors.keep_filter();
                if self.jobs.view().cursor_position() == Some(at) {
                    self.on_action(Action::Open, now, effects);
                } else {
                    self.jobs.select_shown(at);
                }
                true
            }
            // A page open covers the rows: a click there selects none of them.
            Pane::Visitors if self.visitors.page.is_some() => false,
            Pane::Visitors => {
                self.jobs.keep_filter();
                self.visitors.keep_filter();
                match self.visitors.whole.table_mut() {
                    // The whole range read: `at` is a position among the rows shown.
                    Some(whole) => whole.arrangement.place_cursor(&whole.rows, at),
                    None => self.visitors.selected = at,
                }
                true
            }
            Pane::Searches => {
                self.searches.select(at);
                true
            }
            Pane::Composer => false,
        }
    }

    /// The wheel moves what is under the pointer's window: the open detail or help, else
    /// the focused list, a few rows a turn.
    fn on_wheel(&mut self, way: Action, now: Clock, effects: &mut Vec<Effect>) -> bool {
        let by = |rows: usize| {
            let rows = rows.cast_signed();
            if way == Action::Down { rows } else { -rows }
        };
        match &mut self.overlay {
            Some(Overlay::Detail(detail)) => {
                detail.scroll =
                    super::scrolled(detail.scroll, self.viewport.detail, by(WHEEL_ROWS));
            }
            Some(Overlay::Help(_) | Overlay::Notices) => {
                self.help.wheel(self.viewport.help, by(WHEEL_ROWS));
            }
            Some(_) => return false,
            None => match self.focus {
                Pane::Jobs => {
                    for _ in 0..WHEEL_ROWS {
                        self.jobs.navigate(way, 1);
                    }
                }
                Pane::Visitors => {
                    for _ in 0..WHEEL_ROWS {
                        self.in_visitors(now, effects, |v, ctx, fx| v.on_key(way, ctx, fx));
                    }
                }
                Pane::Searches => {
                    for _ in 0..WHEEL_ROWS {
                        self.in_searches(now, effects, |s, ctx, fx| s.on_key(way, ctx, fx));
                    }
                }
                Pane::Composer => return false,
            },
        }
        true
    }
}
