//! The console's drawing backend: ratatui's crossterm backend with its own `draw`, which
//! writes the changed cells in fewer bytes, for SSH sessions over slow links (issue 28).
//! ratatui's backend moves the cursor (`ESC[row;colH`, 6 to 9 bytes) before any cell that
//! does not follow the previous one, which includes every cell after a wide character; it
//! writes each change of modifier and colour as its own sequence, and ends every frame
//! with three resets. Here the cursor is followed as text is written (a wide character
//! moves it two cells, counted as `text::cells` counts them), a move is made only where
//! the cursor is not already, in the shortest form that gets there (`ESC[3C`, a
//! backspace, line feeds), the style of a cell is one SGR sequence, and a frame that
//! leaves a style set ends with one `ESC[0m`.

use std::cell::Cell as Shared;
use std::fmt::Write as _;
use std::io::{self, Write};

use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use ratatui::style::{Color, Modifier};

use crate::text as cells;

/// ratatui's crossterm backend on `W`, drawing with [`draw_cells`].
pub struct Wire<W: Write> {
    inner: CrosstermBackend<W>,
    /// Columns of the terminal as last asked (ratatui asks before every frame); 0 when not
    /// known yet.
    width: Shared<u16>,
    /// Whether the terminal's cursor is known to be hidden (`Some(true)`) or shown: ratatui
    /// hides it before every frame that does not place it, 6 bytes each time. Not known
    /// after the screen is cleared (the console clears it when it takes the terminal again,
    /// after `$EDITOR` or Ctrl+Z, which show the cursor).
    hidden: Option<bool>,
}

impl<W: Write> Wire<W> {
    pub fn new(writer: W) -> Self {
        Self {
            inner: CrosstermBackend::new(writer),
            width: Shared::new(0),
            hidden: None,
        }
    }
}

impl<W: Write> Backend for Wire<W> {
    type Error = io::Error;

    fn draw<'a, I>(&mut self, content: I) -> io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        draw_cells(&mut self.inner, self.width.get(), content)
    }

    fn append_lines(&mut self, n: u16) -> io::Result<()> {
        self.inner.append_lines(n)
    }

    fn hide_cursor(&mut self) -> io::Result<()> {
        if self.hidden == Some(true) {
            return Ok(());
        }
        self.inner.hide_cursor()?;
        self.hidden = Some(true);
        Ok(())
    }

    fn show_cursor(&mut self) -> io::Result<()> {
        if self.hidden == Some(false) {
            return Ok(());
        }
        self.inner.show_cursor()?;
        self.hidden = Some(false);
        Ok(())
    }

    fn get_cursor_position(&mut self) -> io::Result<Position> {
        self.inner.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> io::Result<()> {
        self.inner.set_cursor_position(position)
    }

    fn clear(&mut self) -> io::Result<()> {
        self.hidden = None;
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> io::Result<()> {
        self.hidden = None;
        self.inner.clear_region(clear_type)
    }

    fn size(&self) -> io::Result<Size> {
        let size = self.inner.size()?;
        self.width.set(size.width);
        Ok(size)
    }

    fn window_size(&mut self) -> io::Result<WindowSize> {
        self.inner.window_size()
    }

    fn flush(&mut self) -> io::Result<()> {
        Backend::flush(&mut self.inner)
    }
}

/// The style a cell is written in.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Pen {
    fg: Color,
    bg: Color,
    modifier: Modifier,
}

const PLAIN: Pen = Pen {
    fg: Color::Reset,
    bg: Color::Reset,
    modifier: Modifier::empty(),
};

/// Writes `content` (cells in the order ratatui's diff gives them: row by row, left to
/// right) to `out`, on a terminal `width` columns wide (0: not known). Starts and ends in
/// the plain style; assumes nothing about where the cursor is before the first cell.
///
/// # Errors
/// What writing to `out` returns.
pub fn draw_cells<'a, W: Write>(
    out: &mut W,
    width: u16,
    content: impl Iterator<Item = (u16, u16, &'a Cell)>,
) -> io::Result<()> {
    let mut bytes = Vec::with_capacity(1024);
    let mut at: Option<(u16, u16)> = None;
    let mut pen = PLAIN;
    for (x, y, cell) in content {
        if at != Some((x, y)) {
            bytes.extend_from_slice(shortest_move(at, (x, y), width).as_bytes());
        }
        let next = Pen {
            fg: cell.fg,
            bg: cell.bg,
            modifier: cell.modifier,
        };
        if next != pen {
            bytes.extend_from_slice(sgr(pen, next).as_bytes());
            pen = next;
        }
        let symbol = cell.symbol();
        bytes.extend_from_slice(symbol.as_bytes());
        at = advance(x, y, symbol);
    }
    if pen != PLAIN {
        bytes.extend_from_slice(b"\x1b[0m");
    }
    out.write_all(&bytes)
}

/// Where the cursor is after `symbol` is written at (x, y), when every terminal agrees:
/// one cell on for plain text, two for a wide character, not known for a cluster that
/// terminals draw at different widths (`cells::steady` changes it) or for no text at all.
fn advance(x: u16, y: u16, symbol: &str) -> Option<(u16, u16)> {
    let columns = match symbol.as_bytes() {
        [b' '..=b'~'] => 1,
        _ if cells::is_steady(symbol) => cells::width(symbol),
        _ => 0,
    };
    match columns {
        1 | 2 => x.checked_add(u16::try_from(columns).ok()?).map(|x| (x, y)),
        _ => None,
    }
}

