//! The one table every list of the console is drawn with (jobs, visitors): columns
//! (header, width rule, alignment), the window that follows the selection, and drawing,
//! kept apart as bottom's `DataTable` does. Only the rows on screen are built.
//!
//! Sorting and filtering are the table's too, split as bottom splits `state.rs` and
//! `sortable.rs`: what the user chose, the order it gives and the cursor by identity
//! live on the app side (`app::table::Arrangement`, documented there: implement
//! `SortKey` for the columns and `Arrangeable` for the rows); this side draws the choice
//! (`sortable::sorted_header` puts the arrow on the sorted column, `sortable::filter_title`
//! shows the filter and "3 of 120" in the title). Draw with `(cursor_position, len)` of
//! the arrangement and build row `i` from `rows[order()[i]]`.

mod fit;
mod sortable;
mod state;

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Row, Table};

pub use fit::Keep;
pub use sortable::{direction_of, filter_title, sorted_header};
pub use state::TableState;

/// One column: its header, how wide it is, and how its cells align.
#[derive(Debug, Clone)]
pub struct Column<'a> {
    pub header: Line<'a>,
    pub width: Constraint,
    pub align: Alignment,
    /// Which end of a cell that does not fit stays.
    pub keep: Keep,
}

impl<'a> Column<'a> {
    /// A left-aligned column.
    pub fn new(header: impl Into<Line<'a>>, width: Constraint) -> Self {
        Self {
            header: header.into(),
            width,
            align: Alignment::Left,
            keep: Keep::Start,
        }
    }

    /// A path or link: cut at its start, its end tells rows apart.
    #[must_use]
    pub fn keep_end(mut self) -> Self {
        self.keep = Keep::End;
        self
    }

    /// Numbers read best aligned on their last digit.
    #[must_use]
    pub fn right(mut self) -> Self {
        self.align = Alignment::Right;
        self
    }

    fn place<'c>(&self, line: Line<'c>) -> Line<'c> {
        match self.align {
            Alignment::Left => line,
            other => line.alignment(other),
        }
    }
}

/// How a table looks: its box, the styles of its header and selected row, and whether
/// its box says how many rows are hidden above and below.
#[derive(Debug, Clone)]
pub struct Look<'a> {
    pub block: Block<'a>,
    pub header: Style,
    pub selected: Style,
    pub more_marker: Option<Style>,
}

/// Draws `len` rows in `area` under a header: the window follows `selected` and is
/// remembered in `state`; `row(i)` builds the cells of row `i`, called only for the rows
/// on screen.
pub fn draw<'r>(
    frame: &mut Frame<'_>,
    area: Rect,
    columns: &[Column<'_>],
    look: Look<'_>,
    (selected, len): (usize, usize),
    state: &mut TableState,
    mut row: impl FnMut(usize) -> Vec<Line<'r>>,
) {
    // The box's top border and the header take two rows.
    let visible = usize::from(area.height.saturating_sub(2));
    let window = state.window(selected, visible, len);
    // Below the box's top border and the header.
    let rows_area = Rect {
        y: area.y.saturating_add(2),
        height: area.height.saturating_sub(2),
        ..area
    };
    state.drawn_at(rows_area, &window);
    let mut block = look.block;
    if let Some(style) = look.more_marker {
        let below = len.saturating_sub(window.end);
        if let Some(marker) = more_marker(window.start, below) {
            block = block.title(Line::from(Span::styled(marker, style)).right_aligned());
        }
    }
    let constraints: Vec<Constraint> = columns.iter().map(|c| c.width).collect();
    let widths = fit::column_widths(&constraints, block.inner(area).width);
    let rows: Vec<Row<'_>> = window
        .map(|i| {
            let cells = row(i).into_iter().zip(columns.iter().zip(&widths)).map(
                |(line, (column, &width))| {
                    Cell::from(column.place(fit::fit_line(line, width, column.keep)))
                },
            );
            let r = Row::new(cells);
            if i == selected {
                r.style(look.selected)
            } else {
                r
            }
        })
        .collect();
    let header = Row::new(columns.iter().zip(&widths).map(|(c, &width)| {
        Cell::from(c.place(fit::fit_line(c.header.clone(), width, Keep::Start)))
    }))
    .style(look.header);
    frame.render_widget(
        Table::new(rows, constraints)
            .header(header)
            .column_spacing(1)
            .block(block),
        area,
    );
}

/// ` ↑ 3 more · ↓ 12 more `: rows the window does not show, above and below.
fn more_marker(above: usize, below: usize) -> Option<String> {
    match (above, below) {
        (0, 0) => None,
        (0, b) => Some(format!(" ↓ {b} more ")),
        (a, 0) => Some(format!(" ↑ {a} more ")),
        (a, b) => Some(format!(" ↑ {a} more · ↓ {b} more ")),
    }
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::widgets::Borders;

    use super::*;

    fn render(state: &mut TableState, selected: usize, len: usize, height: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(24, height)).unwrap();
        let columns = [
            Column::new("NAME", Constraint::Min(6)),
            Column::new("N", Constraint::Length(4)).right(),
        ];
        terminal
            .draw(|frame| {
                let look = Look {
                    block: Block::default().borders(Borders::TOP),
                    header: Style::new(),
                    selected: Style::new(),
                    more_marker: Some(Style::new()),
                };
                draw(
                    frame,
                    frame.area(),
                    &columns,
                    look,
                    (selected, len),
                    state,
                    |i| vec![Line::from(format!("row{i}")), Line::from(i.to_string())],
                );
            })
            .unwrap();
        terminal.backend().to_string()
    }

    #[test]
    fn only_the_rows_on_screen_are_drawn_with_a_marker_of_the_rest() {
        let mut state = TableState::default();
        let screen = render(&mut state, 0, 10, 6);
        assert!(screen.contains("↓ 6 more"), "{screen}");
        assert!(
            screen.contains("row3") && !screen.contains("row4"),
            "{screen}"
        );
        // The header is aligned as its column is.
        assert!(
            screen.lines().nth(1).unwrap().ends_with("   N\""),
            "{screen}"
        );
        let screen = render(&mut state, 9, 10, 6);
        assert!(
            screen.contains("↑ 6 more") && !screen.contains('↓'),
            "{screen}"
        );
        assert!(
            screen.contains("row9") && !screen.contains("row5"),
            "{screen}"
        );
        assert!(screen.contains("   9"), "numbers to the right:\n{screen}");
    }

    #[test]
    fn a_shorter_screen_keeps_the_selected_row_and_pages_by_its_height() {
        let mut state = TableState::default();
        render(&mut state, 8, 10, 12);
        assert_eq!(state.offset(), 0);
        let screen = render(&mut state, 8, 10, 5);
        assert!(
            screen.contains("row8") && !screen.contains("row9"),
            "{screen}"
        );
        assert_eq!(state.visible(), 3);
    }

    #[test]
    fn the_marker_says_both_sides() {
        assert_eq!(more_marker(0, 0), None);
        assert_eq!(more_marker(2, 3).as_deref(), Some(" ↑ 2 more · ↓ 3 more "));
    }
}
