//! What the console was opened with: the settings of one run, resolved by the CLI.

use std::time::Duration;

use crate::tui::keymap::Keymap;
use crate::tui::message::AlertCommand;

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
    /// The jobs list's columns, in order (`columns` in the profile).
    pub columns: Vec<JobColumn>,
    /// Clicks and the wheel are read (`mouse = false` or `--no-mouse` turn it off).
    pub mouse: bool,
    /// The person's own keys, alert command and the warnings of the start.
    pub prefs: Prefs,
    /// How a copy reaches the clipboard (set by the loop from the terminal it owns), so
    /// that a notice says "copied" only when it can be.
    pub clipboard: crate::tui::clipboard::Clipboard,
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

/// A column of the jobs list, as `columns = [...]` in the profile names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobColumn {
    Status,
    Id,
    /// Time since the job was created.
    Age,
    /// Time since a change of its status was last seen.
    Changed,
    /// Shown from 110 columns of width.
    Model,
    Repository,
    Pr,
    Prompt,
    /// The impact read with `i` in the job's detail (`+12% humans`), `-` otherwise: off
    /// unless `columns` names it.
    Impact,
}

impl JobColumn {
    /// Every column, with the name a profile gives it.
    pub const NAMES: &[(&str, Self)] = &[
        ("status", Self::Status),
        ("id", Self::Id),
        ("age", Self::Age),
        ("changed", Self::Changed),
        ("model", Self::Model),
        ("repository", Self::Repository),
        ("pr", Self::Pr),
        ("prompt", Self::Prompt),
        ("impact", Self::Impact),
    ];

    /// The columns shown when the profile chooses none.
    pub const DEFAULT: &[Self] = &[
        Self::Status,
        Self::Id,
        Self::Age,
        Self::Model,
        Self::Repository,
        Self::Pr,
        Self::Prompt,
    ];

    /// The columns a profile names, in its order; the first unknown name is an error.
    pub fn parse_list(names: &[String]) -> Result<Vec<Self>, UnknownColumn> {
        names
            .iter()
            .map(|name| {
                let wanted = name.trim().to_ascii_lowercase();
                Self::NAMES
                    .iter()
                    .find(|(known, _)| *known == wanted)
                    .map(|(_, column)| *column)
                    .ok_or_else(|| UnknownColumn { name: name.clone() })
            })
            .collect()
    }
}

/// A name in `columns = [...]` that is no column of the jobs list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown column {name:?} in columns; the columns are: {}",
    column_names()
)]
pub struct UnknownColumn {
    pub name: String,
}

fn column_names() -> String {
    JobColumn::NAMES
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_named_in_any_case_and_kept_in_the_order_given() {
        let names = ["Prompt", " status ", "changed"].map(String::from);
        assert_eq!(
            JobColumn::parse_list(&names),
            Ok(vec![
                JobColumn::Prompt,
                JobColumn::Status,
                JobColumn::Changed
            ])
        );
    }

    #[test]
    fn an_unknown_column_is_named_with_every_valid_one() {
        let names = ["status", "colour"].map(String::from);
        let err = JobColumn::parse_list(&names).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown column \"colour\" in columns; the columns are: status, id, age, changed, model, repository, pr, prompt, impact"
        );
    }
}