/// The fewest bytes that take the cursor from `from` (not known: `None`) to `to`. Moves
/// relative to where the cursor is are made only from a column inside the screen: after
/// the last column a terminal holds the cursor on it, waiting to wrap.
fn shortest_move(from: Option<(u16, u16)>, to: (u16, u16), width: u16) -> String {
    let (x, y) = to;
    let mut best = match (x, y) {
        (0, 0) => "\x1b[H".to_owned(),
        (0, _) => format!("\x1b[{}H", u32::from(y) + 1),
        _ => format!("\x1b[{};{}H", u32::from(y) + 1, u32::from(x) + 1),
    };
    let Some((cx, cy)) = from else {
        return best;
    };
    let mut consider = |candidate: String| {
        if candidate.len() < best.len() {
            best = candidate;
        }
    };
    let inside = width > 0 && cx < width;
    if cy == y {
        if inside {
            consider(across(cx, x));
        }
    } else if cy < y {
        let dy = y - cy;
        let down = if dy <= 4 {
            "\n".repeat(usize::from(dy))
        } else {
            format!("\x1b[{dy}B")
        };
        // A carriage return first works from anywhere, even after the last column.
        consider(format!("\r{down}{}", across(0, x)));
        if inside {
            consider(format!("{down}{}", across(cx, x)));
        }
    }
    best
}

/// From column `from` to column `to` on the same row, the shortest way.
fn across(from: u16, to: u16) -> String {
    use std::cmp::Ordering;
    let absolute = format!("\x1b[{}G", u32::from(to) + 1);
    let relative = match to.cmp(&from) {
        Ordering::Equal => return String::new(),
        Ordering::Greater if to - from == 1 => "\x1b[C".to_owned(),
        Ordering::Greater => format!("\x1b[{}C", to - from),
        Ordering::Less if from - to <= 3 => "\x08".repeat(usize::from(from - to)),
        Ordering::Less => format!("\x1b[{}D", from - to),
    };
    if relative.len() <= absolute.len() {
        relative
    } else {
        absolute
    }
}

/// One SGR sequence from style `from` to style `to`: the changes alone, or a reset and
/// the whole of `to`, whichever is shorter.
fn sgr(from: Pen, to: Pen) -> String {
    let mut changes = Vec::new();
    let removed = from.modifier - to.modifier;
    let mut added = to.modifier - from.modifier;
    if removed.intersects(Modifier::BOLD | Modifier::DIM) {
        // 22 ends both: what stays of the two is set again.
        changes.push("22".to_owned());
        added |= to.modifier & (Modifier::BOLD | Modifier::DIM);
    }
    for (modifier, off) in OFF {
        if removed.contains(modifier) {
            changes.push(off.to_owned());
        }
    }
    changes.extend(on_codes(added));
    if from.fg != to.fg {
        changes.push(colour(to.fg, true));
    }
    if from.bg != to.bg {
        changes.push(colour(to.bg, false));
    }
    let mut whole = vec!["0".to_owned()];
    whole.extend(on_codes(to.modifier));
    if to.fg != Color::Reset {
        whole.push(colour(to.fg, true));
    }
    if to.bg != Color::Reset {
        whole.push(colour(to.bg, false));
    }
    let changes = changes.join(";");
    let whole = whole.join(";");
    let params = if changes.len() <= whole.len() {
        changes
    } else {
        whole
    };
    format!("\x1b[{params}m")
}

/// The codes that end a modifier (bold and dim end together, with 22, handled apart).
const OFF: [(Modifier, &str); 7] = [
    (Modifier::ITALIC, "23"),
    (Modifier::UNDERLINED, "24"),
    (Modifier::SLOW_BLINK, "25"),
    (Modifier::RAPID_BLINK, "25"),
    (Modifier::REVERSED, "27"),
    (Modifier::HIDDEN, "28"),
    (Modifier::CROSSED_OUT, "29"),
];

fn on_codes(modifier: Modifier) -> Vec<String> {
    let mut codes = Vec::new();
    for (flag, code) in [
        (Modifier::BOLD, 1),
        (Modifier::DIM, 2),
        (Modifier::ITALIC, 3),
        (Modifier::UNDERLINED, 4),
        (Modifier::SLOW_BLINK, 5),
        (Modifier::RAPID_BLINK, 6),
        (Modifier::REVERSED, 7),
        (Modifier::HIDDEN, 8),
        (Modifier::CROSSED_OUT, 9),
    ] {
        if modifier.contains(flag) {
            codes.push(code.to_string());
        }
    }
    codes
}

/// The SGR parameters of a colour: the terminal's 16 in their own codes (30–37, 90–97
/// and 40–47, 100–107, as `sgr::Sgr16` would rewrite them), others as 256 or RGB colours.
fn colour(colour: Color, fg: bool) -> String {
    let (base, bright, extended) = if fg { (30, 90, 38) } else { (40, 100, 48) };
    let index = match colour {
        Color::Reset => return (base + 9).to_string(),
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
        Color::Indexed(n) => n,
        Color::Rgb(r, g, b) => return format!("{extended};2;{r};{g};{b}"),
    };
    let mut out = String::new();
    let _ = match index {
        0..8 => write!(out, "{}", base + u16::from(index)),
        8..16 => write!(out, "{}", bright + u16::from(index) - 8),
        _ => write!(out, "{extended};5;{index}"),
    };
    out
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
