//! What the user chose for a list, for any table of the console: the column it is
//! sorted by and which way, and the filter (being typed, or applied). From these and the
//! rows it yields the order shown, as positions in the rows (`crate::listing::ordered`),
//! and it keeps the cursor on its row by identity, so a re-sort, a filter or a refresh
//! never moves it to another row. The view half is `view/table/` (header arrow, filter
//! title); this half holds no widths and draws nothing.
//!
//! # Using it for a list
//! 1. A column type `C` implementing [`SortKey`] (the columns `s` steps through and the
//!    way each sorts first), and the row type implementing [`Arrangeable<C>`] (its
//!    identity, the texts `/` looks in, how two rows compare by a column).
//! 2. Keep an `Arrangement<C, R::Id>` beside the rows, and call
//!    [`Arrangement::arrange`] whenever the rows change (only when a row really changed,
//!    when lists are long: it filters and sorts them all).
//! 3. Route keys: [`Arrangement::cycle_sort`] and [`Arrangement::reverse`] (then
//!    `arrange`), [`Arrangement::edit_filter`] for the keys of the filter line while
//!    [`Arrangement::typing`], [`Arrangement::move_cursor`] for the list's moves.
//! 4. Draw rows `order()[i]` for `i` in `0..len()`, the selected one at
//!    [`Arrangement::cursor_position`]; the view's `table::sorted_header` and
//!    `table::filter_title` show the choice.

use std::cmp::Ordering;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::cursor::moved;
use crate::listing::{Direction, Pattern, ordered};
use crate::tui::keymap::Action;

/// The columns a list sorts by.
pub trait SortKey: Copy + Eq + std::fmt::Debug + 'static {
    /// The columns `s` steps through, in order; the first is the list's first sort.
    const CYCLE: &'static [Self];

    /// The way a column sorts when chosen: newest first for a time, A to Z for a name.
    fn first_direction(self) -> Direction;
}

/// A row of a list that can be filtered and sorted.
pub trait Arrangeable<C> {
    /// What names the row across refreshes (a job's id, a page's path).
    type Id: PartialEq + Clone + std::fmt::Debug;

    fn id(&self) -> Self::Id;

    /// Whether the row is kept by `pattern`: whether any of its searchable texts matches
    /// (`pattern.matches_any([...])`).
    fn matches(&self, pattern: &Pattern) -> bool;

    /// How two rows compare by `column`, ascending. Ties keep the rows' own order.
    fn compare(&self, other: &Self, column: C) -> Ordering;
}

/// What a key of the filter line did, so the list knows whether to arrange again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterEdit {
    /// The pattern changed: arrange again.
    Changed,
    /// Enter: the pattern stays, keys go back to the list.
    Kept,
    /// Esc: the pattern is gone, keys go back to the list; arrange again.
    Cleared,
    /// Not a key of the filter line.
    Ignored,
}

/// The sort, the filter, the order they give and the cursor of one list.
#[derive(Debug, Clone)]
pub struct Arrangement<C, K> {
    sort: Option<(C, Direction)>,
    filter: Pattern,
    /// The filter line takes the keys.
    typing: bool,
    /// Positions in the rows of the rows shown, in the order shown.
    order: Vec<usize>,
    /// The row the cursor is on, by identity.
    cursor: Option<K>,
    /// Where the cursor is in `order` (kept with `cursor` by every change).
    at: usize,
    /// Rows before the filter, for "3 of 120".
    total: usize,
}

impl<C: SortKey, K> Default for Arrangement<C, K> {
    /// Sorted by the first column of the cycle, its own way; no filter.
    fn default() -> Self {
        let first = C::CYCLE.first().map(|c| (*c, c.first_direction()));
        Self {
            sort: first,
            filter: Pattern::default(),
            typing: false,
            order: Vec::new(),
            cursor: None,
            at: 0,
            total: 0,
        }
    }
}

impl<C: SortKey, K: PartialEq + Clone> Arrangement<C, K> {
    /// The column and way the list is sorted by; `None`: the rows' own order.
    #[must_use]
    pub fn sort(&self) -> Option<(C, Direction)> {
        self.sort
    }

    /// The filter as applied (and as being typed, while [`Self::typing`]).
    #[must_use]
    pub fn filter(&self) -> &Pattern {
        &self.filter
    }

    /// Whether the filter line takes the keys.
    #[must_use]
    pub fn typing(&self) -> bool {
        self.typing
    }

