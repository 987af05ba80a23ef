//! The checks of the configuration: the file and its permissions, the profile, and each
//! setting with the place it came from; the key by its shape only, never its text.

use std::path::Path;

use reqwest::Url;

use super::Check;
use crate::cli::ClientArgs;
use crate::config::{ConfigError, KeySource, Origin, Secret, Settings};

/// What the service checks need: where to go, and with what, if anything.
pub(crate) struct Target {
    pub base_url: Url,
    /// The project and key to try, or why the key is not tried.
    pub credentials: Result<(String, Secret), String>,
    /// Where the key came from, for the fix when it is refused.
    pub key_origin: Origin,
}

/// The configuration's lines, and the target when the configuration loaded.
pub(crate) struct Found {
    pub checks: Vec<Check>,
    pub target: Option<Target>,
}

pub(crate) fn check(args: &ClientArgs) -> Found {
    let settings = match Settings::load(&args.overrides(), &|name| std::env::var(name).ok()) {
        Ok(settings) => settings,
        Err(err) => {
            return Found {
                checks: vec![
                    Check::fail("config", one_line(&err.to_string()), config_fix(&err)),
                    Check::skip(
                        "settings",
                        "profile, base URL, project and key are read once the config loads",
                    ),
                ],
                target: None,
            };
        }
    };
    let mut checks = vec![config_file(&settings)];
    checks.extend(settings.warnings.iter().map(|warning| Check {
        // The warning says what to do itself (`chmod 600 ...`).
        fix: None,
        ..Check::fail("permissions", warning.clone(), "")
    }));
    checks.push(profile(&settings));
    let (url_check, sendable) = base_url(&settings);
    checks.push(url_check);
    let project = project(&settings, &mut checks);
    let key = key(&settings, &mut checks);
    checks.push(Check::ok(
        "poll interval",
        format!(
            "{} ({})",
            humantime::format_duration(settings.poll_interval),
            settings.origins.poll_interval
        ),
    ));
    checks.push(console(&settings));
    let credentials = match (project, key, sendable) {
        (Some(project), Some(key), true) => Ok((project, key)),
        (_, _, false) => Err("the key is not sent over plain http to another machine".into()),
        (None, _, _) => Err("no project id (see above)".into()),
        (_, None, _) => Err("no usable key (see above)".into()),
    };
    Found {
        checks,
        target: Some(Target {
            base_url: settings.base_url,
            credentials,
            key_origin: settings.origins.key,
        }),
    }
}

/// The console's keys, colours and alert command: the console refuses to start on a
/// mistake in them, so the doctor names it too.
fn console(settings: &Settings) -> Check {
    let prefs = &settings.preferences;
    if let Err(err) = crate::cli::console_prefs::resolve(prefs, &settings.config_path) {
        return Check::fail(
            "console",
            err.message,
            "correct that line (the README's \"Your own keys\" and \"Colours\" say what each takes)",
        );
    }
    let theme = prefs
        .theme
        .as_ref()
        .map_or("terminal", |t| t.value.as_str());
    let keys = match prefs.keys.len() {
        0 => "the default keys".to_owned(),
        n => format!(
            "{n} key setting{} of your own",
            if n == 1 { "" } else { "s" }
        ),
    };
    let alert = prefs.notify_command.as_ref().map_or_else(
        || "no notify_command".to_owned(),
        |argv| format!("notify_command {}", argv.join(" ")),
    );
    Check::ok("console", format!("{keys} · theme {theme} · {alert}"))
}

fn config_file(settings: &Settings) -> Check {
    let path = settings.config_path.display();
    let from = match &settings.origins.config {
        Origin::Default => String::new(),
        origin => format!(" ({origin})"),
    };
    if !settings.config_path.exists() {
        return Check::ok(
            "config",
            format!("no file at {path}{from}: flags, environment and defaults apply"),
        );
    }
    match mode(&settings.config_path) {
        Some(mode) => Check::ok("config", format!("{path} parses, mode {mode:o}{from}")),
        None => Check::ok("config", format!("{path} parses{from}")),
    }
}

#[cfg(unix)]
fn mode(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt as _;
    Some(std::fs::metadata(path).ok()?.permissions().mode() & 0o777)
}

#[cfg(not(unix))]
fn mode(_path: &Path) -> Option<u32> {
    None
}

fn profile(settings: &Settings) -> Check {
    match &settings.profile {
        Some(name) => Check::ok(
            "profile",
            format!("{name:?} ({})", settings.origins.profile),
        ),
        None => Check::ok(
            "profile",
            "none: none was chosen and there is no profile named \"default\"",
        ),
    }
}

/// The base URL line, and whether the key may be sent to it.
fn base_url(settings: &Settings) -> (Check, bool) {
    let text = format!("{} ({})", settings.base_url, settings.origins.base_url);
    match settings.check_transport() {
        Ok(()) => (Check::ok("base URL", text), true),
        Err(_) => (
            Check::fail(
                "base URL",
                format!(
                    "{text} is plain http to another machine: anyone on the way could read the key"
                ),
                "use https, or pass --allow-insecure-http if this network is trusted",
            ),
            false,
        ),
    }
}

