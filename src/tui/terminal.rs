//! Owning the terminal: raw mode, the alternate screen and (unless turned off) mouse
//! capture while the console runs, and given back on quit, on panic (a hook restores it before the message is printed), on
//! signals (the loop ends normally), while `$EDITOR` runs and while stopped by Ctrl+Z.
//! Also the escapes the console writes itself: clipboard (OSC 52), bell and desktop
//! notification (OSC 9), wrapped for tmux or screen when the console runs in one.

use std::io::{self, Stdout, Write as _};
use std::sync::Once;

use crossterm::Command as _;
use crossterm::clipboard::CopyToClipboard;
use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;

use super::clipboard::Clipboard;
use super::sgr::Sgr16;
use super::wire::Wire;

/// What the loop needs from the real terminal beyond drawing; tests give a recorder.
pub trait Host: Send {
    /// Writes an escape sequence straight to the terminal.
    fn write_escape(&mut self, bytes: &[u8]);
    /// Gives the terminal back (for `$EDITOR`).
    fn suspend(&mut self) -> io::Result<()>;
    /// Takes it again after `suspend`.
    fn resume(&mut self) -> io::Result<()>;
    /// Which multiplexer the escapes pass through (tests: none).
    fn multiplexer(&self) -> Multiplexer {
        Multiplexer::None
    }
    /// How a copy reaches the clipboard (tests: plain).
    fn clipboard(&self) -> Clipboard {
        Clipboard::Plain
    }
    /// Stops the process as a shell job (Ctrl+Z) until the shell continues it (`fg`).
    /// Called between `suspend` and `resume`; tests need not stop.
    fn stop_process(&mut self) {}
    /// Whether the terminal has hung up (its other side closed); if so, the process lets
    /// go of it, so nothing more is read from or written to it. Tests: never.
    fn hung_up(&mut self) -> bool {
        false
    }
}

/// Raw mode, the alternate screen and mouse capture for as long as it lives.
/// Also knows how a copy reaches the clipboard here (asked of tmux once, on entering).
pub struct TerminalGuard {
    active: bool,
    /// Clicks and the wheel are captured (taken again so after `$EDITOR` or Ctrl+Z).
    mouse: bool,
    multiplexer: Multiplexer,
    clipboard: Clipboard,
}

impl TerminalGuard {
    /// Takes the terminal (capturing the mouse when `mouse`) and returns a ratatui
    /// terminal drawing on stdout.
    pub fn enter(mouse: bool) -> io::Result<(Self, Terminal<Wire<Sgr16<Stdout>>>)> {
        install_panic_hook();
        take(mouse)?;
        let multiplexer = Multiplexer::detect(&|name| std::env::var(name).ok());
        let in_tmux = std::env::var_os("TMUX").is_some_and(|v| !v.is_empty());
        let guard = Self {
            active: true,
            mouse,
            multiplexer,
            clipboard: Clipboard::detect(multiplexer, in_tmux, &Clipboard::ask_tmux),
        };
        // Only what changed, in few bytes (see wire.rs); the first 16 colours in the codes
        // every colour terminal reads (see sgr.rs).
        let mut terminal = Terminal::new(Wire::new(Sgr16::new(io::stdout())))?;
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
        take(self.mouse)?;
        self.active = true;
        Ok(())
    }

    fn multiplexer(&self) -> Multiplexer {
        self.multiplexer
    }

    fn clipboard(&self) -> Clipboard {
        self.clipboard
    }

    fn hung_up(&mut self) -> bool {
        let gone = super::hangup::gone();
        if gone {
            let _ = super::hangup::detach();
        }
        gone
    }

    fn stop_process(&mut self) {
        // The default action of SIGTSTP stops the whole process; it returns on SIGCONT. In
        // a process group no shell controls (orphaned), the kernel ignores it: go on.
        if let Err(err) = signal_hook::low_level::raise(signal_hook::consts::SIGTSTP) {
            tracing::warn!("cannot stop for Ctrl+Z: {err}");
        }
    }
}

