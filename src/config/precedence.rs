//! Which place each setting is taken from (flag, then environment, then the profile, then
//! the default), recorded as it is applied, so `docdeck doctor` can tell a user which place
//! to edit.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use super::{
    ConfigError, DEFAULT_POLL_INTERVAL, KeySource, MIN_POLL_INTERVAL, Overrides, Profile, Secret,
    parse_duration,
};

/// The place one setting was taken from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A command-line flag, such as `--base-url`.
    Flag(&'static str),
    /// An environment variable, such as `DOCDECK_BASE_URL`.
    Env(&'static str),
    /// A key of the chosen profile in the config file, such as `base_url`.
    Profile { key: &'static str, profile: String },
    /// A key at the top of the config file (`default_profile`).
    File(&'static str),
    /// Nothing set it: docdeck's default (or nothing, for a required setting).
    Default,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Flag(name) => write!(f, "flag {name}"),
            Self::Env(name) => write!(f, "environment {name}"),
            Self::Profile { key, profile } => write!(f, "file: {key} of profile {profile:?}"),
            Self::File(key) => write!(f, "file: {key}"),
            Self::Default => f.write_str("default"),
        }
    }
}

/// The origin of every setting of [`super::Settings`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origins {
    pub config: Origin,
    pub profile: Origin,
    pub base_url: Origin,
    pub project_id: Origin,
    pub key: Origin,
    pub poll_interval: Origin,
}

/// The first of flag, environment and profile that holds a value, and where it was.
pub(super) fn first(
    flag: (&'static str, Option<String>),
    env: (&'static str, Option<String>),
    profile: (&'static str, Option<&String>),
    profile_name: Option<&str>,
) -> (Option<String>, Origin) {
    if let Some(value) = flag.1 {
        return (Some(value), Origin::Flag(flag.0));
    }
    if let Some(value) = env.1 {
        return (Some(value), Origin::Env(env.0));
    }
    if let Some(value) = profile.1 {
        let origin = Origin::Profile {
            key: profile.0,
            profile: profile_name.unwrap_or_default().to_owned(),
        };
        return (Some(value.clone()), origin);
    }
    (None, Origin::Default)
}

/// Where the key comes from: `--api-key`, `DOCDECK_API_KEY`, the profile's `api_key`,
/// then its `api_key_command` (run only when the key is needed).
pub(super) fn key_source(
    overrides: &Overrides,
    env_key: Option<String>,
    profile: &Profile,
    profile_name: Option<&str>,
) -> (KeySource, Origin) {
    let in_profile = |key| Origin::Profile {
        key,
        profile: profile_name.unwrap_or_default().to_owned(),
    };
    if let Some(key) = overrides.api_key.clone() {
        (KeySource::Value(key), Origin::Flag("--api-key"))
    } else if let Some(key) = env_key {
        (
            KeySource::Value(Secret::new(key)),
            Origin::Env("DOCDECK_API_KEY"),
        )
    } else if let Some(key) = profile.api_key.clone() {
        (KeySource::Value(Secret::new(key)), in_profile("api_key"))
    } else if let Some(command) = profile.api_key_command.clone() {
        (KeySource::Command(command), in_profile("api_key_command"))
    } else {
        (KeySource::Missing, Origin::Default)
    }
}

/// The poll interval by precedence (flag, `DOCDECK_POLL_INTERVAL`, profile, default),
/// refused below [`MIN_POLL_INTERVAL`] whichever place it came from.
pub(super) fn poll_interval(
    flag: Option<Duration>,
    env: Option<String>,
    profile: &Profile,
    profile_name: Option<&str>,
    config_path: &Path,
) -> Result<(Duration, Origin), ConfigError> {
    let parse = |text: &str, from: String| {
        parse_duration(text).ok_or_else(|| ConfigError::PollInterval {
            value: text.to_owned(),
            from,
        })
    };
    let (interval, from, origin) = if let Some(interval) = flag {
        let origin = Origin::Flag("--poll-interval");
        (interval, "--poll-interval".to_owned(), origin)
    } else if let Some(text) = env {
        let from = "DOCDECK_POLL_INTERVAL".to_owned();
        let origin = Origin::Env("DOCDECK_POLL_INTERVAL");
        (parse(&text, from.clone())?, from, origin)
    } else if let Some(text) = &profile.poll_interval {
        let name = profile_name.unwrap_or_default();
        let from = format!(
            "poll_interval of profile {name:?} in {}",
            config_path.display()
        );
        let origin = Origin::Profile {
            key: "poll_interval",
            profile: name.to_owned(),
        };
        (parse(text, from.clone())?, from, origin)
    } else {
        return Ok((DEFAULT_POLL_INTERVAL, Origin::Default));
    };
    if interval < MIN_POLL_INTERVAL {
        return Err(ConfigError::PollIntervalTooShort {
            value: humantime::format_duration(interval).to_string(),
            from,
        });
    }
    Ok((interval, origin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_beats_the_environment_which_beats_the_profile() {
        let profile_value = "p".to_owned();
        let pick = |flag: Option<&str>, env: Option<&str>, profile: Option<&String>| {
            first(
                ("--base-url", flag.map(str::to_owned)),
                ("DOCDECK_BASE_URL", env.map(str::to_owned)),
                ("base_url", profile),
                Some("prod"),
            )
        };
        assert_eq!(
            pick(Some("f"), Some("e"), Some(&profile_value)),
            (Some("f".into()), Origin::Flag("--base-url"))
        );
        assert_eq!(
            pick(None, Some("e"), Some(&profile_value)),
            (Some("e".into()), Origin::Env("DOCDECK_BASE_URL"))
        );
        let (value, origin) = pick(None, None, Some(&profile_value));
        assert_eq!(value.as_deref(), Some("p"));
        assert_eq!(origin.to_string(), "file: base_url of profile \"prod\"");
        assert_eq!(pick(None, None, None), (None, Origin::Default));
    }
}