fn project(settings: &Settings, checks: &mut Vec<Check>) -> Option<String> {
    if let Some(project) = &settings.project_id {
        checks.push(Check::ok(
            "project",
            format!("{project} ({})", settings.origins.project_id),
        ));
        return Some(project.clone());
    }
    checks.push(Check::fail(
        "project",
        "no project id",
        format!(
            "set DOCDECK_PROJECT_ID, pass --project, or add project_id to a profile in {} (the dashboard's API keys page shows it)",
            settings.config_path.display()
        ),
    ));
    None
}

fn key(settings: &Settings, checks: &mut Vec<Check>) -> Option<Secret> {
    let origin = &settings.origins.key;
    let key = match (&settings.key, settings.resolve_key()) {
        (_, Ok(key)) => key,
        (KeySource::Missing, Err(_)) => {
            checks.push(Check::fail(
                "key",
                "no API key",
                format!(
                    "set DOCDECK_API_KEY, or add api_key or api_key_command to a profile in {} (keys are made on the dashboard's API keys page)",
                    settings.config_path.display()
                ),
            ));
            return None;
        }
        (KeySource::Value(_) | KeySource::Command(_), Err(err)) => {
            checks.push(Check::fail(
                "key",
                format!("{} ({origin})", one_line(&err.to_string())),
                "it must print the key on its first line",
            ));
            return None;
        }
    };
    checks.push(key_shape(&key, origin));
    Some(key)
}

/// The key described by its shape: prefix kind and length, never a character of it
/// beyond the service's public `mint_` prefixes.
pub(crate) fn key_shape(key: &Secret, origin: &Origin) -> Check {
    let length = key.expose().chars().count();
    match key.shape_warning() {
        Some(warning) => Check::warn(
            "key",
            format!("{length} characters ({origin}); not an admin key's shape"),
            warning,
        ),
        None if key.expose().starts_with("mint_") => Check::ok(
            "key",
            format!("shaped like an admin key: mint_…, {length} characters ({origin})"),
        ),
        None => Check::ok(
            "key",
            format!("shaped <prefix>_<secret>, {length} characters ({origin})"),
        ),
    }
}

/// A configuration error on one line: toml's message comes as a caret drawing over several
/// lines, of which the first (where) and the last (what) say it.
fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines.as_slice() {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [first, .., last] if first.ends_with(':') => {
            let second = lines.get(1).copied().unwrap_or_default();
            format!("{first} {second}: {last}")
        }
        [first, .., last] => format!("{first}: {last}"),
    }
}

fn config_fix(err: &ConfigError) -> &'static str {
    match err {
        ConfigError::Read { .. } => "check the path and its permissions",
        ConfigError::Parse { .. } => {
            "correct that line (unknown keys are errors: the README's Configuration lists them)"
        }
        ConfigError::UnknownProfile { .. } => {
            "choose one of those with --profile or DOCDECK_PROFILE, or add [profiles.NAME] to the file"
        }
        ConfigError::Preference { .. } => {
            "correct that line (the README's Configuration says what it takes)"
        }
        ConfigError::Entry { .. } => {
            "correct that line (the README's Configuration shows [templates] and [visitors])"
        }
        ConfigError::TwoKeys(_) => "keep api_key or api_key_command in that profile, not both",
        ConfigError::BaseUrl { .. } => {
            "correct it where it is set: --base-url, DOCDECK_BASE_URL or base_url in the profile"
        }
        ConfigError::PollInterval { .. } | ConfigError::PollIntervalTooShort { .. } => {
            "give a duration of 500ms or more, such as 3s"
        }
        ConfigError::NoHome => "set HOME, or XDG_CONFIG_HOME and XDG_DATA_HOME",
        ConfigError::MissingProject(_)
        | ConfigError::MissingKey(_)
        | ConfigError::KeyCommand { .. }
        | ConfigError::InsecureHttp { .. } => "see the message",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_described_never_shown() {
        let origin = Origin::Env("DOCDECK_API_KEY");
        let good = key_shape(&Secret::new("mint_s3cr3tvalue"), &origin).to_string();
        assert_eq!(
            good,
            "ok    key            shaped like an admin key: mint_…, 16 characters (environment DOCDECK_API_KEY)"
        );
        let other = key_shape(&Secret::new("corp_s3cr3tvalue"), &origin).to_string();
        assert!(
            other.contains("<prefix>_<secret>") && !other.contains("corp"),
            "{other}"
        );
        let bad = key_shape(&Secret::new("s3cr3tvalue"), &origin);
        assert_eq!(bad.verdict, super::super::Verdict::Warn);
        for line in [good, other, bad.to_string()] {
            assert!(!line.contains("s3cr3t"), "{line}");
        }
    }

    #[test]
    fn a_toml_error_is_one_line_that_says_where_and_what() {
        let err = toml::from_str::<toml::Table>("a = \n")
            .unwrap_err()
            .to_string();
        let text = format!("/c/config.toml is not valid:\n{}", err.trim_end());
        let line = one_line(&text);
        assert!(!line.contains('\n'), "{line}");
        assert!(
            line.starts_with("/c/config.toml is not valid: TOML parse error at line 1"),
            "{line}"
        );
    }
}
