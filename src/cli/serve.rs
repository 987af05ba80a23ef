//! `docdeck serve`: the local service.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::serve_keys::{KeySourceArgs, KeysCommand};
use super::setup::duration_arg;
use super::store_arg::{db_location, wrap};
use super::{CliError, Outcome};
use crate::server::agent::{OutcomeWeights, SimulatedAgent};
use crate::server::faults::{FaultPlan, Latency, Rate};
use crate::server::jobs::JobDefaults;
use crate::server::listen::ConnLimits;
use crate::server::pg::node::NodeConfig;
use crate::server::{self, DEFAULT_ADDR, SeedKind, ServeOptions};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SeedArg {
    /// 90 days of invented traffic over 243 pages and five finished jobs
    Demo,
    /// Nothing: start empty (load data with `docdeck import`)
    None,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ServeArgs {
    /// Manage the keys stored in a service database (instead of serving).
    #[command(subcommand)]
    pub keys: Option<ServeCommand>,
    /// Address to listen on: HOST:PORT, where HOST is an IP address or a name such as
    /// localhost; port 0 picks a free port
    #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_ADDR, value_parser = addr_arg)]
    pub addr: String,
    /// Database file, :memory:, or a postgres:// URL (DOCDECK_DATABASE_URL may hold it
    /// instead) [default: service.sqlite in the data folder]
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
    /// Project the key is for
    #[arg(long, value_name = "ID", default_value = "demo")]
    pub project: String,
    /// The key given (DOCDECK_SERVE_API_KEY, --api-key-file or --api-key) is added for the
    /// project if it is not stored; it revokes no other key. Without one, a key is
    /// generated when the project has none, printed once on standard error, and stored
    /// only as a keyed hash
    #[command(flatten)]
    pub key: KeySourceArgs,
    /// Data a new project starts with: only a project that has never existed in this
    /// database (no views, jobs or key) is seeded; one with data of its own never is
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
    /// On PostgreSQL: this node's name, recorded with each turn it runs and shown by
    /// `jobs get` [default: host name and process id]
    #[arg(long, value_name = "NAME", value_parser = node_name_arg)]
    pub node_name: Option<String>,
    /// On PostgreSQL: how long a turn stays this node's without a renewal (renewed every
    /// third of it while the agent runs); once it has run out, another node fails the
    /// turn as interrupted
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = lease_arg)]
    pub lease: Duration,
    /// Repository URL new jobs work on (pull request links are made from it)
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://forge.invalid/acme/docs"
    )]
    pub repository: String,
    /// Branch new jobs work on
    #[arg(long = "ref", value_name = "REF", default_value = "main")]
    pub git_ref: String,
    /// Model name new jobs report
    #[arg(long, value_name = "NAME", default_value = "docdeck-simulated")]
    pub model: String,
    /// Time a client has to send a request's headers, such as 30s; a slower one is closed
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = duration_arg)]
    pub header_timeout: Duration,
    /// A connection with no byte either way for this long is closed, such as 60s
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = duration_arg)]
    pub idle_timeout: Duration,
    /// Time a client has to send a request's body once its headers are in, such as 60s;
    /// a slower body is answered 408
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = duration_arg)]
    pub body_timeout: Duration,
    /// Connections open at once; one more is answered 503 and closed
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    #[command(flatten)]
    pub faults: Box<FaultArgs>,
    #[command(flatten)]
    pub agent: super::agent_args::AgentArgs,
}

