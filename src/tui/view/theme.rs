//! Colours and glyphs. Three themes: `terminal` (the 16 ANSI colours, so it follows the
//! person's own palette; the default), `dark` and `light` (256 colours chosen for a dark
//! or a light background), each element open to a `[theme.styles]` override. With
//! `NO_COLOR` every style drops its colours but keeps its modifiers (a background becomes
//! reversed, dim text dim), and every status keeps its glyph and word, so nothing
//! depends on colour; the feedback's emoji become words (`up`, `down`), as in ASCII.

mod style;

use ratatui::style::{Color, Modifier, Style};

use crate::api::JobStatus;
use crate::config::{Located, StyleOverride};
use crate::tui::app::NoticeKind;

/// One thing on screen that has a style of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Element {
    /// Titles, the keys in the help, the name at the top left.
    Accent,
    /// What is there but secondary: hints, ages, the action names in the help.
    Dim,
    /// Headings and the panes not focused.
    Bold,
    /// The row under the cursor and the focused tab.
    Selected,
    Error,
    Warning,
    /// The notice of a job that ended well.
    Done,
    Active,
    Completed,
    Failed,
    Archived,
    /// A status this build does not know.
    Unknown,
    /// Human visitors, in the visitors pane.
    Human,
    /// AI visitors.
    Ai,
}

/// Every element with its name in `[theme.styles]`.
pub const ELEMENTS: [(Element, &str); 14] = [
    (Element::Accent, "accent"),
    (Element::Dim, "dim"),
    (Element::Bold, "bold"),
    (Element::Selected, "selected"),
    (Element::Error, "error"),
    (Element::Warning, "warning"),
    (Element::Done, "done"),
    (Element::Active, "active"),
    (Element::Completed, "completed"),
    (Element::Failed, "failed"),
    (Element::Archived, "archived"),
    (Element::Unknown, "unknown"),
    (Element::Human, "human"),
    (Element::Ai, "ai"),
];

/// The themes, by their name in `config.toml`.
pub const THEMES: [&str; 3] = ["terminal", "dark", "light"];

/// Why the theme or a style of `config.toml` cannot be used, with its line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ThemeError {
    pub line: usize,
    pub message: String,
}

/// Styles for one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    styles: [Style; ELEMENTS.len()],
    /// Words stand in for the console's emoji (`up` for 👍): under `NO_COLOR` and in
    /// ASCII, where an emoji would be a `?` or lean on colour.
    words: bool,
}

impl Default for Theme {
    /// `terminal`: the 16 ANSI colours of the person's palette.
    fn default() -> Self {
        Self::terminal()
    }
}

const fn fg(color: Color) -> Style {
    Style::new().fg(color)
}

const fn bold(style: Style) -> Style {
    style.add_modifier(Modifier::BOLD)
}

impl Theme {
    /// A palette in the order of [`ELEMENTS`].
    const fn of(styles: [Style; ELEMENTS.len()]) -> Self {
        Self {
            styles,
            words: false,
        }
    }

    /// The theme with words for the emoji (a locale that is not UTF-8).
    #[must_use]
    pub fn in_words(mut self) -> Self {
        self.words = true;
        self
    }

    /// Whether words stand in for the emoji.
    #[must_use]
    pub fn words(self) -> bool {
        self.words
    }

    fn terminal() -> Self {
        Self::of([
            bold(fg(Color::Cyan)),
            fg(Color::DarkGray),
            bold(Style::new()),
            Style::new().add_modifier(Modifier::REVERSED),
            bold(fg(Color::Red)),
            fg(Color::Yellow),
            bold(fg(Color::Green)),
            fg(Color::Yellow),
            fg(Color::Green),
            fg(Color::Red),
            fg(Color::DarkGray),
            fg(Color::Magenta),
            fg(Color::Blue),
            fg(Color::Magenta),
        ])
    }

    fn dark() -> Self {
        let i = Color::Indexed;
        Self::of([
            bold(fg(i(81))),
            fg(i(245)),
            bold(Style::new()),
            Style::new().fg(i(231)).bg(i(24)),
            bold(fg(i(203))),
            fg(i(221)),
            bold(fg(i(114))),
            fg(i(221)),
            fg(i(114)),
            fg(i(203)),
            fg(i(245)),
            fg(i(177)),
            fg(i(75)),
            fg(i(177)),
        ])
    }

    fn light() -> Self {
        let i = Color::Indexed;
        Self::of([
            bold(fg(i(25))),
            fg(i(242)),
            bold(Style::new()),
            Style::new().fg(i(16)).bg(i(153)),
            bold(fg(i(160))),
            fg(i(130)),
            bold(fg(i(28))),
            fg(i(130)),
            fg(i(28)),
            fg(i(160)),
            fg(i(242)),
            fg(i(90)),
            fg(i(25)),
            fg(i(90)),
        ])
    }

