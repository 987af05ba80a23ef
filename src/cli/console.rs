//! `docdeck` (the console on the configured service) and `docdeck demo` (the local
//! service in-process with demo data, and the console on it).

use std::io::IsTerminal as _;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use clap::Args;

use super::setup::{ClientArgs, Setup};
use super::{CliError, Outcome};
use crate::api::{Client, ClientOptions};
use crate::config::{KeySource, Settings};
use crate::journal::{Journal, Scope, SubmissionKind};
use crate::server::db::DbLocation;
use crate::server::{self, SeedKind, ServeOptions};
use crate::tui::app::{App, ConsoleOptions, JobColumn, NotifyMode};
use crate::tui::effects::Services;
use crate::tui::view::theme::Theme;

/// How the console looks and behaves, for `docdeck` and `docdeck demo`.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Console")]
pub struct ConsoleArgs {
    /// Hide everything that writes to the service (new jobs, follow-ups): for a wallboard
    #[arg(long)]
    pub read_only: bool,
    /// How a job reaching a final status is announced besides the notice line
    /// (off, bell or desktop) [env: DOCDECK_NOTIFY] [default: bell]
    #[arg(long, value_name = "HOW", value_parser = str::parse::<NotifyMode>)]
    pub notify: Option<NotifyMode>,
    /// Leave the mouse to the terminal (no clicks or wheel in the console), as
    /// `mouse = false` in the profile does
    #[arg(long)]
    pub no_mouse: bool,
}

/// `docdeck demo`: the local service with demo data, in this process, and the console.
#[derive(Debug, Clone, Args)]
pub struct DemoArgs {
    #[command(flatten)]
    pub console: ConsoleArgs,
    /// Which agent works on jobs: the example agent on a demo docs repository, or the
    /// simulated one
    #[arg(long, value_enum, default_value = "real")]
    pub agent: super::demo_agent::DemoAgent,
    /// With --agent simulated: how long it works on each turn, in milliseconds
    #[arg(long, value_name = "MS", default_value_t = 4000)]
    pub agent_delay_ms: u64,
    #[command(flatten)]
    pub faults: super::serve::FaultArgs,
}

/// Opens the console on the configured service.
pub async fn console(client_args: &ClientArgs, args: &ConsoleArgs) -> Outcome {
    let overrides_ctx =
        Setup::load(client_args).map_err(|err| explain_missing(client_args, err))?;
    let settings = &overrides_ctx.settings;
    // A mistake in the keys or colours stops the start before anything else is done.
    let (mut prefs, theme) =
        super::console_prefs::resolve(&settings.preferences, &settings.config_path)?;
    tracing::debug!("start: settings read");
    // The journal first, and its start-up read at once: it overlaps the client's set-up
    // (the system's root certificates) and the terminal's.
    let journal = Arc::new(Mutex::new(overrides_ctx.journal()?));
    let scope = Arc::new(overrides_ctx.scope.clone());
    let startup = crate::tui::effects::read_startup(&journal, &scope);
    tracing::debug!("start: journal open");
    let (client, warnings) = overrides_ctx.client_and_warnings()?;
    tracing::debug!("start: client ready");
    prefs.warnings = warnings;
    let mut config = config(
        &overrides_ctx.scope,
        &settings.base_url,
        settings.poll_interval,
        args,
    )?;
    config.profile.clone_from(&settings.profile);
    config.templates = crate::insight::templates::all(&settings.templates);
    if let Some(rows) = settings.visitors_max_rows {
        config.whole_max_rows = rows.clamp(1, crate::insight::whole::MOST_MAX_ROWS);
    }
    apply_profile(&mut config, settings)?;
    config.prefs = prefs;
    require_terminal()?;
    let services = Services {
        client: Arc::new(client),
        journal,
        scope,
    };
    open(config, services, Some(startup), theme).await
}