/// `docdeck serve keys ...`.
#[derive(Debug, clap::Subcommand)]
pub enum ServeCommand {
    /// List, add or revoke the keys of a service database.
    #[command(subcommand)]
    Keys(KeysCommand),
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

/// Checks the form of `--addr` (HOST:PORT); a host name is resolved when the service starts.
fn addr_arg(text: &str) -> Result<String, String> {
    if text.parse::<SocketAddr>().is_ok() {
        return Ok(text.to_owned());
    }
    match text.rsplit_once(':') {
        Some((host, port))
            if !host.is_empty() && !host.contains(':') && port.parse::<u16>().is_ok() =>
        {
            Ok(text.to_owned())
        }
        _ => Err(format!(
            "{text:?} is not HOST:PORT, such as 127.0.0.1:8787, localhost:8787 or [::1]:0"
        )),
    }
}

/// The address to bind: an IP literal as given, or a host name looked up (its first IPv4
/// address if it has one, as clients of `localhost` try both families).
async fn resolve_addr(addr: &str) -> Result<SocketAddr, CliError> {
    if let Ok(literal) = addr.parse() {
        return Ok(literal);
    }
    let cannot = |reason: String| {
        CliError::failed(format!(
            "cannot resolve --addr {addr}: {reason}; give an IP address such as 127.0.0.1:8787, or a host name this machine can look up"
        ))
    };
    let found: Vec<SocketAddr> = tokio::net::lookup_host(addr)
        .await
        .map_err(|err| cannot(err.to_string()))?
        .collect();
    found
        .iter()
        .find(|candidate| candidate.is_ipv4())
        .or_else(|| found.first())
        .copied()
        .ok_or_else(|| cannot("the name has no address".to_owned()))
}

/// Said at start when no `--agent-command` is given: jobs here are not real work.
fn simulated_notice(options: &ServeOptions) -> String {
    wrap(&format!(
        "docdeck: the agent is simulated: each turn takes {} ms and draws an outcome ({}) without touching any repository; its pull request links ({}/pull/N) are made up. Give --agent-command and --repo for a real agent",
        options.agent.delay.as_millis(),
        options.agent.weights,
        options.defaults.repository
    ))
}

fn options(args: ServeArgs, addr: SocketAddr) -> Result<ServeOptions, CliError> {
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
        addr,
        db: db_location(args.db.as_deref())?,
        project: args.project,
        api_key: args.key.key()?,
        seed: match args.seed {
            SeedArg::Demo => SeedKind::Demo,
            SeedArg::None => SeedKind::None,
        },
        agent: SimulatedAgent {
            delay: Duration::from_millis(args.agent_delay_ms),
            weights: args.agent_outcomes,
            seed: args.agent_seed,
        },
        real_agent: args.agent.config()?,
        demo_change: false,
        allow_remote_agent: args.agent.allow_remote_agent,
        rate_limit: args.rate_limit,
        archive_after: args.archive_after,
        defaults: JobDefaults {
            repository: repository.as_str().trim_end_matches('/').to_owned(),
            git_ref: Some(args.git_ref),
            model: args.model,
        },
        faults: args.faults.plan()?,
        limits: ConnLimits {
            header_timeout: args.header_timeout,
            idle_timeout: args.idle_timeout,
            body_timeout: args.body_timeout,
            max_connections: args.max_connections as usize,
        },
        auth_penalty: Duration::from_secs(1),
        node_name: match args.node_name {
            Some(name) if name.trim().is_empty() => {
                return Err(CliError::usage("--node-name must not be empty"));
            }
            Some(name) => name,
            None => NodeConfig::default_name(),
        },
        max_agents: usize::from(args.agent.max_agents),
        lease: args.lease,
        poll: Duration::from_secs(5),
    })
}

pub async fn serve(mut args: ServeArgs) -> Outcome {
    if let Some(ServeCommand::Keys(command)) = args.keys.take() {
        return super::serve_keys::run(command);
    }
    let addr = resolve_addr(&args.addr).await?;
    let options = options(args, addr)?;
    let project = options.project.clone();
    let simulated = options
        .real_agent
        .is_none()
        .then(|| simulated_notice(&options));
    // Handlers first: a signal that comes as soon as the listening line is out must stop
    // the service cleanly, not end the process with the default action.
    let mut signals = Signals::install()?;
    let mut running = server::start(options)
        .await
        .map_err(|err| CliError::failed(err.to_string()))?;
    if let Some(key) = &running.generated_key {
        say!(
            "docdeck: generated an API key for project {project}; it is stored only as a hash and shown this once:\n  {}",
            key.expose()
        );
    }
    // The service already answers; the notice waits for the seed's views.
    let seeded = running
        .seeded()
        .await
        .map_err(|err| CliError::failed(err.to_string()))?;
    if let Some(seeded) = &seeded {
        say!("{}", seeded_notice(&project, seeded));
    }
    if let Some(footprint) = &running.seed_refused {
        say!("{}", refused_notice(&project, footprint));
    }
    if let Some(notice) = &simulated {
        say!("{notice}");
    }
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "listening on {}", running.base_url());
    let _ = stdout.flush();
    let stop = signals.next().await;
    tracing::info!("{} received: shutting down", stop.name());
    if let Some(note) = running.stopping_note().await {
        say!("{}", wrap(&format!("docdeck: {note}")));
    }
    running.shutdown().await;
    Ok(ExitCode::from(stop.exit_code()))
}

