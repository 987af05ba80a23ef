//! Where docdeck finds its service, project and key: flags, then environment, then a named
//! profile in `config.toml`. The key is only ever held as a [`Secret`].

mod file;
mod insight;
mod precedence;
mod prefs;

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use reqwest::Url;
use serde::Deserialize;
use thiserror::Error;

pub use crate::secret::Secret;
use file::{exposed_key_warning, pick_profile, read_file};
pub use insight::{MOST_MAX_ROWS, PAGES_PLACEHOLDER, Template};
pub use precedence::{Origin, Origins};
use precedence::{key_source, poll_interval};
pub use prefs::{KeyOverride, Located, Preferences, PrefsError, StyleOverride, read_preferences};

/// Base URL of the hosted service.
pub const DEFAULT_BASE_URL: &str = "https://api.mintlify.com";
/// How often active jobs are polled unless configured otherwise.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(3);
/// The shortest poll interval accepted, from any source: below it, `--wait` and the
/// console would spend the service's capacity (and the log) on reads that show nothing new.
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Something in the configuration that stops docdeck from talking to the service.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
    /// `reason` is the toml crate's message, kept on its lines: it shows the line of the
    /// file with a caret under the mistake.
    #[error("{path} is not valid:\n{reason}")]
    Parse { path: PathBuf, reason: String },
    /// An entry of `[templates]` or `[visitors]` that cannot be used, at `line`.
    #[error("{path}, line {line}: {reason}")]
    Entry {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("no profile named {name:?} in {path}; the profiles there are: {known}")]
    UnknownProfile {
        name: String,
        path: PathBuf,
        known: String,
    },
    #[error("profile {0:?} sets both api_key and api_key_command: keep one")]
    TwoKeys(String),
    #[error("base URL {url:?} is not usable: {reason}")]
    BaseUrl { url: String, reason: String },
    #[error("poll interval {value:?} (from {from}) is not a duration such as 3s or 500ms")]
    PollInterval { value: String, from: String },
    #[error(
        "poll interval {value} (from {from}) is too short: use 500ms or more (the default is 3s), so that polling does not flood the service"
    )]
    PollIntervalTooShort { value: String, from: String },
    /// A key, colour or alert setting of the wrong kind, with its line.
    #[error("{path}, line {}: {}", .error.line, .error.message)]
    Preference { path: PathBuf, error: PrefsError },
    #[error(
        "no project id: set DOCDECK_PROJECT_ID, pass --project, or add project_id to a profile in {0} (the API keys page of the dashboard shows it). To see docdeck working without an account, run `docdeck demo`"
    )]
    MissingProject(String),
    #[error(
        "no API key: set DOCDECK_API_KEY, or add api_key or api_key_command to a profile in {0} (keys are made on the API keys page of the dashboard). To see docdeck working without an account, run `docdeck demo`"
    )]
    MissingKey(String),
    #[error(
        "api_key_command {outcome}: run it yourself to see why (its error output is not shown, as it may hold the key)"
    )]
    KeyCommand { outcome: String },
    #[error(
        "refusing to send the API key over plain http to {host}: use https, or pass --allow-insecure-http if this network is trusted"
    )]
    InsecureHttp { host: String },
    #[error(
        "cannot find a home folder for docdeck's files: set HOME (or XDG_CONFIG_HOME and XDG_DATA_HOME)"
    )]
    NoHome,
}

/// What the command line said; `None` means "not given".
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    pub config: Option<PathBuf>,
    pub profile: Option<String>,
    pub base_url: Option<String>,
    pub project: Option<String>,
    pub api_key: Option<Secret>,
    pub poll_interval: Option<Duration>,
    pub allow_insecure_http: bool,
}

/// One `[profiles.NAME]` table of `config.toml`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub base_url: Option<String>,
    pub project_id: Option<String>,
    pub api_key: Option<String>,
    pub api_key_command: Option<String>,
    pub poll_interval: Option<String>,
    /// The jobs list's columns, in order (names checked when the console opens).
    pub columns: Option<Vec<String>>,
    /// Whether the console reads the mouse (default: on).
    pub mouse: Option<bool>,
    /// This profile's alert command, instead of the file's top-level one.
    pub notify_command: Option<toml::Spanned<toml::Value>>,
}