/// Starts the local service on a free loopback port with a temporary in-memory database
/// and the demo seed, then opens the console on it. Nothing is kept after it quits.
pub async fn demo(args: &DemoArgs) -> Outcome {
    require_terminal()?;
    let mut options = ServeOptions::new(DbLocation::Memory);
    options.seed = SeedKind::Demo;
    options.agent.delay = Duration::from_millis(args.agent_delay_ms);
    options.faults = args.faults.plan()?;
    // Kept until the demo ends: the repository the real agent works on.
    let demo_repo = match args.agent {
        super::demo_agent::DemoAgent::Real => Some(super::demo_agent::DemoRepo::create()?),
        super::demo_agent::DemoAgent::Simulated => None,
    };
    options.real_agent = demo_repo.as_ref().map(super::demo_agent::DemoRepo::config);
    options.demo_change = demo_repo.is_some();
    let running = server::start(options)
        .await
        .map_err(|err| CliError::failed(err.to_string()))?;
    // One invented job's change is made and merged in the demo repository, so `i` in its
    // detail shows whether its page is read more (issue 27).
    let merged_job = (running.seeded_jobs.iter())
        .find(|job| (job.prompts.first()).is_some_and(|p| p.0 == server::seed::MERGED_DEMO_JOB));
    if let (Some(repo), Some(job)) = (&demo_repo, merged_job) {
        let created = job.job.created_at.unwrap_or_else(chrono::Utc::now);
        repo.merge_change(&job.id, created)?;
    }
    let key = running
        .generated_key
        .clone()
        .ok_or_else(|| CliError::failed("the demo service made no key"))?;
    let base_url =
        url::Url::parse(&running.base_url()).map_err(|err| CliError::failed(err.to_string()))?;
    let scope = Scope {
        service: base_url.as_str().trim_end_matches('/').to_owned(),
        project: "demo".to_owned(),
    };
    let client = Client::new(ClientOptions::new(base_url.clone(), "demo", key))?;
    let mut journal = Journal::open_in_memory()?;
    // The seed's views are still being written: the visitors pane shows them loading.
    remember_seeded_jobs(
        &mut journal,
        &scope,
        &running.seeded_jobs,
        chrono::Utc::now(),
    )?;
    // The demo reads only the person's keys, colours and alert command of the config
    // file: a broken config.toml must not stop it.
    let (prefs, theme) = super::console_prefs::for_demo();
    let mut config = config(&scope, &base_url, Duration::from_secs(1), &args.console)?;
    config.prefs = prefs;
    let services = Services {
        client: Arc::new(client),
        journal: Arc::new(Mutex::new(journal)),
        scope: Arc::new(scope),
    };
    let outcome = open(config, services, None, theme).await;
    // Nothing of the demo is kept, so quitting does not wait for answers still on their
    // way (with `--latency-ms` they could take seconds).
    let _ = tokio::time::timeout(Duration::from_millis(500), running.shutdown()).await;
    drop(demo_repo);
    outcome
}

/// The demo journal remembers the seeded jobs as if they had been started here. It makes
/// no call: with fault flags the service may fail or be slow, and the console must open at
/// once and let its own retries deal with that. Their statuses are seen `now`, as the
/// demo starts: the timeline is what this console observed, and it did not see a job
/// archived or completed at its creation days ago (the new-user trial found it did).
fn remember_seeded_jobs(
    journal: &mut Journal,
    scope: &Scope,
    jobs: &[server::seed::SeededJob],
    now: DateTime<Utc>,
) -> Result<(), CliError> {
    for seeded in jobs.iter().rev() {
        let job = &seeded.job;
        for (index, (prompt, at_ms)) in seeded.prompts.iter().enumerate() {
            let at = DateTime::<Utc>::from_timestamp_millis(*at_ms).unwrap_or_default();
            let kind = if index == 0 {
                SubmissionKind::Create
            } else {
                SubmissionKind::Message
            };
            let id = (index > 0).then_some(seeded.id.as_str());
            let submission = journal.begin_submission(scope, kind, id, prompt, at)?;
            journal.submission_accepted(scope, submission, job, now.max(at))?;
        }
    }
    Ok(())
}

fn require_terminal() -> Result<(), CliError> {
    if std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
        match refusal(std::env::var("TERM").ok().as_deref()) {
            Some(reason) => Err(CliError::usage(reason)),
            None => Ok(()),
        }
    } else {
        Err(CliError::usage(
            "the console needs a terminal; from scripts use `docdeck jobs ...` and `docdeck visitors ...` (see --help)",
        ))
    }
}

/// Why the console cannot draw on a terminal of type `term`, if it cannot: a `dumb`
/// terminal (Emacs' shell, some CI logs) moves no cursor and clears nothing, so the
/// screen would be a stream of escapes. As htop does, say so rather than draw.
fn refusal(term: Option<&str>) -> Option<String> {
    (term == Some("dumb")).then(|| {
        "TERM=dumb: this terminal cannot move the cursor, so the console cannot draw on it; \
         run it in a terminal emulator (TERM such as xterm-256color), or from scripts use \
         `docdeck jobs ...` and `docdeck visitors ...`"
            .to_owned()
    })
}

/// Says exactly what is missing to open the console, and how to try it without an account.
fn explain_missing(args: &ClientArgs, err: CliError) -> CliError {
    let overrides = crate::config::Overrides {
        config: args.config.clone(),
        profile: args.profile.clone(),
        ..Default::default()
    };
    let Ok(settings) = Settings::load(&overrides, &|name| std::env::var(name).ok()) else {
        return err;
    };
    let mut missing = Vec::new();
    if settings.project_id.is_none() && args.project.is_none() {
        missing.push(
            "a project id: set DOCDECK_PROJECT_ID, pass --project, or add project_id to a profile",
        );
    }
    if matches!(settings.key, KeySource::Missing) && args.api_key.is_none() {
        missing
            .push("an admin API key: set DOCDECK_API_KEY, or add api_key_command to the profile");
    }
    if missing.is_empty() {
        return err;
    }
    CliError::usage(format!(
        "the console needs {}. Config file: {}. To see docdeck working without an account, run `docdeck demo`.",
        missing.join(", and "),
        settings.config_path.display()
    ))
}