    /// Positions in the rows of the rows shown, in order.
    #[must_use]
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// Rows shown.
    #[must_use]
    pub fn len(&self) -> usize {
        self.order.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Rows before the filter (the "120" of "3 of 120").
    #[must_use]
    pub fn total(&self) -> usize {
        self.total
    }

    /// Where the cursor is among the rows shown; `None` when none is shown.
    #[must_use]
    pub fn cursor_position(&self) -> Option<usize> {
        self.cursor.as_ref().map(|_| self.at)
    }

    /// The position in the rows of the row under the cursor.
    #[must_use]
    pub fn cursor_row(&self) -> Option<usize> {
        self.cursor_position()
            .and_then(|at| self.order.get(at).copied())
    }

    /// The identity of the row under the cursor.
    #[must_use]
    pub fn cursor(&self) -> Option<&K> {
        self.cursor.as_ref()
    }

    /// `s`: the next column of the cycle, sorted its own way. Call `arrange` after.
    pub fn cycle_sort(&mut self) {
        let next = match self.sort {
            Some((column, _)) => C::CYCLE
                .iter()
                .position(|c| *c == column)
                .map_or(0, |at| (at + 1) % C::CYCLE.len()),
            None => 0,
        };
        self.sort = C::CYCLE.get(next).map(|c| (*c, c.first_direction()));
    }

    /// `S`: the same column the other way. Call `arrange` after.
    pub fn reverse(&mut self) {
        self.sort = match self.sort {
            Some((column, direction)) => Some((column, direction.reversed())),
            None => C::CYCLE
                .first()
                .map(|c| (*c, c.first_direction().reversed())),
        };
    }

    /// Sorts by `column` its own way (a click on a header, a saved choice).
    pub fn sort_by(&mut self, sort: Option<(C, Direction)>) {
        self.sort = sort;
    }

    /// `/`: the filter line takes the keys, with the pattern as it is to edit.
    pub fn start_filter(&mut self) {
        self.typing = true;
    }

    /// A key while the filter line is open: a character or Backspace edits the
    /// pattern, Enter keeps it, Esc clears it. Anything else is not the line's.
    pub fn edit_filter(&mut self, key: FilterKey) -> FilterEdit {
        match key {
            FilterKey::Enter => {
                self.typing = false;
                FilterEdit::Kept
            }
            FilterKey::Esc => {
                self.clear_filter();
                FilterEdit::Cleared
            }
            _ => match edited(&self.filter, key) {
                Some(pattern) => {
                    self.filter = pattern;
                    FilterEdit::Changed
                }
                None => FilterEdit::Ignored,
            },
        }
    }

    /// Drops the filter and closes its line. Call `arrange` after.
    pub fn clear_filter(&mut self) {
        self.filter = Pattern::default();
        self.typing = false;
    }

    /// Filters and sorts `rows` again; the cursor stays on its row when it is still
    /// shown, else goes to the row now at its old place (the next one, when its row went
    /// away), or the first.
    pub fn arrange<R: Arrangeable<C, Id = K>>(&mut self, rows: &[R]) {
        let sort = self.sort;
        let filter = &self.filter;
        self.order = ordered(
            rows,
            |row| filter.is_empty() || row.matches(filter),
            |a, b| match sort {
                Some((column, direction)) => direction.apply(a.compare(b, column)),
                None => Ordering::Equal,
            },
        );
        self.total = rows.len();
        let found = self
            .cursor
            .as_ref()
            .and_then(|id| self.order.iter().position(|&i| rows[i].id() == *id));
        match found {
            Some(at) => self.at = at,
            None => self.place_cursor(rows, self.at),
        }
    }

    /// Moves the cursor for a move key of the list (see `cursor::moved`), `page` rows
    /// on screen; whether the key was a move.
    pub fn move_cursor<R: Arrangeable<C, Id = K>>(
        &mut self,
        rows: &[R],
        action: Action,
        page: usize,
    ) -> bool {
        match moved(self.at, self.order.len(), action, page) {
            Some(next) => {
                self.place_cursor(rows, next);
                true
            }
            None => false,
        }
    }

    /// Puts the cursor on the row at `position` among those shown (the last when past
    /// the end; none when no row is shown).
    pub fn place_cursor<R: Arrangeable<C, Id = K>>(&mut self, rows: &[R], position: usize) {
        let at = position.min(self.order.len().saturating_sub(1));
        self.cursor = self.order.get(at).map(|&i| rows[i].id());
        self.at = if self.cursor.is_some() { at } else { 0 };
    }

    /// Puts the cursor on the row named `id`, if it is shown; whether it is.
    pub fn select<R: Arrangeable<C, Id = K>>(&mut self, rows: &[R], id: &K) -> bool {
        match self.order.iter().position(|&i| rows[i].id() == *id) {
            Some(at) => {
                self.at = at;
                self.cursor = Some(id.clone());
                true
            }
            None => false,
        }
    }
}

/// The keys the filter line reads, taken from whatever the terminal sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterKey {
    Char(char),
    Backspace,
    Enter,
    Esc,
}

/// `pattern` after a character or Backspace typed into its line; `None` when the key
/// does not change it (Backspace on an empty line, a control character, Enter, Esc).
#[must_use]
pub fn edited(pattern: &Pattern, key: FilterKey) -> Option<Pattern> {
    let mut typed = pattern.as_typed().to_owned();
    match key {
        FilterKey::Char(c) if !c.is_control() => typed.push(c),
        FilterKey::Backspace => {
            typed.pop()?;
        }
        FilterKey::Char(_) | FilterKey::Enter | FilterKey::Esc => return None,
    }
    Some(Pattern::new(&typed))
}

impl FilterKey {
    /// The filter line's reading of a key press: printable characters (with or without
    /// Shift), Backspace, Enter and Esc; `None` for the rest (arrows, Ctrl keys).
    #[must_use]
    pub fn of(key: &KeyEvent) -> Option<Self> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let typed = key.modifiers - KeyModifiers::SHIFT == KeyModifiers::NONE;
        match key.code {
            KeyCode::Char(c) if typed => Some(Self::Char(c)),
            KeyCode::Backspace => Some(Self::Backspace),
            KeyCode::Enter => Some(Self::Enter),
            KeyCode::Esc => Some(Self::Esc),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