    /// The theme of `name` (`terminal` when none), with the person's overrides.
    pub fn build(
        name: Option<&Located<String>>,
        overrides: &[StyleOverride],
    ) -> Result<Self, ThemeError> {
        let mut theme = match name.map(|n| (n.value.as_str(), n.line)) {
            None | Some(("terminal", _)) => Self::terminal(),
            Some(("dark", _)) => Self::dark(),
            Some(("light", _)) => Self::light(),
            Some((other, line)) => {
                return Err(ThemeError {
                    line,
                    message: format!(
                        "there is no theme {other:?}: choose one of {}",
                        THEMES.join(", ")
                    ),
                });
            }
        };
        for entry in overrides {
            let at = ELEMENTS
                .iter()
                .position(|(_, element)| *element == entry.element)
                .ok_or_else(|| ThemeError {
                    line: entry.line,
                    message: format!(
                        "{:?} is not an element of [theme.styles]: the elements are {}",
                        entry.element,
                        ELEMENTS.map(|(_, name)| name).join(", ")
                    ),
                })?;
            theme.styles[at] = style::parse(&entry.style).map_err(|reason| ThemeError {
                line: entry.line,
                message: format!(
                    "the style of {} cannot be read: {reason}. A style takes {}",
                    entry.element,
                    style::SYNTAX
                ),
            })?;
        }
        Ok(theme)
    }

    /// The theme under `NO_COLOR`: no colour anywhere, the modifiers kept. What had a
    /// background is reversed and dim text is dim, so both still stand out.
    #[must_use]
    pub fn without_color(self) -> Self {
        let mut styles = self.styles;
        for (at, style) in styles.iter_mut().enumerate() {
            let mut plain = Style::new()
                .add_modifier(style.add_modifier)
                .remove_modifier(style.sub_modifier);
            if style.bg.is_some_and(|bg| bg != Color::Reset) {
                plain = plain.add_modifier(Modifier::REVERSED);
            }
            let dim = matches!(ELEMENTS[at].0, Element::Dim | Element::Archived);
            if dim && plain == Style::new() {
                plain = plain.add_modifier(Modifier::DIM);
            }
            *style = plain;
        }
        Self {
            styles,
            words: true,
        }
    }

    /// The style of one element.
    #[must_use]
    pub fn style(self, element: Element) -> Style {
        let at = ELEMENTS
            .iter()
            .position(|(e, _)| *e == element)
            .unwrap_or(0);
        self.styles[at]
    }

    #[must_use]
    pub fn dim(self) -> Style {
        self.style(Element::Dim)
    }

    #[must_use]
    pub fn bold(self) -> Style {
        self.style(Element::Bold)
    }

    /// The row under the cursor and the focused tab.
    #[must_use]
    pub fn selected(self) -> Style {
        self.style(Element::Selected)
    }

    #[must_use]
    pub fn accent(self) -> Style {
        self.style(Element::Accent)
    }

    #[must_use]
    pub fn error(self) -> Style {
        self.style(Element::Error)
    }

    #[must_use]
    pub fn warning(self) -> Style {
        self.style(Element::Warning)
    }

    #[must_use]
    pub fn human(self) -> Style {
        self.style(Element::Human)
    }

    #[must_use]
    pub fn ai(self) -> Style {
        self.style(Element::Ai)
    }

    #[must_use]
    pub fn notice(self, kind: NoticeKind) -> Style {
        match kind {
            NoticeKind::Info => Style::new(),
            NoticeKind::Done => self.style(Element::Done),
            NoticeKind::Warning => self.warning(),
            NoticeKind::Error => self.error(),
        }
    }

    /// Glyph, word and style of a status; `None` is a job not read yet.
    #[must_use]
    pub fn status(self, status: Option<&JobStatus>) -> (String, Style) {
        match status {
            None => ("· -".to_owned(), self.dim()),
            Some(JobStatus::Active) => ("● active".to_owned(), self.style(Element::Active)),
            Some(JobStatus::Completed) => {
                ("✓ completed".to_owned(), self.style(Element::Completed))
            }
            Some(JobStatus::Failed) => ("✗ failed".to_owned(), self.style(Element::Failed)),
            Some(JobStatus::Archived) => ("▪ archived".to_owned(), self.style(Element::Archived)),
            Some(other @ JobStatus::Unknown(_)) => (
                format!("? {}", crate::text::sanitize(&other.to_string())),
                self.style(Element::Unknown),
            ),
        }
    }
}
