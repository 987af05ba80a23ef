//! Tests of the drawing backend: what it writes is what ratatui drew (checked through a
//! terminal emulator), in fewer bytes.

use ratatui::backend::Backend as _;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use super::*;

/// The bytes [`draw_cells`] writes to take a terminal showing `before` to `after`.
fn wire(before: &Buffer, after: &Buffer) -> Vec<u8> {
    let mut out = Vec::new();
    draw_cells(&mut out, after.area.width, before.diff(after).into_iter()).unwrap();
    out
}

/// The same through ratatui's own crossterm backend (what the console used before).
fn ratatui_wire(before: &Buffer, after: &Buffer) -> Vec<u8> {
    let sink = Sink::default();
    let mut backend = CrosstermBackend::new(sink.clone());
    backend.draw(before.diff(after).into_iter()).unwrap();
    sink.0.take()
}

/// A writer whose bytes can be read after it was handed to a backend.
#[derive(Clone, Default)]
struct Sink(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A terminal emulator after `frames` were drawn one after another, each as the change
/// from the one before (the first from a blank screen).
fn emulate(frames: &[&Buffer]) -> vt100::Parser {
    let area = frames[0].area;
    let mut parser = vt100::Parser::new(area.height, area.width, 0);
    let mut shown = Buffer::empty(area);
    for frame in frames {
        parser.process(&wire(&shown, frame));
        shown = (*frame).clone();
    }
    parser
}

/// Every cell of `buffer` as the emulator shows it: text, colours and bold.
fn assert_shows(parser: &vt100::Parser, buffer: &Buffer) {
    let screen = parser.screen();
    for y in 0..buffer.area.height {
        let mut skip = 0;
        for x in 0..buffer.area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let want = &buffer[(x, y)];
            let got = screen.cell(y, x).unwrap();
            // A blank cell reads "" whether written or not.
            assert_eq!(got.contents().trim(), want.symbol().trim(), "cell {x},{y}");
            assert_eq!(
                got.bold(),
                want.modifier.contains(Modifier::BOLD),
                "{x},{y}"
            );
            assert_eq!(got.inverse(), want.modifier.contains(Modifier::REVERSED));
            assert_eq!(got.fgcolor(), vt_colour(want.fg), "fg of {x},{y}");
            assert_eq!(got.bgcolor(), vt_colour(want.bg), "bg of {x},{y}");
            skip = cells::width(want.symbol()).saturating_sub(1);
        }
    }
}

fn vt_colour(colour: Color) -> vt100::Color {
    match colour {
        Color::Reset => vt100::Color::Default,
        Color::Black => vt100::Color::Idx(0),
        Color::Red => vt100::Color::Idx(1),
        Color::Green => vt100::Color::Idx(2),
        Color::Yellow => vt100::Color::Idx(3),
        Color::Gray => vt100::Color::Idx(7),
        Color::DarkGray => vt100::Color::Idx(8),
        Color::LightCyan => vt100::Color::Idx(14),
        Color::Indexed(n) => vt100::Color::Idx(n),
        Color::Rgb(r, g, b) => vt100::Color::Rgb(r, g, b),
        other => panic!("colour {other:?} not used in these tests"),
    }
}

fn moves(bytes: &[u8]) -> usize {
    let text = String::from_utf8_lossy(bytes).replace("\r\n", "\n");
    text.matches(['\n', '\r', '\x08']).count()
        + text
            .split('\x1b')
            .skip(1)
            .filter(|seq| {
                let end = seq.find(|c: char| c.is_ascii_alphabetic());
                end.is_some_and(|i| matches!(&seq[i..=i], "H" | "G" | "C" | "D" | "B"))
            })
            .count()
}

#[test]
fn a_row_of_wide_characters_is_written_with_no_cursor_move_between_cells() {
    let area = Rect::new(0, 0, 20, 2);
    let blank = Buffer::empty(area);
    let mut next = Buffer::empty(area);
    next.set_string(0, 0, "/文档/用户指南/第二部分", Style::default());
    next.set_string(0, 1, "日本語のテキスト", Style::default());
    let bytes = wire(&blank, &next);
    // One move to the start of the screen, one to the second row: none within a row.
    assert_eq!(moves(&bytes), 2, "{:?}", String::from_utf8_lossy(&bytes));
    assert_shows(&emulate(&[&next]), &next);
    // ratatui's backend moved the cursor after each wide character.
    let before = ratatui_wire(&blank, &next);
    assert!(
        before.len() > bytes.len() + 50,
        "{} vs {}",
        before.len(),
        bytes.len()
    );
}

#[test]
fn clusters_terminals_disagree_on_are_followed_by_a_move() {
    let area = Rect::new(0, 0, 10, 1);
    let mut next = Buffer::empty(area);
    next.set_string(0, 0, "🇯🇵ab👍🏽c", Style::default());
    let bytes = wire(&Buffer::empty(area), &next);
    let text = String::from_utf8_lossy(&bytes);
    // After the flag and after the skin tone, the next cell is reached by a move.
    assert!(
        text.contains("🇯🇵\x1b[3G") || text.contains("🇯🇵\x1b[1;3H"),
        "{text:?}"
    );
    assert!(
        text.contains("👍🏽\x1b[7G") || text.contains("👍🏽\x1b[1;7H"),
        "{text:?}"
    );
}

