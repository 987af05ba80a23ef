//! The local service: a complete implementation of the interface on axum and SQLite, used
//! by `docdeck serve`, by `docdeck demo` in-process, and by every test.

pub mod agent;
pub mod db;
pub mod faults;
pub mod gate;
pub mod http;
pub mod import;
pub mod jobs;
pub mod keys;
pub mod listen;
pub mod pg;
mod prepare;
pub mod ratelimit;
pub mod seed;
pub mod signals;
mod stopping;
pub mod store;
pub mod throttle;
pub mod traffic;
pub mod views;
pub mod worker;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use self::agent::{Agent, RealAgent, RealAgentConfig, SimulatedAgent};
use self::db::{DbLocation, StoreError};
use self::faults::{FaultPlan, Faults};
use self::gate::SeedGate;
use self::http::AppState;
use self::jobs::JobDefaults;
use self::keys::KeyError;
use self::listen::ConnLimits;
use self::ratelimit::RateLimiter;
use self::store::Store;
use self::throttle::AuthThrottle;
use crate::secret::Secret;

/// The address `docdeck serve` listens on by default.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8787";
/// Window of every rate limit.
pub const RATE_WINDOW: Duration = Duration::from_secs(3600);

/// Which data a new database starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedKind {
    /// 90 days of traffic and a few finished jobs (once per project).
    Demo,
    None,
}

/// Everything `docdeck serve` can be told.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub addr: SocketAddr,
    pub db: DbLocation,
    pub project: String,
    /// Added for `project` if it is not stored yet (it revokes nothing). Without it, a key
    /// is generated if the project has none that is not revoked.
    pub api_key: Option<Secret>,
    pub seed: SeedKind,
    /// The agent when `real_agent` is not given.
    pub agent: SimulatedAgent,
    /// Runs a real agent command on a repository instead of the simulated agent.
    pub real_agent: Option<RealAgentConfig>,
    /// `docdeck demo`: the seed's [`seed::MERGED_DEMO_JOB`] links to a change the demo
    /// makes in the real agent's repository once the service is up.
    pub demo_change: bool,
    /// Lets the real agent run with a non-loopback `addr`: anyone who can reach the
    /// service with the key could then make this host run the agent command.
    pub allow_remote_agent: bool,
    /// Uses per project per rolling hour, for create, message and analytics separately.
    pub rate_limit: u32,
    pub archive_after: Duration,
    pub defaults: JobDefaults,
    /// Faults to inject; off by default.
    pub faults: FaultPlan,
    /// Time limits of clients and the cap on open connections.
    pub limits: ConnLimits,
    /// How long an answer to a client past its free wrong keys is held back.
    pub auth_penalty: Duration,
    /// On PostgreSQL: this node's name, recorded with each turn it runs (`--node-name`).
    pub node_name: String,
    /// On PostgreSQL: turns this node runs at once when the agent sets no limit.
    pub max_agents: usize,
    /// On PostgreSQL: how long a turn stays this node's without a renewal; another node
    /// fails it as interrupted once it has run out (`--lease`).
    pub lease: Duration,
    /// On PostgreSQL: the longest a waiting turn goes unnoticed if a notification is lost.
    pub poll: Duration,
}

impl ServeOptions {
    /// The documented defaults, on loopback port 0 and the given database.
    #[must_use]
    pub fn new(db: DbLocation) -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            db,
            project: "demo".to_owned(),
            api_key: None,
            seed: SeedKind::None,
            agent: SimulatedAgent {
                delay: Duration::from_secs(4),
                weights: agent::OutcomeWeights::default(),
                seed: 0,
            },
            real_agent: None,
            demo_change: false,
            allow_remote_agent: false,
            rate_limit: 100,
            archive_after: Duration::from_secs(7 * 24 * 3600),
            defaults: JobDefaults {
                repository: "https://forge.invalid/acme/docs".to_owned(),
                git_ref: Some("main".to_owned()),
                model: "docdeck-simulated".to_owned(),
            },
            faults: FaultPlan::default(),
            limits: ConnLimits::default(),
            auth_penalty: Duration::from_secs(1),
            node_name: pg::node::NodeConfig::default_name(),
            max_agents: 4,
            lease: Duration::from_secs(30),
            poll: Duration::from_secs(5),
        }
    }
}

/// Why the service could not start.
#[derive(Debug, Error)]
pub enum ServeError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "cannot listen on {addr}: {reason}; choose another with --addr (port 0 picks a free one)"
    )]
    Bind { addr: SocketAddr, reason: String },
    #[error(
        "the real agent runs a command on this machine for anyone with the key, so it listens only on loopback: use --addr 127.0.0.1:PORT, or pass --allow-remote-agent if {addr} is meant (behind a firewall or a proxy you trust)"
    )]
    RemoteAgent { addr: SocketAddr },
    #[error("cannot start the real agent: {0}")]
    Agent(String),
    #[error("the API key given cannot be used: {0}")]
    Key(#[from] KeyError),
}