/// Where the key comes from. A command is only run when the key is needed.
#[derive(Debug, Clone)]
pub enum KeySource {
    Missing,
    Value(Secret),
    Command(String),
}

/// The settings in force after precedence is applied.
#[derive(Debug, Clone)]
pub struct Settings {
    pub profile: Option<String>,
    pub base_url: Url,
    pub project_id: Option<String>,
    pub key: KeySource,
    pub poll_interval: Duration,
    pub allow_insecure_http: bool,
    pub config_path: PathBuf,
    /// The console's jobs columns from the profile, as written.
    pub columns: Option<Vec<String>>,
    /// The profile's `mouse`, if set.
    pub mouse: Option<bool>,
    /// Where each of the settings above came from.
    pub origins: Origins,
    /// Things the user should fix but that do not stop the command.
    pub warnings: Vec<String>,
    /// Keys, colours and the alert command, for the console.
    pub preferences: Preferences,
    /// The prompt templates of `config.toml`, in name order (the built-in ones are not
    /// here: see `crate::insight::templates`).
    pub templates: Vec<Template>,
    /// `[visitors] max_rows`: the most rows fetched to sort, filter or compare a whole
    /// range (the CLI's `--max-rows` wins; the default is 5,000).
    pub visitors_max_rows: Option<usize>,
}

/// The folders docdeck uses, from the platform's conventions (XDG on Linux).
fn project_dirs() -> Result<directories::ProjectDirs, ConfigError> {
    directories::ProjectDirs::from("", "", "docdeck").ok_or(ConfigError::NoHome)
}

/// `config.toml` in the platform's config folder.
pub fn default_config_path() -> Result<PathBuf, ConfigError> {
    Ok(project_dirs()?.config_dir().join("config.toml"))
}

/// The platform's data folder for docdeck (the journal and the local service's database).
pub fn data_dir() -> Result<PathBuf, ConfigError> {
    Ok(project_dirs()?.data_dir().to_path_buf())
}

impl Settings {
    /// Applies flags > environment > profile > defaults. `env` reads an environment
    /// variable; it is a parameter so tests do not touch the process environment.
    pub fn load(
        overrides: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let env = |name: &str| env(name).filter(|value| !value.is_empty());
        let (named, config_origin) = match (&overrides.config, env("DOCDECK_CONFIG")) {
            (Some(path), _) => (Some(path.clone()), Origin::Flag("--config")),
            (None, Some(path)) => (Some(PathBuf::from(path)), Origin::Env("DOCDECK_CONFIG")),
            (None, None) => (None, Origin::Default),
        };
        let config_path = match &named {
            Some(path) => path.clone(),
            None => default_config_path()?,
        };
        // A file the user named must be there: a typo is not an empty configuration.
        if named.is_some() && !config_path.exists() {
            return Err(ConfigError::Read {
                path: config_path,
                reason: "no such file (named by --config or DOCDECK_CONFIG): check the path".into(),
            });
        }
        let (file, templates, visitors_max_rows) = read_file(&config_path)?;
        let requested = match (&overrides.profile, env("DOCDECK_PROFILE")) {
            (Some(name), _) => Some((name.clone(), Origin::Flag("--profile"))),
            (None, Some(name)) => Some((name, Origin::Env("DOCDECK_PROFILE"))),
            (None, None) => None,
        };
        let (profile_name, profile, profile_origin) = pick_profile(&file, requested, &config_path)?;
        if profile.api_key.is_some() && profile.api_key_command.is_some() {
            return Err(ConfigError::TwoKeys(profile_name.unwrap_or_default()));
        }
        let name = profile_name.as_deref();
        let preferences = file.preferences(&profile, &config_path)?;

        let (base_url, base_url_origin) = precedence::first(
            ("--base-url", overrides.base_url.clone()),
            ("DOCDECK_BASE_URL", env("DOCDECK_BASE_URL")),
            ("base_url", profile.base_url.as_ref()),
            name,
        );
        let base_url = parse_base_url(base_url.as_deref().unwrap_or(DEFAULT_BASE_URL))?;
        let (project_id, project_origin) = precedence::first(
            ("--project", overrides.project.clone()),
            ("DOCDECK_PROJECT_ID", env("DOCDECK_PROJECT_ID")),
            ("project_id", profile.project_id.as_ref()),
            name,
        );
        let (key, key_origin) = key_source(overrides, env("DOCDECK_API_KEY"), &profile, name);
        let (poll_interval, poll_origin) = poll_interval(
            overrides.poll_interval,
            env("DOCDECK_POLL_INTERVAL"),
            &profile,
            name,
            &config_path,
        )?;
        Ok(Self {
            profile: profile_name,
            base_url,
            project_id,
            key,
            poll_interval,
            allow_insecure_http: overrides.allow_insecure_http,
            columns: profile.columns.clone(),
            mouse: profile.mouse,
            warnings: exposed_key_warning(&config_path, &file)
                .into_iter()
                .collect(),
            config_path,
            preferences,
            templates,
            visitors_max_rows,
            origins: Origins {
                config: config_origin,
                profile: profile_origin,
                base_url: base_url_origin,
                project_id: project_origin,
                key: key_origin,
                poll_interval: poll_origin,
            },
        })
    }

