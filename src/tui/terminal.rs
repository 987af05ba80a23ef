//! Owning the terminal: raw mode and the alternate screen while the console runs, and
//! given back on quit, on panic (a hook restores it before the message is printed), on
//! signals (the loop ends normally) and while `$EDITOR` runs. Also the escapes the
//! console writes itself: clipboard (OSC 52), bell and desktop notification (OSC 9).

use std::io::{self, Stdout, Write as _};
use std::sync::Once;

use base64::Engine as _;
use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// What the loop needs from the real terminal beyond drawing; tests give a recorder.
pub trait Host: Send {
    /// Writes an escape sequence straight to the terminal.
    fn write_escape(&mut self, bytes: &[u8]);
    /// Gives the terminal back (for `$EDITOR`).
    fn suspend(&mut self) -> io::Result<()>;
    /// Takes it again after `suspend`.
    fn resume(&mut self) -> io::Result<()>;
}

/// Raw mode and the alternate screen for as long as it lives.
pub struct TerminalGuard {
    active: bool,
}

impl TerminalGuard {
    /// Takes the terminal and returns a ratatui terminal drawing on stdout.
    pub fn enter() -> io::Result<(Self, Terminal<CrosstermBackend<Stdout>>)> {
        install_panic_hook();
        take()?;
        let guard = Self { active: true };
        let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
        full_redraw(&mut terminal)?;
        Ok((guard, terminal))
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        if self.active {
            restore();
        }
    }
}

impl Host for TerminalGuard {
    fn write_escape(&mut self, bytes: &[u8]) {
        let mut out = io::stdout();
        let _ = out.write_all(bytes).and_then(|()| out.flush());
    }

    fn suspend(&mut self) -> io::Result<()> {
        self.active = false;
        restore();
        Ok(())
    }

    fn resume(&mut self) -> io::Result<()> {
        take()?;
        self.active = true;
        Ok(())
    }
}

fn take() -> io::Result<()> {
    enable_raw_mode()?;
    if let Err(err) = execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableBracketedPaste,
        cursor::Hide
    ) {
        restore();
        return Err(err);
    }
    Ok(())
}

/// Clears the screen and forgets the last frame, so the next draw writes every cell.
/// (`Terminal::clear` would ask the terminal for the cursor position, which a terminal
/// that does not answer turns into a failure.)
pub fn full_redraw<B: ratatui::backend::Backend>(
    terminal: &mut Terminal<B>,
) -> Result<(), B::Error> {
    let size = terminal.size()?;
    terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
}

/// Leaves raw mode and the alternate screen. Safe to call more than once.
pub fn restore() {
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// OSC 52: sets the clipboard of the terminal the user sits at, even over SSH.
#[must_use]
pub fn osc52(text: &str) -> Vec<u8> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    format!("\x1b]52;c;{encoded}\x07").into_bytes()
}

/// OSC 9: a desktop notification in terminals that support it (iTerm2, kitty, WezTerm,
/// Windows Terminal, foot, Ghostty); others ignore it.
#[must_use]
pub fn osc9(title: &str, body: &str) -> Vec<u8> {
    let clean = crate::text::excerpt(&format!("{title}: {body}"), 200).replace(';', ",");
    format!("\x1b]9;{clean}\x07").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_carries_the_text_in_base64() {
        assert_eq!(osc52("hi"), b"\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn osc9_cannot_carry_escapes_from_the_service() {
        let bytes = osc9("docdeck", "job \x1b]52;c;evil\x07 done");
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(text.matches('\x1b').count(), 1, "{text:?}");
        assert_eq!(text.matches('\x07').count(), 1, "{text:?}");
    }
}
