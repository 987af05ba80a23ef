//! The sort, filter and cursor of a list, on a list of fruit.

use std::cmp::Ordering;

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum By {
    Name,
    Weight,
}

impl SortKey for By {
    const CYCLE: &'static [Self] = &[Self::Name, Self::Weight];

    fn first_direction(self) -> Direction {
        match self {
            Self::Name => Direction::Ascending,
            Self::Weight => Direction::Descending,
        }
    }
}

struct Fruit(&'static str, u32);

impl Arrangeable<By> for Fruit {
    type Id = &'static str;

    fn id(&self) -> &'static str {
        self.0
    }

    fn matches(&self, pattern: &Pattern) -> bool {
        pattern.matches(self.0)
    }

    fn compare(&self, other: &Self, column: By) -> Ordering {
        match column {
            By::Name => self.0.cmp(other.0),
            By::Weight => self.1.cmp(&other.1),
        }
    }
}

fn fruit() -> Vec<Fruit> {
    vec![
        Fruit("pear", 180),
        Fruit("apple", 150),
        Fruit("plum", 60),
        Fruit("banana", 120),
    ]
}

fn shown(arrangement: &Arrangement<By, &'static str>, rows: &[Fruit]) -> Vec<&'static str> {
    arrangement.order().iter().map(|&i| rows[i].0).collect()
}

fn typed(arrangement: &mut Arrangement<By, &'static str>, text: &str) {
    for c in text.chars() {
        assert_eq!(
            arrangement.edit_filter(FilterKey::Char(c)),
            FilterEdit::Changed
        );
    }
}

#[test]
fn a_new_list_is_sorted_by_the_first_column_its_own_way_with_the_cursor_on_top() {
    let rows = fruit();
    let mut list = Arrangement::<By, _>::default();
    list.arrange(&rows);
    assert_eq!(shown(&list, &rows), ["apple", "banana", "pear", "plum"]);
    assert_eq!(list.cursor(), Some(&"apple"));
    assert_eq!(list.cursor_position(), Some(0));
    assert_eq!(list.cursor_row(), Some(1));
    assert_eq!((list.len(), list.total()), (4, 4));
}

#[test]
fn s_steps_through_the_columns_and_the_cursor_stays_on_its_row() {
    let rows = fruit();
    let mut list = Arrangement::<By, _>::default();
    list.arrange(&rows);
    assert!(list.select(&rows, &"plum"));
    list.cycle_sort();
    list.arrange(&rows);
    assert_eq!(list.sort(), Some((By::Weight, Direction::Descending)));
    assert_eq!(shown(&list, &rows), ["pear", "apple", "banana", "plum"]);
    assert_eq!(list.cursor(), Some(&"plum"));
    assert_eq!(list.cursor_position(), Some(3));
    list.cycle_sort();
    assert_eq!(
        list.sort(),
        Some((By::Name, Direction::Ascending)),
        "round again"
    );
}

#[test]
fn reversing_turns_the_same_column_the_other_way() {
    let rows = fruit();
    let mut list = Arrangement::<By, _>::default();
    list.reverse();
    list.arrange(&rows);
    assert_eq!(shown(&list, &rows), ["plum", "pear", "banana", "apple"]);
    list.sort_by(None);
    list.reverse();
    assert_eq!(
        list.sort(),
        Some((By::Name, Direction::Descending)),
        "from the rows' own order, the first column reversed"
    );
}

#[test]
fn a_filter_narrows_the_rows_and_says_how_many_of_all() {
    let rows = fruit();
    let mut list = Arrangement::<By, _>::default();
    list.arrange(&rows);
    list.start_filter();
    assert!(list.typing());
    typed(&mut list, "P*");
    list.arrange(&rows);
    assert_eq!(shown(&list, &rows), ["apple", "pear", "plum"]);
    typed(&mut list, "l");
    list.arrange(&rows);
    assert_eq!(shown(&list, &rows), ["apple", "plum"]);
    assert_eq!((list.len(), list.total()), (2, 4));
    assert_eq!(list.edit_filter(FilterKey::Enter), FilterEdit::Kept);
    assert!(!list.typing());
    assert_eq!(list.filter().as_typed(), "P*l", "Enter keeps the filter");
}

#[test]
fn the_cursor_keeps_its_row_through_a_filter_that_keeps_it() {
    let rows = fruit();
    let mut list = Arrangement::<By, _>::default();
    list.arrange(&rows);
    list.select(&rows, &"plum");
    list.start_filter();
    typed(&mut list, "p");
    list.arrange(&rows);
    assert_eq!(list.cursor(), Some(&"plum"));
    assert_eq!(list.cursor_position(), Some(2));
}

#[test]
fn a_filter_that_hides_the_cursor_row_moves_it_to_a_shown_one() {
    let rows = fruit();
    let mut list = Arrangement::<By, _>::default();
    list.arrange(&rows);
    list.select(&rows, &"plum");
    list.start_filter();
    typed(&mut list, "an");
    list.arrange(&rows);
    assert_eq!(list.cursor(), Some(&"banana"));
    typed(&mut list, "zzz");
    list.arrange(&rows);
    assert_eq!(list.cursor(), None, "nothing shown, nothing selected");
    assert_eq!(list.cursor_position(), None);
    assert_eq!(list.cursor_row(), None);
}

#[test]
fn esc_clears_the_filter_and_backspace_on_an_empty_line_does_nothing() {
    let rows = fruit();
    let mut list = Arrangement::<By, _>::default();
    list.start_filter();
    assert_eq!(list.edit_filter(FilterKey::Backspace), FilterEdit::Ignored);
    typed(&mut list, "ba");
    assert_eq!(list.edit_filter(FilterKey::Backspace), FilterEdit::Changed);
    assert_eq!(list.filter().as_typed(), "b");
    assert_eq!(list.edit_filter(FilterKey::Esc), FilterEdit::Cleared);
    list.arrange(&rows);
    assert!(list.filter().is_empty() && !list.typing());
    assert_eq!(list.len(), 4);
    assert_eq!(
        list.edit_filter(FilterKey::Char('\u{7}')),
        FilterEdit::Ignored,
        "a control character is not typed"
    );
}

#[test]
fn a_row_that_goes_away_leaves_the_cursor_on_the_row_that_took_its_place() {
    let mut rows = fruit();
    let mut list = Arrangement::<By, _>::default();
    list.arrange(&rows);
    list.select(&rows, &"banana");
    rows.retain(|f| f.0 != "banana");
    list.arrange(&rows);
    assert_eq!(list.cursor(), Some(&"pear"));
    list.select(&rows, &"plum");
    rows.retain(|f| f.0 != "plum");
    list.arrange(&rows);
    assert_eq!(list.cursor(), Some(&"pear"), "the last went: the new last");
}

#[test]
fn moves_walk_the_rows_in_the_order_shown() {
    let rows = fruit();
    let mut list = Arrangement::<By, _>::default();
    list.cycle_sort();
    list.arrange(&rows);
    assert!(list.move_cursor(&rows, Action::Down, 2));
    assert_eq!(list.cursor(), Some(&"apple"));
    assert!(list.move_cursor(&rows, Action::Bottom, 2));
    assert_eq!(list.cursor(), Some(&"plum"));
    assert!(list.move_cursor(&rows, Action::PrevPage, 2));
    assert_eq!(list.cursor(), Some(&"apple"));
    assert!(!list.move_cursor(&rows, Action::Open, 2));
    assert!(!list.select(&rows, &"cherry"), "not a row");
    assert_eq!(list.cursor(), Some(&"apple"));
}

#[test]
fn the_filter_line_reads_characters_and_its_own_keys_only() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let key = |code, mods| FilterKey::of(&KeyEvent::new(code, mods));
    assert_eq!(
        key(KeyCode::Char('A'), KeyModifiers::SHIFT),
        Some(FilterKey::Char('A'))
    );
    assert_eq!(key(KeyCode::Char('u'), KeyModifiers::CONTROL), None);
    assert_eq!(key(KeyCode::Down, KeyModifiers::NONE), None);
    assert_eq!(
        key(KeyCode::Enter, KeyModifiers::NONE),
        Some(FilterKey::Enter)
    );
}