    /// The project id, or an error that says where to set it.
    pub fn require_project(&self) -> Result<&str, ConfigError> {
        self.project_id
            .as_deref()
            .ok_or_else(|| ConfigError::MissingProject(self.config_path.display().to_string()))
    }

    /// The API key, running `api_key_command` if that is where it comes from.
    pub fn resolve_key(&self) -> Result<Secret, ConfigError> {
        match &self.key {
            KeySource::Value(key) => Ok(key.clone()),
            KeySource::Command(command) => run_key_command(command),
            KeySource::Missing => Err(ConfigError::MissingKey(
                self.config_path.display().to_string(),
            )),
        }
    }

    /// Refuses plain http to anything but this machine unless the user allowed it: the key
    /// would cross the network readable by anyone on the path.
    pub fn check_transport(&self) -> Result<(), ConfigError> {
        if self.base_url.scheme() == "https"
            || self.allow_insecure_http
            || is_loopback(&self.base_url)
        {
            return Ok(());
        }
        Err(ConfigError::InsecureHttp {
            host: self.base_url.host_str().unwrap_or_default().to_owned(),
        })
    }

    /// A stable name for the service, used to keep journals of different services apart.
    #[must_use]
    pub fn service_id(&self) -> String {
        service_id(&self.base_url)
    }
}

/// The name the journal keeps a service's counts under: its base URL without a trailing
/// `/`.
#[must_use]
pub fn service_id(base_url: &Url) -> String {
    base_url.as_str().trim_end_matches('/').to_owned()
}

/// Parses and checks a base URL: http or https, with a host and no credentials.
pub fn parse_base_url(text: &str) -> Result<Url, ConfigError> {
    let bad = |reason: &str| ConfigError::BaseUrl {
        url: crate::text::excerpt(&crate::text::mask_password(text), 80),
        reason: reason.to_owned(),
    };
    let url = Url::parse(text.trim()).map_err(|err| {
        bad(&format!(
            "{err} (expected something like https://api.mintlify.com)"
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("it must start with https:// or http://"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            "it must not contain a user name or password; give the key with DOCDECK_API_KEY",
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("it must not have a query or fragment"));
    }
    Ok(url)
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// Parses durations such as `3s`, `500ms` or `7d`.
#[must_use]
pub fn parse_duration(text: &str) -> Option<Duration> {
    humantime::parse_duration(text.trim()).ok()
}

fn run_key_command(command: &str) -> Result<Secret, ConfigError> {
    let output = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .map_err(|err| ConfigError::KeyCommand {
            outcome: format!("could not be started ({err})"),
        })?;
    if !output.status.success() {
        return Err(ConfigError::KeyCommand {
            outcome: format!("failed ({})", output.status),
        });
    }
    let text = String::from_utf8(output.stdout).map_err(|_| ConfigError::KeyCommand {
        outcome: "printed something that is not text".to_owned(),
    })?;
    let key = text.lines().next().unwrap_or_default().trim();
    if key.is_empty() {
        return Err(ConfigError::KeyCommand {
            outcome: "printed nothing".to_owned(),
        });
    }
    Ok(Secret::new(key))
}

#[cfg(test)]
mod prefs_tests;
#[cfg(test)]
mod tests;
