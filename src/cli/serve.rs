//! `docdeck serve`: the local service.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::context::duration_arg;
use super::{CliError, Outcome, default_service_db};
use crate::config::Secret;
use crate::server::agent::{OutcomeWeights, SimulatedAgent};
use crate::server::db::DbLocation;
use crate::server::faults::{FaultPlan, Latency, Rate};
use crate::server::jobs::JobDefaults;
use crate::server::{self, DEFAULT_ADDR, SeedKind, ServeOptions};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SeedArg {
    /// 90 days of traffic over 240 pages and a few finished jobs
    Demo,
    /// Nothing: start empty (load data with `docdeck import`)
    None,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port
    #[arg(long, default_value = DEFAULT_ADDR)]
    pub addr: SocketAddr,
    /// Database file, or :memory: [default: service.sqlite in the data folder]
    #[arg(long, value_name = "PATH")]
    pub db: Option<String>,
    /// Project the key is for
    #[arg(long, value_name = "ID", default_value = "demo")]
    pub project: String,
    /// API key accepted for the project. Without it, a key is generated the first time
    /// the project is served, printed once on standard error, and stored only as a hash
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,
    /// Data a new project starts with (applied once per project)
    #[arg(long, value_enum, default_value = "demo")]
    pub seed: SeedArg,
    /// How long the simulated agent takes per turn, in milliseconds
    #[arg(long, value_name = "N", default_value_t = 4000)]
    pub agent_delay_ms: u64,
    /// Relative weights of turn outcomes: pull request, nothing to change, failure
    #[arg(
        long,
        value_name = "WEIGHTS",
        default_value = "pr=75,nochange=15,fail=10"
    )]
    pub agent_outcomes: OutcomeWeights,
    /// Seed of the agent's outcomes: the same seed and order of jobs give the same outcomes
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub agent_seed: u64,
    /// Calls allowed per project per rolling hour, for create, message and analytics each
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_limit: u32,
    /// Finished jobs idle this long become archived, such as 7d or 90s
    #[arg(long, value_name = "DURATION", default_value = "7d", value_parser = duration_arg)]
    pub archive_after: Duration,
    /// Repository URL new jobs work on (pull request links are made from it)
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://github.com/acme/docs"
    )]
    pub repository: String,
    /// Branch new jobs work on
    #[arg(long = "ref", value_name = "REF", default_value = "main")]
    pub git_ref: String,
    /// Model name new jobs report
    #[arg(long, value_name = "NAME", default_value = "docdeck-simulated")]
    pub model: String,
    #[command(flatten)]
    pub faults: FaultArgs,
}

/// Faults on demand, to test a client against a flaky network and a misbehaving service.
/// All off by default.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Faults (for testing clients; off by default)")]
pub struct FaultArgs {
    /// Share of requests answered 500, 502 or 503 without being carried out, such as 0.05
    #[arg(long, value_name = "P", default_value = "0")]
    pub fault_rate: Rate,
    /// Share of requests whose connection is closed without a response (half before the
    /// request is carried out, half after)
    #[arg(long, value_name = "P", default_value = "0")]
    pub drop_rate: Rate,
    /// Share of requests carried out and then answered 200 with a body that is not the
    /// documented JSON
    #[arg(long, value_name = "P", default_value = "0")]
    pub garbage_rate: Rate,
    /// Delay added to every request, drawn from MIN..MAX milliseconds, such as 50..400
    #[arg(long, value_name = "MIN..MAX")]
    pub latency_ms: Option<Latency>,
    /// Answer 429 without a Retry-After header, as the hosted service may
    #[arg(long)]
    pub rate_limit_no_retry_after: bool,
    /// Seed of the fault draws: the same seed and order of requests give the same faults
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub fault_seed: u64,
}

impl FaultArgs {
    /// The plan, or a usage error when the shares add up to more than 1.
    pub fn plan(&self) -> Result<FaultPlan, CliError> {
        let plan = FaultPlan {
            fault_rate: self.fault_rate,
            drop_rate: self.drop_rate,
            garbage_rate: self.garbage_rate,
            latency: self.latency_ms,
            rate_limit_no_retry_after: self.rate_limit_no_retry_after,
            seed: self.fault_seed,
        };
        plan.validate().map_err(CliError::usage)?;
        Ok(plan)
    }
}

pub(super) fn db_location(db: Option<&str>) -> Result<DbLocation, CliError> {
    match db {
        Some(text) => Ok(DbLocation::parse(text)),
        None => Ok(DbLocation::File(default_service_db()?)),
    }
}

fn options(args: ServeArgs) -> Result<ServeOptions, CliError> {
    let repository = crate::config::parse_base_url(&args.repository).map_err(|_| {
        CliError::usage(format!(
            "--repository {:?} is not an http(s) URL such as https://github.com/acme/docs",
            args.repository
        ))
    })?;
    if args.project.is_empty() {
        return Err(CliError::usage("--project must not be empty"));
    }
    Ok(ServeOptions {
        addr: args.addr,
        db: db_location(args.db.as_deref())?,
        project: args.project,
        api_key: args.api_key.map(Secret::new),
        seed: match args.seed {
            SeedArg::Demo => SeedKind::Demo,
            SeedArg::None => SeedKind::None,
        },
        agent: SimulatedAgent {
            delay: Duration::from_millis(args.agent_delay_ms),
            weights: args.agent_outcomes,
            seed: args.agent_seed,
        },
        rate_limit: args.rate_limit,
        archive_after: args.archive_after,
        defaults: JobDefaults {
            repository: repository.as_str().trim_end_matches('/').to_owned(),
            git_ref: Some(args.git_ref),
            model: args.model,
        },
        faults: args.faults.plan()?,
    })
}

pub async fn serve(args: ServeArgs) -> Outcome {
    let options = options(args)?;
    let project = options.project.clone();
    let running = server::start(options)
        .await
        .map_err(|err| CliError::failed(err.to_string()))?;
    if let Some(key) = &running.generated_key {
        eprintln!(
            "docdeck: generated an API key for project {project}; it is stored only as a hash and shown this once:\n  {}",
            key.expose()
        );
    }
    if let Some(seeded) = &running.seeded {
        tracing::info!(
            views = seeded.views,
            pages = seeded.pages,
            jobs = seeded.jobs.len(),
            "seeded demo data"
        );
    }
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "listening on {}", running.base_url());
    let _ = stdout.flush();
    shutdown_signal().await;
    tracing::info!("shutting down");
    running.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

/// Ctrl-C, SIGTERM or SIGHUP.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let (Ok(mut term), Ok(mut hup)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
                _ = hup.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
