//! What every command that talks to the service needs: settings after precedence, the
//! client, and the journal, built from the connection flags.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::output::Format;
use super::{CliError, warn};
use crate::api::{Client, ClientOptions};
use crate::config::{Overrides, Secret, Settings, parse_duration};
use crate::journal::{Journal, Scope};

/// The end of every command that reads analytics: `--yes` for the budget's question, the
/// output format, and where to find the service.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// Go ahead without asking when the work needs more than 10 analytics requests
    #[arg(long)]
    pub yes: bool,
    /// Output format [default: table on a terminal, json otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub client: ClientArgs,
}

/// Where to find the service. Each flag beats its environment variable, which beats the
/// profile in `config.toml`.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Connection")]
pub struct ClientArgs {
    /// Profile of config.toml to use [env: DOCDECK_PROFILE]
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Base URL of the service [env: DOCDECK_BASE_URL] [default: https://api.mintlify.com]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Project id, from the API keys page of the dashboard [env: DOCDECK_PROJECT_ID]
    #[arg(long, value_name = "ID")]
    pub project: Option<String>,
    /// Admin API key; prefer the environment, as arguments are visible to other users
    /// [env: DOCDECK_API_KEY]
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,
    /// Configuration file [env: DOCDECK_CONFIG] [default: config.toml in the config folder]
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// How often --wait and the console read active jobs, such as 3s; at least 500ms
    /// [env: DOCDECK_POLL_INTERVAL] [default: 3s]
    #[arg(long, value_name = "DURATION", value_parser = duration_arg)]
    pub poll_interval: Option<Duration>,
    /// Allow sending the key over plain http to a host other than this machine
    #[arg(long)]
    pub allow_insecure_http: bool,
}

impl ClientArgs {
    /// The flags as the configuration takes them.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            config: self.config.clone(),
            profile: self.profile.clone(),
            base_url: self.base_url.clone(),
            project: self.project.clone(),
            api_key: self.api_key.clone().map(Secret::new),
            poll_interval: self.poll_interval,
            allow_insecure_http: self.allow_insecure_http,
        }
    }
}

/// Reads a duration flag such as `3s`, `500ms` or `7d`.
pub fn duration_arg(text: &str) -> Result<Duration, String> {
    parse_duration(text)
        .ok_or_else(|| format!("{text:?} is not a duration such as 3s, 500ms or 7d"))
}

/// A `--timeout`: a duration above zero (zero would give up before the first read).
pub fn timeout_arg(text: &str) -> Result<Duration, String> {
    match duration_arg(text)? {
        zero if zero.is_zero() => Err(format!(
            "{text:?} would give up before the job is read once: give a duration above zero, such as 30s or 10m"
        )),
        timeout => Ok(timeout),
    }
}

/// Settings and the scope of the journal for one command.
pub struct Setup {
    pub settings: Settings,
    pub scope: Scope,
}

impl Setup {
    /// Applies precedence and requires a project id.
    pub fn load(args: &ClientArgs) -> Result<Self, CliError> {
        let settings = Settings::load(&args.overrides(), &|name| std::env::var(name).ok())?;
        for warning in &settings.warnings {
            warn(warning);
        }
        let scope = Scope {
            service: settings.service_id(),
            project: settings.require_project()?.to_owned(),
        };
        Ok(Self { settings, scope })
    }

    /// A client for the project, after checking the transport and getting the key.
    pub fn client(&self) -> Result<Client, CliError> {
        self.client_and_warnings().map(|(client, _)| client)
    }

    /// A client, and every warning printed so far (the settings', the key's shape): the
    /// console shows them again once its screen is open, where they are seen.
    pub fn client_and_warnings(&self) -> Result<(Client, Vec<String>), CliError> {
        self.settings.check_transport()?;
        let key = self.settings.resolve_key()?;
        let mut warnings = self.settings.warnings.clone();
        if let Some(warning) = key.shape_warning() {
            warn(&warning);
            warnings.push(warning);
        }
        let options = ClientOptions::new(
            self.settings.base_url.clone(),
            self.scope.project.clone(),
            key,
        );
        Ok((Client::new(options)?, warnings))
    }

    /// The journal in the data folder.
    pub fn journal(&self) -> Result<Journal, CliError> {
        let journal = Journal::open(&Journal::default_path()?)?;
        if let Some(set_aside) = journal.set_aside() {
            warn(&set_aside.to_string());
        }
        Ok(journal)
    }
}
