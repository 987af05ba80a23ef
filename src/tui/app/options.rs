//! What the console was opened with: the settings of one run, resolved by the CLI.

use std::time::Duration;

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
    /// The prompts `n` in the visitors pane builds from marked pages (Ctrl+T cycles).
    pub templates: Vec<crate::config::Template>,
    /// Rows up to which `w` holds a whole range (above: the service's pages).
    pub whole_max_rows: usize,
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