/// Said on standard error when invented data was added, so nobody mistakes it for theirs.
fn seeded_notice(project: &str, seeded: &server::seed::SeedSummary) -> String {
    // Nodes starting together on PostgreSQL seed once: the one that wrote nothing says
    // who did (it said "given … 0 views … and 0 finished jobs").
    if seeded.views == 0 && seeded.jobs.is_empty() {
        return wrap(&format!(
            "docdeck: project {project} was new in this database and holds INVENTED demo \
             data, written by another node that started at the same time. For an empty \
             project, start with a new --db and --seed none."
        ));
    }
    wrap(&format!(
        "docdeck: project {project} is new in this database, so it was given INVENTED demo \
         data: {} views over {} pages in the last {} days and {} finished jobs. For an empty \
         project, start with a new --db and --seed none.",
        crate::text::thousands(seeded.views as u64),
        seeded.pages,
        server::seed::SEED_DAYS,
        seeded.jobs.len()
    ))
}

/// Said on standard error when the demo seed was asked for (the default) but not applied.
fn refused_notice(project: &str, footprint: &server::seed::Footprint) -> String {
    wrap(&format!(
        "docdeck: no demo data was added: project {project} already has {footprint} in this \
         database, and demo data goes only into a project that has never existed there. \
         Pass --seed none to start without this notice."
    ))
}

/// The signal that stopped `serve`, and the exit status a shell would report for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Interrupt,
    Terminate,
    HangUp,
}

impl Stop {
    fn name(self) -> &'static str {
        match self {
            Self::Interrupt => "SIGINT",
            Self::Terminate => "SIGTERM",
            Self::HangUp => "SIGHUP",
        }
    }

    /// 128 + the signal number, as a shell reports a process its signal ended.
    fn exit_code(self) -> u8 {
        match self {
            Self::Interrupt => 130,
            Self::Terminate => 143,
            Self::HangUp => 129,
        }
    }
}

/// The stop signals `serve` handles, installed before the service starts.
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    hang_up: tokio::signal::unix::Signal,
}

impl Signals {
    #[cfg(unix)]
    fn install() -> Result<Self, CliError> {
        use tokio::signal::unix::{SignalKind, signal};
        let handler = |kind: SignalKind| {
            signal(kind)
                .map_err(|err| CliError::failed(format!("cannot handle stop signals: {err}")))
        };
        Ok(Self {
            interrupt: handler(SignalKind::interrupt())?,
            terminate: handler(SignalKind::terminate())?,
            hang_up: handler(SignalKind::hangup())?,
        })
    }

    #[cfg(not(unix))]
    fn install() -> Result<Self, CliError> {
        Ok(Self {})
    }

    /// Ctrl-C, SIGTERM or SIGHUP, whichever comes first.
    #[cfg(unix)]
    async fn next(&mut self) -> Stop {
        tokio::select! {
            _ = self.interrupt.recv() => Stop::Interrupt,
            _ = self.terminate.recv() => Stop::Terminate,
            _ = self.hang_up.recv() => Stop::HangUp,
        }
    }

    #[cfg(not(unix))]
    async fn next(&mut self) -> Stop {
        let _ = tokio::signal::ctrl_c().await;
        Stop::Interrupt
    }
}

/// A `--node-name`: printed in logs and by `jobs get`, so no control characters (an escape
/// sequence in it reached the logs raw), and short enough for a table.
fn node_name_arg(text: &str) -> Result<String, String> {
    if text.trim().is_empty() || text.chars().count() > 64 {
        return Err(format!(
            "{:?} is no node name: give 1 to 64 characters, such as build-3",
            crate::text::excerpt(text, 80)
        ));
    }
    if text
        .chars()
        .any(|c| c.is_control() || crate::text::is_bidi_control(c))
    {
        return Err(format!(
            "{:?} holds control characters: give a node name of letters, digits and punctuation, such as build-3",
            crate::text::sanitize(text)
        ));
    }
    Ok(text.to_owned())
}

/// A `--lease`: from 1 s (renewed every third of it, a shorter one could not be renewed in
/// time) to a day (a node that dies holds its turns that long).
fn lease_arg(text: &str) -> Result<Duration, String> {
    let lease = duration_arg(text)?;
    if (Duration::from_secs(1)..=Duration::from_secs(86_400)).contains(&lease) {
        Ok(lease)
    } else {
        Err(format!(
            "{text:?} is no lease a node can keep: give from 1s to 1d (30s by default); the node renews it every third, and a node that dies holds its turns that long"
        ))
    }
}

#[cfg(test)]
mod tests;
