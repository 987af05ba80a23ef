//! How a copy (OSC 52) reaches the clipboard of the terminal the user sits at, decided
//! once at start, so that the escape is sent once, the way that works, and the notice says
//! what happened. Inside tmux it depends on two options, asked of tmux itself:
//! `set-clipboard on` takes a plain OSC 52 (and passes it on); otherwise
//! `allow-passthrough on` (tmux 3.3 and later; older ones always pass) lets a wrapped one
//! through; with neither (tmux's defaults: `external`, `off`) nothing can reach the
//! terminal, and the console shows the text to copy by hand instead.

use super::terminal::Multiplexer;

/// The way to the clipboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clipboard {
    /// No multiplexer, or tmux with `set-clipboard on`: the plain escape.
    #[default]
    Plain,
    /// GNU screen, or tmux that lets wrapped escapes through: the escape wrapped.
    Wrapped(Multiplexer),
    /// A tmux that cannot be asked (further out, over SSH): both, as either may work.
    Unknown,
    /// tmux takes no clipboard escape from programs: nothing is sent.
    Refused,
}

impl Clipboard {
    /// Decides for `multiplexer`, asking tmux through `tmux_option` (the value of
    /// `tmux show -gv NAME`: `None` when tmux could not be asked, `Some(Err)` when it does
    /// not know the option).
    pub fn detect(
        multiplexer: Multiplexer,
        in_tmux: bool,
        tmux_option: &dyn Fn(&str) -> Option<Result<String, ()>>,
    ) -> Self {
        match multiplexer {
            Multiplexer::None => Self::Plain,
            Multiplexer::Screen => Self::Wrapped(Multiplexer::Screen),
            Multiplexer::Tmux if !in_tmux => Self::Unknown,
            Multiplexer::Tmux => {
                let Some(set_clipboard) = tmux_option("set-clipboard") else {
                    return Self::Unknown;
                };
                if set_clipboard.as_deref().map(str::trim) == Ok("on") {
                    return Self::Plain;
                }
                match tmux_option("allow-passthrough") {
                    None => Self::Unknown,
                    // Before 3.3 tmux had no such option and passed every wrapped escape.
                    Some(Err(())) => Self::Wrapped(Multiplexer::Tmux),
                    Some(Ok(value)) if matches!(value.trim(), "on" | "all") => {
                        Self::Wrapped(Multiplexer::Tmux)
                    }
                    Some(Ok(_)) => Self::Refused,
                }
            }
        }
    }

    /// Asks the tmux this process runs in (`$TMUX`), with the `tmux` command.
    #[must_use]
    pub fn ask_tmux(name: &str) -> Option<Result<String, ()>> {
        let out = std::process::Command::new("tmux")
            .args(["show", "-gv", name])
            .stdin(std::process::Stdio::null())
            .output()
            .ok()?;
        if out.status.success() {
            Some(Ok(String::from_utf8_lossy(&out.stdout).into_owned()))
        } else if String::from_utf8_lossy(&out.stderr).contains("invalid option") {
            Some(Err(()))
        } else {
            None
        }
    }

    /// The bytes that carry `escape` (an OSC 52) to the clipboard, if any can.
    #[must_use]
    pub fn bytes(self, escape: &[u8]) -> Option<Vec<u8>> {
        match self {
            Self::Plain => Some(escape.to_vec()),
            Self::Wrapped(multiplexer) => Some(multiplexer.wrap(escape)),
            Self::Unknown => Some([escape, &Multiplexer::Tmux.wrap(escape)].concat()),
            Self::Refused => None,
        }
    }

    /// The notice of a copy of `what` (`the PR link`), with `text` when it must be
    /// copied by hand.
    #[must_use]
    pub fn notice(self, what: &str, text: &str) -> String {
        match self {
            Self::Plain | Self::Wrapped(_) => format!("copied {what} to the clipboard (OSC 52)"),
            Self::Unknown => format!(
                "sent {what} to the clipboard (OSC 52); a tmux on the way passes it only with \
                 set-clipboard on or allow-passthrough on"
            ),
            Self::Refused => format!(
                "tmux passes no clipboard escape here (set -g set-clipboard on, or \
                 allow-passthrough on, would): copy {what} by hand: {}",
                crate::text::sanitize(text)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmux(set_clipboard: &str, passthrough: Option<&str>) -> Clipboard {
        let (set_clipboard, passthrough) =
            (set_clipboard.to_owned(), passthrough.map(str::to_owned));
        Clipboard::detect(Multiplexer::Tmux, true, &move |name| match name {
            "set-clipboard" => Some(Ok(format!("{set_clipboard}\n"))),
            _ => Some(passthrough.clone().map(|v| format!("{v}\n")).ok_or(())),
        })
    }

    #[test]
    fn inside_tmux_the_escape_goes_once_the_way_tmux_lets_it() {
        let escape = crate::tui::terminal::osc52("hi");
        // Both on: tmux takes the plain one; the wrapped one would arrive a second time.
        let both = tmux("on", Some("on"));
        assert_eq!(both, Clipboard::Plain);
        assert_eq!(both.bytes(&escape), Some(escape.clone()));
        let through = tmux("external", Some("on"));
        assert_eq!(through, Clipboard::Wrapped(Multiplexer::Tmux));
        let wrapped = through.bytes(&escape).unwrap();
        assert!(wrapped.starts_with(b"\x1bPtmux;"), "{wrapped:?}");
        assert_eq!(wrapped.windows(4).filter(|w| *w == b"]52;").count(), 1);
        // An old tmux without allow-passthrough passes wrapped escapes.
        assert_eq!(tmux("off", None), Clipboard::Wrapped(Multiplexer::Tmux));
    }

    #[test]
    fn tmux_defaults_let_nothing_through_and_the_text_is_shown_instead() {
        let refused = tmux("external", Some("off"));
        assert_eq!(refused, Clipboard::Refused);
        assert_eq!(refused.bytes(b"\x1b]52;c;aGk=\x1b\\"), None);
        let notice = refused.notice("the PR link", "https://x/pull/1");
        assert!(notice.contains("https://x/pull/1"), "{notice}");
        assert!(!notice.contains("copied the"), "{notice}");
    }

    #[test]
    fn a_tmux_that_cannot_be_asked_gets_both_and_the_notice_says_so() {
        let far = Clipboard::detect(Multiplexer::Tmux, false, &|_| panic!("not asked"));
        assert_eq!(far, Clipboard::Unknown);
        assert!(far.notice("the job id", "j").contains("set-clipboard on"));
        let gone = Clipboard::detect(Multiplexer::Tmux, true, &|_| None);
        assert_eq!(gone, Clipboard::Unknown);
        assert_eq!(
            Clipboard::detect(Multiplexer::None, false, &|_| None),
            Clipboard::Plain
        );
    }
}
