//! Where each setting in force came from (flag, environment, profile, default), recorded
//! while precedence is applied, so `docdeck doctor` can tell a user which place to edit.

use std::fmt;

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