/// A started service. Stop it with [`RunningServer::shutdown`].
pub struct RunningServer {
    pub addr: SocketAddr,
    /// The key made at this start, if one was: it is not stored and cannot be shown again.
    pub generated_key: Option<Secret>,
    /// The jobs the demo seed made at this start (only ever in a project that was new).
    /// Its views are written in the background: see [`RunningServer::seeded`].
    pub seeded_jobs: Vec<seed::SeededJob>,
    /// The demo seed was asked for but the project already holds this much data of its
    /// own, so nothing invented was added.
    pub seed_refused: Option<seed::Footprint>,
    seeding: Seeding,
    stop: Option<oneshot::Sender<()>>,
    serving: JoinHandle<std::io::Result<()>>,
    worker: JoinHandle<()>,
    /// Stopped with the service: a real agent's processes end with it.
    agent: Arc<dyn Agent>,
    db: Store,
    /// The agent runs an interrupted turn again at the next start (else it is failed).
    reruns_interrupted: bool,
    /// This node's `--node-name` and lease (PostgreSQL: what its stop leaves to others).
    node: (String, std::time::Duration),
}

/// The demo seed's views, written in the background while the service already answers.
enum Seeding {
    None,
    Writing(JoinHandle<Result<(usize, usize), StoreError>>),
    Done(seed::SeedSummary),
}

impl RunningServer {
    /// Waits for the demo seed's views and says what the seed wrote at this start (`None`
    /// when it wrote nothing).
    pub async fn seeded(&mut self) -> Result<Option<seed::SeedSummary>, ServeError> {
        if let Seeding::Writing(task) = &mut self.seeding {
            let (views, pages) = task
                .await
                .map_err(|err| StoreError::Task(err.to_string()))??;
            self.seeding = Seeding::Done(seed::SeedSummary {
                views,
                pages,
                jobs: self.seeded_jobs.clone(),
            });
        }
        Ok(match &self.seeding {
            Seeding::Done(summary) => Some(summary.clone()),
            Seeding::None | Seeding::Writing(_) => None,
        })
    }

    /// `http://HOST:PORT`, the base URL clients use.
    #[must_use]
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// What stopping now ends, in words for the person who stops it: the turns under way
    /// (and how they read after a restart) and the turns still waiting. `None` when
    /// nothing is under way or waiting.
    pub async fn stopping_note(&self) -> Option<String> {
        if let Store::Postgres(pg) = &self.db {
            let name = self.node.0.clone();
            let (running, waiting) = pg.call(move |c| pg::node::under_way(c, &name)).await.ok()?;
            if running.is_empty() && waiting == 0 {
                return None;
            }
            return Some(stopping::node_words(
                &running,
                waiting,
                &self.node.0,
                self.node.1,
            ));
        }
        let (running, waiting) = self.db.call(|conn| jobs::under_way(conn)).await.ok()?;
        if running.is_empty() && waiting == 0 {
            return None;
        }
        Some(stopping::words(&running, waiting, self.reruns_interrupted))
    }

    /// Stops accepting requests, lets those in flight finish, and stops the agent. Turns
    /// in progress stay queued in the database and resume at the next start.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Ok(Err(err)) = (&mut self.serving).await {
            tracing::warn!("the server stopped with an error: {err}");
        }
        // The turns' tasks go first, so none records an outcome for an agent killed here:
        // the next start fails them as interrupted, as the stopping note said. Dropping a
        // task kills its launcher only; what the agent started is ended from the notes.
        self.worker.abort();
        let _ = (&mut self.worker).await;
        if let Store::Postgres(pg) = &self.db {
            // Its agents are no longer counted as free by the other nodes.
            let name = self.node.0.clone();
            if let Err(err) = pg.call(move |c| pg::nodes::leave(c, &name)).await {
                tracing::debug!("cannot remove this node's row: {err}");
            }
        }
        self.agent.stop_running().await;
    }
}