fn take(mouse: bool) -> io::Result<()> {
    enable_raw_mode()?;
    let mut out = io::stdout();
    let mut taken = execute!(
        out,
        EnterAlternateScreen,
        EnableBracketedPaste,
        cursor::Hide
    );
    if mouse && taken.is_ok() {
        taken = execute!(out, CaptureClicks);
    }
    if let Err(err) = taken {
        restore();
        return Err(err);
    }
    Ok(())
}

/// Mouse reports for clicks, drags and the wheel only: `?1000` (press, release, wheel),
/// `?1002` (motion while a button is held) and `?1006` (SGR coordinates, past column 223).
/// crossterm's `EnableMouseCapture` also asks for `?1003`, every movement of the mouse
/// with no button held, which the console has no use for and which over SSH sends a
/// report upstream for each cell the pointer crosses.
pub struct CaptureClicks;

impl crossterm::Command for CaptureClicks {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str("\x1b[?1000h\x1b[?1002h\x1b[?1006h")
    }
}

/// Lets the mouse go whatever mode it was left in (by this console, an older one, or
/// another program): SGR, urxvt, any-motion, button-motion and normal tracking off.
pub struct ReleaseMouse;

impl crossterm::Command for ReleaseMouse {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str("\x1b[?1006l\x1b[?1015l\x1b[?1003l\x1b[?1002l\x1b[?1000l")
    }
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

