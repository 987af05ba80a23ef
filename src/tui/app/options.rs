//! What the console was opened with: the settings of one run, resolved by the CLI.

use std::time::Duration;

use crate::tui::keymap::Keymap;

/// What the console was opened with.
#[derive(Debug, Clone)]
pub struct ConsoleOptions {
    pub profile: Option<String>,
    pub project: String,
    /// The service's host (and port), for the status bar.
    pub host: String,
    pub read_only: bool,
    pub notify: NotifyMode,
    /// Whether `o` can open a browser here (a local display), or must copy instead.
    pub has_display: bool,
    pub poll_interval: Duration,
    /// Uses per rolling hour of create and of message.
    pub hourly_limit: u32,
    /// Seeds the jitter of backoffs.
    pub seed: u64,
    /// The person's own keys, alert command and the warnings of the start.
    pub prefs: Prefs,
}

/// What the person set for themselves in `config.toml`, and what the start warned about.
#[derive(Debug, Clone, Default)]
pub struct Prefs {
    /// The keys in force: the help and the hints show these.
    pub keymap: Keymap,
    /// Run when a job reaches a final status (`notify_command`).
    pub alert: Option<AlertCommand>,
    /// Warnings printed before the screen opened (a config file others can read, a key of
    /// the wrong kind): shown once more as a notice, where they are seen.
    pub warnings: Vec<String>,
}

impl Prefs {
    /// The defaults with the person's `[keys.<context>]` applied (see [`Keymap::build`]).
    pub fn with_keys(
        overrides: &[crate::config::KeyOverride],
    ) -> Result<Self, crate::tui::keymap::KeymapError> {
        Ok(Self {
            keymap: Keymap::build(overrides)?,
            ..Self::default()
        })
    }
}

/// `notify_command`: the program and its arguments, and how long it may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertCommand {
    pub argv: Vec<String>,
    /// Past it the command's whole process group is killed (10 s; tests shorten it).
    pub limit: Duration,
}

impl AlertCommand {
    /// How long an alert command may run before it is killed.
    pub const LIMIT: Duration = Duration::from_secs(10);

    #[must_use]
    pub fn new(argv: Vec<String>) -> Self {
        Self {
            argv,
            limit: Self::LIMIT,
        }
    }
}

/// How a job reaching a final status is announced, beyond the notice line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NotifyMode {
    /// Nothing beyond the notice line.
    Off,
    /// The terminal bell.
    #[default]
    Bell,
    /// A desktop notification sent as a terminal escape (OSC 9), which reaches the
    /// user's own machine over SSH when the terminal supports it.
    Desktop,
}

impl std::str::FromStr for NotifyMode {
    type Err = String;

    /// `off`, `bell` or `desktop`, in any case.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.to_ascii_lowercase().as_str() {
            "off" => Ok(Self::Off),
            "bell" => Ok(Self::Bell),
            "desktop" => Ok(Self::Desktop),
            _ => Err(format!("{text:?} is not one of off, bell, desktop")),
        }
    }
}