#[test]
fn a_changed_digit_in_a_column_costs_a_few_bytes_per_row() {
    // Ten rows whose fourth column is an age: "12s" becomes "13s" on each.
    let area = Rect::new(0, 0, 80, 12);
    let row = |age: &str, i: u16| format!("job_{i:02}  running  {age}  Rewrite the guide");
    let mut before = Buffer::empty(area);
    let mut after = Buffer::empty(area);
    let dim = Style::default().fg(Color::DarkGray);
    for i in 0..10 {
        before.set_string(0, i + 1, row("12s", i), dim);
        after.set_string(0, i + 1, row("13s", i), dim);
    }
    let bytes = wire(&before, &after);
    let text = String::from_utf8_lossy(&bytes);
    // One colour for all ten digits, then only moves down a row and back a column.
    assert!(bytes.len() <= 60, "{} bytes: {text:?}", bytes.len());
    assert_eq!(
        text.matches("3").count(),
        10 + text.matches("\x1b[").count() - 3
    );
    assert_shows(&emulate(&[&before, &after]), &after);
    assert!(ratatui_wire(&before, &after).len() > 2 * bytes.len());
}

#[test]
fn styles_change_in_one_sequence_and_a_frame_ends_plain() {
    let area = Rect::new(0, 0, 30, 3);
    let mut next = Buffer::empty(area);
    next.set_string(0, 0, "plain ", Style::default());
    next.set_string(6, 0, "bold", Style::default().add_modifier(Modifier::BOLD));
    next.set_string(
        10,
        0,
        "sel",
        Style::default()
            .fg(Color::Black)
            .bg(Color::LightCyan)
            .add_modifier(Modifier::REVERSED),
    );
    next.set_string(0, 1, "rgb", Style::default().fg(Color::Rgb(1, 2, 3)));
    next.set_string(4, 1, "idx", Style::default().bg(Color::Indexed(200)));
    next.set_string(0, 2, "after", Style::default().fg(Color::Red));
    let bytes = wire(&Buffer::empty(area), &next);
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.ends_with("\x1b[0m"), "{text:?}");
    // Bold off, reversed, black on light cyan: one sequence.
    assert!(text.contains("\x1b[0;7;30;106msel"), "{text:?}");
    assert_shows(&emulate(&[&next]), &next);
    // A second frame that changes only part of it is drawn right over the first.
    let mut second = next.clone();
    second.set_string(6, 0, "BOLD", Style::default());
    second.set_string(
        1,
        2,
        "X",
        Style::default()
            .fg(Color::Green)
            .add_modifier(Modifier::DIM),
    );
    assert_shows(&emulate(&[&next, &second]), &second);
}

#[test]
fn moves_take_the_shortest_form_and_never_count_on_a_pending_wrap() {
    // Down a row and back a column: a backspace and a line feed.
    assert_eq!(shortest_move(Some((10, 3)), (9, 4), 80), "\n\x08");
    // To the start of the next row.
    assert_eq!(shortest_move(Some((10, 3)), (0, 4), 80), "\r\n");
    // Forward on the same row.
    assert_eq!(shortest_move(Some((10, 3)), (14, 3), 80), "\x1b[4C");
    // From after the last column (the terminal waits there to wrap) only absolute moves
    // or a carriage return first.
    assert_eq!(shortest_move(Some((80, 3)), (79, 4), 80), "\x1b[5;80H");
    assert_eq!(shortest_move(Some((80, 3)), (1, 4), 80), "\r\n\x1b[C");
    // Nothing known: where the cursor goes, absolutely.
    assert_eq!(shortest_move(None, (0, 0), 80), "\x1b[H");
    assert_eq!(shortest_move(None, (4, 2), 80), "\x1b[3;5H");
    // Width not known: no move relative to the column the cursor may be waiting on.
    assert_eq!(shortest_move(Some((10, 3)), (9, 4), 0), "\r\n\x1b[9C");
}

#[test]
fn a_whole_screen_of_mixed_text_reaches_the_emulator_as_drawn_at_both_sizes() {
    for (width, height) in [(80, 24), (120, 40)] {
        let area = Rect::new(0, 0, width, height);
        let mut first = Buffer::empty(area);
        let mut second = Buffer::empty(area);
        for y in 0..height {
            let style = Style::default().fg(if y % 2 == 0 {
                Color::Yellow
            } else {
                Color::Gray
            });
            first.set_string(0, y, format!("{y:>3} /guides/文档/page-{y} é x"), style);
            second.set_string(0, y, format!("{y:>3} /guides/文档/page-{} é", y + 1), style);
            second.set_string(width - 3, y, "end", Style::default().bg(Color::Green));
        }
        assert_shows(&emulate(&[&first, &second]), &second);
    }
}

#[test]
fn the_cursor_is_hidden_once_and_again_after_the_screen_is_cleared() {
    let sink = Sink::default();
    let mut wire = Wire::new(sink.clone());
    for _ in 0..3 {
        wire.hide_cursor().unwrap();
    }
    assert_eq!(sink.0.take(), b"\x1b[?25l");
    wire.show_cursor().unwrap();
    wire.show_cursor().unwrap();
    assert_eq!(sink.0.take(), b"\x1b[?25h");
    // Taken back after `$EDITOR`: the console clears the screen, and hides it again.
    wire.clear().unwrap();
    sink.0.take();
    wire.hide_cursor().unwrap();
    assert_eq!(sink.0.take(), b"\x1b[?25l");
}