/// Leaves raw mode and the alternate screen, and lets the mouse go (always: it costs
/// nothing when it was not captured, and a terminal left capturing it is unusable). Safe
/// to call more than once.
pub fn restore() {
    let _ = execute!(
        io::stdout(),
        ReleaseMouse,
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

/// A terminal multiplexer between the console and the terminal the user sees. Neither
/// passes OSC 9 on by itself: it is sent wrapped in the multiplexer's passthrough
/// sequence. How a copy gets through is `clipboard::Clipboard`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Multiplexer {
    None,
    /// `$TMUX` is set, or `TERM` is `tmux*` (a tmux further out, over SSH).
    Tmux,
    /// `$STY` is set, or `TERM` is `screen*`.
    Screen,
}

impl Multiplexer {
    /// Reads `$TMUX`, `$STY` and `TERM` through `env`.
    #[must_use]
    pub fn detect(env: &dyn Fn(&str) -> Option<String>) -> Self {
        let set = |name: &str| env(name).is_some_and(|v| !v.is_empty());
        let term = env("TERM").unwrap_or_default();
        if set("TMUX") || term.starts_with("tmux") {
            Self::Tmux
        } else if set("STY") || term.starts_with("screen") {
            Self::Screen
        } else {
            Self::None
        }
    }

    /// `escape` as this multiplexer passes it on to the outer terminal. tmux: one DCS
    /// `tmux;` sequence with every ESC doubled (needs `allow-passthrough on` from tmux
    /// 3.3). screen: DCS sequences of at most 76 bytes each, as screen cuts longer ones.
    #[must_use]
    pub fn wrap(self, escape: &[u8]) -> Vec<u8> {
        match self {
            Self::None => escape.to_vec(),
            Self::Tmux => {
                let mut out = b"\x1bPtmux;".to_vec();
                for &byte in escape {
                    if byte == 0x1b {
                        out.push(0x1b);
                    }
                    out.push(byte);
                }
                out.extend_from_slice(b"\x1b\\");
                out
            }
            Self::Screen => {
                // screen ends its DCS at the first ST (ESC \): the escape inside ends
                // with BEL instead.
                let escape = match escape.strip_suffix(b"\x1b\\") {
                    Some(body) => [body, b"\x07"].concat(),
                    None => escape.to_vec(),
                };
                let mut out = Vec::new();
                for chunk in escape.chunks(76) {
                    out.extend_from_slice(b"\x1bP");
                    out.extend_from_slice(chunk);
                    out.extend_from_slice(b"\x1b\\");
                }
                out
            }
        }
    }
}

/// OSC 52: sets the clipboard of the terminal the user sits at, even over SSH. Written
/// by crossterm's `CopyToClipboard`.
#[must_use]
pub fn osc52(text: &str) -> Vec<u8> {
    let mut escape = String::new();
    // Writing to a `String` cannot fail.
    let _ = CopyToClipboard::to_clipboard_from(text).write_ansi(&mut escape);
    escape.into_bytes()
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
    fn the_mouse_is_asked_for_clicks_drags_and_the_wheel_not_every_movement() {
        let mut on = String::new();
        CaptureClicks.write_ansi(&mut on).unwrap();
        assert_eq!(on, "\x1b[?1000h\x1b[?1002h\x1b[?1006h");
        let mut off = String::new();
        ReleaseMouse.write_ansi(&mut off).unwrap();
        for mode in ["1000", "1002", "1003", "1006"] {
            assert!(off.contains(&format!("\x1b[?{mode}l")), "{off:?}");
        }
    }

    #[test]
    fn osc52_carries_the_text_in_base64() {
        assert_eq!(osc52("hi"), b"\x1b]52;c;aGk=\x1b\\");
    }

    #[test]
    fn multiplexers_are_told_apart_by_their_variables_and_term() {
        let detect = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, String)> = vars
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            Multiplexer::detect(&move |name| {
                vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
            })
        };
        assert_eq!(detect(&[("TERM", "xterm-256color")]), Multiplexer::None);
        assert_eq!(
            detect(&[
                ("TMUX", "/tmp/tmux-1/default,1,0"),
                ("TERM", "screen-256color")
            ]),
            Multiplexer::Tmux
        );
        assert_eq!(detect(&[("TERM", "tmux-256color")]), Multiplexer::Tmux);
        assert_eq!(detect(&[("STY", "12.pts-0.host")]), Multiplexer::Screen);
        assert_eq!(
            detect(&[("TERM", "screen.xterm-256color")]),
            Multiplexer::Screen
        );
        assert_eq!(
            detect(&[("TMUX", ""), ("TERM", "xterm")]),
            Multiplexer::None
        );
    }

    #[test]
    fn tmux_gets_the_escape_wrapped_with_every_esc_doubled() {
        assert_eq!(
            Multiplexer::Tmux.wrap(&osc9("docdeck", "job done")),
            b"\x1bPtmux;\x1b\x1b]9;docdeck: job done\x07\x1b\\"
        );
    }

    #[test]
    fn screen_gets_the_escape_in_short_dcs_pieces() {
        let long = "x".repeat(300);
        let bytes = Multiplexer::Screen.wrap(&osc52(&long));
        let text = String::from_utf8(bytes).unwrap();
        let pieces: Vec<&str> = text.split("\x1b\\").filter(|p| !p.is_empty()).collect();
        assert!(pieces.len() > 1, "{text:?}");
        for piece in &pieces {
            let inner = piece.strip_prefix("\x1bP").unwrap();
            assert!(inner.len() <= 76, "{piece:?}");
        }
        let joined: String = pieces.iter().map(|p| &p[2..]).collect();
        // Inside, the escape ends with BEL: an ST would end screen's DCS early.
        let copy = osc52(&long);
        let body = copy.strip_suffix(b"\x1b\\").unwrap();
        assert_eq!(joined.into_bytes(), [body, b"\x07"].concat());
    }

    #[test]
    fn osc9_cannot_carry_escapes_from_the_service() {
        let bytes = osc9("docdeck", "job \x1b]52;c;evil\x07 done");
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(text.matches('\x1b').count(), 1, "{text:?}");
        assert_eq!(text.matches('\x07').count(), 1, "{text:?}");
    }
}