fn config(
    scope: &Scope,
    base_url: &url::Url,
    poll_interval: Duration,
    args: &ConsoleArgs,
) -> Result<ConsoleOptions, CliError> {
    let notify = match (
        args.notify,
        std::env::var("DOCDECK_NOTIFY")
            .ok()
            .filter(|v| !v.is_empty()),
    ) {
        (Some(mode), _) => mode,
        (None, Some(value)) => value
            .parse()
            .map_err(|reason| CliError::usage(format!("DOCDECK_NOTIFY: {reason}")))?,
        (None, None) => NotifyMode::default(),
    };
    let has_display = cfg!(target_os = "macos")
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some();
    Ok(ConsoleOptions {
        profile: None,
        project: scope.project.clone(),
        host: host_of(base_url),
        read_only: args.read_only,
        notify,
        has_display: has_display && std::env::var_os("SSH_CONNECTION").is_none(),
        poll_interval,
        hourly_limit: crate::api::HOURLY_LIMIT,
        seed: rand::random(),
        templates: crate::insight::templates::all(&[]),
        whole_max_rows: crate::insight::whole::DEFAULT_MAX_ROWS,
        columns: JobColumn::DEFAULT.to_vec(),
        mouse: !args.no_mouse,
        prefs: crate::tui::app::Prefs::default(),
        clipboard: crate::tui::clipboard::Clipboard::default(),
    })
}

/// The profile's console settings: its columns (an unknown name stops the start, naming
/// it and the valid ones) and `mouse = false`.
fn apply_profile(config: &mut ConsoleOptions, settings: &Settings) -> Result<(), CliError> {
    if let Some(names) = &settings.columns {
        config.columns = JobColumn::parse_list(names)
            .map_err(|err| CliError::usage(format!("{}: {err}", settings.config_path.display())))?;
        if config.columns.is_empty() {
            return Err(CliError::usage(format!(
                "{}: columns is empty: name at least one, such as columns = [\"status\", \"id\", \"prompt\"]",
                settings.config_path.display()
            )));
        }
    }
    if settings.mouse == Some(false) {
        config.mouse = false;
    }
    Ok(())
}

fn host_of(url: &url::Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        _ => url.to_string(),
    }
}

async fn open(
    config: ConsoleOptions,
    services: Services,
    startup: Option<crate::tui::effects::StartupRead>,
    theme: Theme,
) -> Outcome {
    let editor = std::env::var("VISUAL")
        .ok()
        .or_else(|| std::env::var("EDITOR").ok())
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "vi".to_owned());
    let ended_by = crate::tui::run(App::new(config), services, startup, editor, theme)
        .await
        .map_err(|err| CliError::failed(err.to_string()))?;
    // Ended by a signal: exit as a shell reports it (143 for SIGTERM, 129 for SIGHUP), the
    // terminal already given back.
    Ok(ended_by.map_or(ExitCode::SUCCESS, |signal| {
        ExitCode::from(u8::try_from(128 + signal).unwrap_or(1))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found in the new-user trial (#13): the archived demo job's timeline "as observed
    /// here" said `archived` at its creation, days before the console existed.
    #[test]
    fn the_demo_journal_sees_the_seeded_statuses_when_the_demo_starts() {
        let created = DateTime::parse_from_rfc3339("2026-11-07T09:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let now = created + chrono::TimeDelta::days(20);
        let seeded = server::seed::SeededJob {
            id: "job_archived".into(),
            prompts: vec![("Translate the FAQ".into(), created.timestamp_millis())],
            job: crate::api::Job {
                id: Some("job_archived".into()),
                status: Some(crate::api::JobStatus::Archived),
                created_at: Some(created),
                ..crate::api::Job::default()
            },
        };
        let scope = Scope {
            service: "http://127.0.0.1:1".into(),
            project: "demo".into(),
        };
        let mut journal = Journal::open_in_memory().unwrap();
        remember_seeded_jobs(&mut journal, &scope, &[seeded], now).unwrap();
        let timeline = journal.timeline(&scope, "job_archived").unwrap();
        assert_eq!(timeline.len(), 1);
        assert_eq!(timeline[0].observed_at, now);
        let prompts = journal.conversation(&scope, "job_archived").unwrap();
        assert_eq!(prompts[0].sent_at, created, "the prompt keeps its own time");
    }
}
