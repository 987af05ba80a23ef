//! `config.toml` as a file: reading it, its tables (profiles, `[templates]`,
//! `[visitors]`), choosing the profile, and the warning for a key others can read.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::insight::{self, Template};
use super::{ConfigError, Origin, Profile};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileConfig {
    pub default_profile: Option<String>,
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
    /// `[templates]`: prompt templates by name, checked by `insight::check`.
    #[serde(default)]
    templates: insight::RawTemplates,
    /// `[visitors]`: `max_rows`, checked by `insight::check_visitors`.
    #[serde(default)]
    visitors: insight::RawVisitors,
    /// `[keys.<context>]`, `theme` and `notify_command`: read by `prefs`.
    #[serde(default)]
    pub keys: super::prefs::RawKeys,
    pub theme: Option<toml::Spanned<super::prefs::RawTheme>>,
    pub notify_command: Option<toml::Spanned<toml::Value>>,
    /// The file as read, for the lines of the settings above.
    #[serde(skip)]
    pub text: String,
}

/// A warning when the config file holds an API key and other users of the machine can read
/// it (group or world permission bits).
pub(super) fn exposed_key_warning(path: &Path, file: &FileConfig) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if !file
            .profiles
            .values()
            .any(|profile| profile.api_key.is_some())
        {
            return None;
        }
        let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
        (mode & 0o077 != 0).then(|| {
            format!(
                "{} holds an API key and other users of this machine can read it (mode {mode:o}): run chmod 600 {}",
                path.display(),
                path.display()
            )
        })
    }
    #[cfg(not(unix))]
    {
        let _ = (path, file);
        None
    }
}

/// The file, with its templates and `max_rows` checked.
pub(super) type FileRead = (FileConfig, Vec<Template>, Option<usize>);

pub(super) fn read_file(path: &Path) -> Result<FileRead, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok((FileConfig::default(), Vec::new(), None));
        }
        Err(err) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                reason: err.to_string(),
            });
        }
    };
    let mut file: FileConfig = toml::from_str(&text).map_err(|err| ConfigError::Parse {
        path: path.to_path_buf(),
        reason: err.to_string().trim_end().to_owned(),
    })?;
    let templates = insight::check(&file.templates, &text, path)?;
    let max_rows = insight::check_visitors(&file.visitors, &text, path)?;
    file.text = text;
    Ok((file, templates, max_rows))
}

pub(super) fn pick_profile(
    file: &FileConfig,
    requested: Option<(String, Origin)>,
    path: &Path,
) -> Result<(Option<String>, Profile, Origin), ConfigError> {
    let named = requested.or_else(|| {
        file.default_profile
            .clone()
            .map(|name| (name, Origin::File("default_profile")))
    });
    match named {
        Some((name, origin)) => match file.profiles.get(&name) {
            Some(profile) => Ok((Some(name), profile.clone(), origin)),
            None => Err(ConfigError::UnknownProfile {
                name,
                path: path.to_path_buf(),
                known: if file.profiles.is_empty() {
                    "(none)".to_owned()
                } else {
                    file.profiles.keys().cloned().collect::<Vec<_>>().join(", ")
                },
            }),
        },
        None => Ok(match file.profiles.get("default") {
            Some(profile) => (Some("default".to_owned()), profile.clone(), Origin::Default),
            None => (None, Profile::default(), Origin::Default),
        }),
    }
}
