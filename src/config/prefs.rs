//! The person's own settings in `config.toml`: `[keys.<context>]`, `theme` with
//! `[theme.styles]`, and `notify_command`. Read here as text, each with the line it came
//! from; the console gives them meaning (which actions, keys and styles exist), so every
//! mistake it finds can still name its line.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use toml::Spanned;

use super::file::{FileConfig, read_file};
use super::{ConfigError, Profile};

/// The person's settings of the file at `path` (the default one when `None`), for the
/// demo, which reads nothing else of the file. A missing file gives the defaults.
pub fn read_preferences(path: Option<&Path>) -> Result<Preferences, ConfigError> {
    let path = match path {
        Some(path) => path.to_path_buf(),
        None => super::default_config_path()?,
    };
    read_file(&path)?.0.preferences(&Profile::default(), &path)
}

impl FileConfig {
    /// The person's settings, with `notify_command` of `profile` before the file's.
    pub(super) fn preferences(
        &self,
        profile: &Profile,
        path: &Path,
    ) -> Result<Preferences, ConfigError> {
        let located = |error| ConfigError::Preference {
            path: path.to_path_buf(),
            error,
        };
        let mut found = read(&self.text, &self.keys, self.theme.as_ref()).map_err(located)?;
        found.notify_command = profile
            .notify_command
            .as_ref()
            .or(self.notify_command.as_ref())
            .map(|value| notify_command(&self.text, value))
            .transpose()
            .map_err(located)?;
        Ok(found)
    }
}

/// A value of the file and the line it is on (1 for the first line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T> {
    pub value: T,
    pub line: usize,
}

/// One `action = "key"` or `action = ["key", "key"]` of a `[keys.<context>]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyOverride {
    pub context: String,
    pub action: String,
    /// The keys as written; an empty list unbinds the action.
    pub keys: Vec<String>,
    pub line: usize,
}

/// One `element = "style"` of `[theme.styles]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StyleOverride {
    pub element: String,
    pub style: String,
    pub line: usize,
}

/// The person's keys, colours and alert command, in the order of the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preferences {
    pub keys: Vec<KeyOverride>,
    /// `theme = "dark"`, or `name` of a `[theme]` table.
    pub theme: Option<Located<String>>,
    pub styles: Vec<StyleOverride>,
    /// The program and its arguments run when a job reaches a final status: the
    /// profile's, else the file's top-level one.
    pub notify_command: Option<Vec<String>>,
}

/// Something of the person's settings that is of the wrong kind, with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefsError {
    pub line: usize,
    pub message: String,
}

/// `[keys]` as written: context, then action, then a key or a list of keys.
pub(super) type RawKeys =
    BTreeMap<Spanned<String>, BTreeMap<Spanned<String>, Spanned<toml::Value>>>;

/// `theme = "name"` or a `[theme]` table with `name` and `styles`.
#[derive(Debug, Default)]
pub(super) struct RawTheme {
    name: Option<Spanned<String>>,
    /// `theme = "light"`: its line is the one of the `Spanned` around the setting.
    plain: Option<String>,
    styles: BTreeMap<Spanned<String>, Spanned<String>>,
}

impl<'de> Deserialize<'de> for RawTheme {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ThemeVisitor)
    }
}

struct ThemeVisitor;

impl<'de> Visitor<'de> for ThemeVisitor {
    type Value = RawTheme;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a theme name ("dark", "light" or "terminal") or a [theme] table"#)
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<RawTheme, E> {
        Ok(RawTheme {
            plain: Some(name.to_owned()),
            ..RawTheme::default()
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawTheme, A::Error> {
        let mut theme = RawTheme::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "name" => theme.name = Some(map.next_value()?),
                "styles" => theme.styles = map.next_value()?,
                other => {
                    return Err(de::Error::unknown_field(other, &["name", "styles"]));
                }
            }
        }
        Ok(theme)
    }
}

/// The line of a byte offset of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(1, |before| before.matches('\n').count() + 1)
}

/// Turns the raw tables into [`Preferences`]; `notify_command` is chosen by the caller.
pub(super) fn read(
    text: &str,
    keys: &RawKeys,
    theme: Option<&Spanned<RawTheme>>,
) -> Result<Preferences, PrefsError> {
    let line = |span: std::ops::Range<usize>| line_of(text, span.start);
    let mut overrides = Vec::new();
    for (context, actions) in keys {
        for (action, value) in actions {
            overrides.push(KeyOverride {
                context: context.get_ref().clone(),
                action: action.get_ref().clone(),
                keys: key_list(value.get_ref()).map_err(|message| PrefsError {
                    line: line(value.span()),
                    message: format!(
                        "[keys.{}] {}: {message}",
                        context.get_ref(),
                        action.get_ref()
                    ),
                })?,
                line: line(action.span()),
            });
        }
    }
    overrides.sort_by_key(|o| o.line);
    let (name, mut styles) = match theme {
        None => (None, Vec::new()),
        Some(spanned) => {
            let raw = spanned.get_ref();
            let name = match &raw.name {
                Some(name) => Some(Located {
                    value: name.get_ref().clone(),
                    line: line(name.span()),
                }),
                None => raw.plain.clone().map(|value| Located {
                    value,
                    line: line(spanned.span()),
                }),
            };
            let styles = raw
                .styles
                .iter()
                .map(|(element, style)| StyleOverride {
                    element: element.get_ref().clone(),
                    style: style.get_ref().clone(),
                    line: line(element.span()),
                })
                .collect();
            (name, styles)
        }
    };
    styles.sort_by_key(|s: &StyleOverride| s.line);
    Ok(Preferences {
        keys: overrides,
        theme: name,
        styles,
        notify_command: None,
    })
}

fn key_list(value: &toml::Value) -> Result<Vec<String>, String> {
    let wrong = || r#"give a key ("ctrl-q") or a list of keys (["j", "down"])"#.to_owned();
    match value {
        toml::Value::String(key) => Ok(vec![key.clone()]),
        toml::Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or_else(wrong))
            .collect(),
        _ => Err(wrong()),
    }
}

/// `notify_command`: a list of at least one argument, never a line for a shell.
pub(super) fn notify_command(
    text: &str,
    value: &Spanned<toml::Value>,
) -> Result<Vec<String>, PrefsError> {
    let fail = |message: &str| PrefsError {
        line: line_of(text, value.span().start),
        message: format!("notify_command {message}"),
    };
    let items = match value.get_ref() {
        toml::Value::Array(items) => items,
        toml::Value::String(_) => {
            return Err(fail(
                r#"is a list of arguments, not a shell line (it is never run through a shell): write ["notify-send", "docdeck"]"#,
            ));
        }
        _ => {
            return Err(fail(
                r#"must be a list of arguments, such as ["notify-send", "docdeck"]"#,
            ));
        }
    };
    let argv: Vec<String> = items
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect::<Option<_>>()
        .ok_or_else(|| fail("must hold only strings"))?;
    if argv.first().is_none_or(|program| program.trim().is_empty()) {
        return Err(fail(
            r#"is empty: give the program first, such as ["notify-send", "docdeck"]"#,
        ));
    }
    Ok(argv)
}