/// Opens the database, prepares keys and the seed's jobs, resumes active jobs and starts
/// serving; then writes the seed's views in the background (analytics answers wait for
/// them, nothing else does).
pub async fn start(options: ServeOptions) -> Result<RunningServer, ServeError> {
    if options.real_agent.is_some()
        && !options.addr.ip().is_loopback()
        && !options.allow_remote_agent
    {
        return Err(ServeError::RemoteAgent { addr: options.addr });
    }
    let store = prepare::open(&options.db).await?;
    let prepared = prepare::prepare(&store, &options).await??;
    let listener = TcpListener::bind(options.addr)
        .await
        .map_err(|err| ServeError::Bind {
            addr: options.addr,
            reason: err.to_string(),
        })?;
    let addr = listener.local_addr().map_err(|err| ServeError::Bind {
        addr: options.addr,
        reason: err.to_string(),
    })?;
    let mut defaults = options.defaults.clone();
    let mut keeps_jobs = false;
    let agent: Arc<dyn Agent> = match options.real_agent.clone() {
        Some(config) => {
            let real = RealAgent::prepare(config)
                .await
                .map_err(ServeError::Agent)?;
            if store.is_postgres() && !real.pushes() {
                keeps_jobs = true;
                tracing::warn!(
                    node = %options.node_name,
                    "the real agent has no remote to push a job's branch to, so the follow-ups of a job this node runs stay on this node, where its work is (other nodes leave them); keep the same --node-name across restarts so they are still taken, or give --push-remote (or --repo a URL) to share jobs between nodes"
                );
            }
            // Jobs say where they really work and what runs them.
            defaults = JobDefaults {
                repository: real.repository(),
                git_ref: Some(real.base_branch().to_owned()),
                model: real.model(),
            };
            Arc::new(real)
        }
        None => Arc::new(options.agent.clone()),
    };
    let reruns_interrupted = agent.reruns_interrupted_turns();
    let archive_after_ms = i64::try_from(options.archive_after.as_millis()).unwrap_or(i64::MAX);
    let mut node_busy = None;
    let (worker, worker_task) = match &store {
        Store::Sqlite(db) => {
            let (worker, task) =
                prepare::start_worker(db, agent.clone(), archive_after_ms, &options.node_name)
                    .await?;
            (Some(worker), task)
        }
        Store::Postgres(pg) => {
            let config = pg::node::NodeConfig {
                name: options.node_name.clone(),
                max_agents: agent.max_concurrent().unwrap_or(options.max_agents),
                lease: options.lease,
                poll: options.poll,
                keeps_jobs,
            };
            tracing::info!(node = %config.name, db = %pg.url(), "this node claims turns from PostgreSQL");
            let busy = pg::node::Busy::new(&config);
            node_busy = Some(busy.clone());
            // Other nodes count this node's agents from its first answer on.
            if let Err(err) = pg::nodes::join(pg, &config).await {
                tracing::warn!("cannot record this node's agents yet: {err}");
            }
            let alive = pg::nodes::keep_alive(pg.clone(), config.clone());
            let node = pg::node::run_counted(pg.clone(), agent.clone(), config, busy);
            let sweep = worker::sweep(store.clone(), agent.clone(), archive_after_ms);
            (
                None,
                tokio::spawn(async move {
                    tokio::join!(node, sweep, alive);
                }),
            )
        }
    };
    let (seeding, seed_gate) = match prepared.pending_views {
        Some(views) => {
            let (done, gate) = SeedGate::closed();
            (Some((views, done)), gate)
        }
        None => (None, SeedGate::open()),
    };
    let state = Arc::new(AppState {
        agent: Arc::clone(&agent),
        db: store.clone(),
        seed: seed_gate,
        keys: prepared.keys,
        throttle: AuthThrottle::new(options.auth_penalty),
        limiter: RateLimiter::new(options.rate_limit, RATE_WINDOW),
        worker,
        node_busy,
        defaults,
        archive_after_ms,
        diffs: tokio::sync::Semaphore::new(http::PARALLEL_DIFFS),
        agent_project: options
            .real_agent
            .is_some()
            .then(|| options.project.clone()),
        service_url: format!("http://{addr}"),
        widget: http::widget_limiter(),
    });
    let (stop, stopped) = oneshot::channel::<()>();
    let mut app = http::router(state);
    if !options.faults.is_off() {
        tracing::warn!(faults = %options.faults.summary(), "injecting faults");
        app = app.layer(axum::middleware::from_fn_with_state(
            Faults::new(options.faults.clone()),
            faults::inject,
        ));
    }
    let kept = store.clone();
    let serving = tokio::spawn(listen::serve(listener, app, options.limits, stopped));
    tracing::info!(%addr, project = %options.project, "local service ready");
    // Last, once the service answers: the seed's views take a few hundred ms.
    let seeding = match seeding {
        Some((views, done)) => Seeding::Writing(tokio::spawn(async move {
            let written = prepare::write_seed_views(&store, views).await;
            done.finish(written.as_ref().map(|_| ()).map_err(ToString::to_string));
            written
        })),
        None => Seeding::None,
    };
    // As a read would answer them: a link kept as a path is a page of this service.
    let mut seeded_jobs = prepared.seeded_jobs;
    for seeded in &mut seeded_jobs {
        if let Some(path) = seeded.job.pr_link.take() {
            seeded.job.pr_link = Some(if path.starts_with('/') {
                format!("http://{addr}{path}")
            } else {
                path
            });
        }
    }
    Ok(RunningServer {
        addr,
        generated_key: prepared.generated_key,
        seeded_jobs,
        seed_refused: prepared.seed_refused,
        seeding,
        stop: Some(stop),
        serving,
        worker: worker_task,
        agent,
        db: kept,
        reruns_interrupted,
        node: (options.node_name.clone(), options.lease),
    })
}
