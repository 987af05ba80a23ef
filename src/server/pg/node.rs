//! One service node's share of the turns in a PostgreSQL database many nodes use: it
//! claims turns while it has a free agent slot, renews the lease of each turn its agent
//! runs, finishes the turn only while it still holds it, and fails the turns of nodes whose
//! leases ran out. It wakes on `NOTIFY` (a thread of its own listens) and polls as well,
//! so a lost notification only delays a turn by one poll.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinSet;

use super::outage::Outage;
use super::{PgStore, claim};
use crate::server::agent::output::OUTPUT_LIMIT;
use crate::server::agent::{Agent, NODE_STOPPED};
use crate::server::db::{StoreError, now_ms};
use crate::server::jobs::PendingTurn;

/// How a node takes part.
#[derive(Debug, Clone)]
pub struct NodeConfig {
    /// Recorded with each turn it claims (`--node-name`).
    pub name: String,
    /// Turns its agent runs at once (`--max-agents`).
    pub max_agents: usize,
    /// How long a claimed turn stays this node's without a renewal; renewed every third of
    /// it. Another node fails the turn once it has run out.
    pub lease: Duration,
    /// The longest a waiting turn goes unnoticed when a notification is lost.
    pub poll: Duration,
    /// The jobs whose turns it runs stay this node's (a real agent with no remote to push
    /// a job's branch to: another node would not see its work).
    pub keeps_jobs: bool,
}

impl NodeConfig {
    /// Host name and process id, such as `build-3:4121`.
    #[must_use]
    pub fn default_name() -> String {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|name| name.trim().to_owned())
            .filter(|name| !name.is_empty())
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_else(|| "node".to_owned());
        format!("{host}:{}", std::process::id())
    }
}

fn ms(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// This node's name and agents, and how many of its agent slots run a turn, for the
/// answer to a new job or follow-up: whether it is `starting` is read from every node's
/// agents in the database (`nodes::starts_now`); this node's own count answers only when
/// that read fails. A slot taken only to try a claim still counts as free: that claim may
/// be this very job's.
#[derive(Debug, Clone)]
pub struct Busy {
    name: Arc<str>,
    max: usize,
    running: Arc<AtomicUsize>,
}

impl Busy {
    #[must_use]
    pub fn new(config: &NodeConfig) -> Self {
        Self {
            name: Arc::from(config.name.as_str()),
            max: config.max_agents.max(1),
            running: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// This node's `--node-name`.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// This node's agents (`--max-agents`).
    #[must_use]
    pub fn max_agents(&self) -> usize {
        self.max
    }

    /// This node's agents not running a turn now.
    #[must_use]
    pub fn free_agents(&self) -> usize {
        self.max
            .saturating_sub(self.running.load(Ordering::Relaxed))
    }
}

/// Counts one running turn while it lives.
struct Running(Arc<AtomicUsize>);

impl Running {
    fn new(busy: &Busy) -> Self {
        busy.running.fetch_add(1, Ordering::Relaxed);
        Self(busy.running.clone())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Runs the node until its task is aborted (then its turns' leases simply run out).
pub async fn run(store: PgStore, agent: Arc<dyn Agent>, config: NodeConfig) {
    let busy = Busy::new(&config);
    run_counted(store, agent, config, busy).await;
}

/// [`run`], counting the turns it runs in `busy`.
pub async fn run_counted(store: PgStore, agent: Arc<dyn Agent>, config: NodeConfig, busy: Busy) {
    let wake = Arc::new(Notify::new());
    let stop = Arc::new(AtomicBool::new(false));
    let _listening = Listening::start(&store, wake.clone(), stop.clone(), config.poll);
    let slots = Arc::new(Semaphore::new(config.max_agents.max(1)));
    let mut turns = JoinSet::new();
    let mut outage = Outage::default();
    loop {
        while turns.try_join_next().is_some() {}
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let (name, lease, keeps) = (config.name.clone(), ms(config.lease), config.keeps_jobs);
        let claimed = store
            .call(move |client| {
                let now = now_ms();
                let failed = claim::fail_expired(client, NODE_STOPPED, now)?;
                for id in failed {
                    tracing::warn!(job = %id, "a node stopped renewing its turn: {NODE_STOPPED}");
                }
                claim::claim_keeping(client, &name, now, now.saturating_add(lease), keeps)
            })
            .await;
        if claimed.is_ok() {
            outage.recovered("the database answers claims");
        }
        match claimed {
            Ok(Some(turn)) => {
                let (store, agent, config) = (store.clone(), agent.clone(), config.clone());
                let running = Running::new(&busy);
                turns.spawn(async move {
                    let _running = running;
                    run_turn(&store, agent.as_ref(), &config, turn).await;
                    drop(slot);
                });
            }
            Ok(None) => {
                drop(slot);
                tokio::select! {
                    () = wake.notified() => {}
                    () = tokio::time::sleep(config.poll) => {}
                    Some(_) = turns.join_next(), if !turns.is_empty() => {}
                }
            }
            Err(err) => {
                drop(slot);
                outage.failed("cannot claim a turn", &err);
                tokio::time::sleep(config.poll).await;
            }
        }
    }
}

/// Runs one claimed turn, renewing its lease until the agent ends; a lease found lost
/// stops the agent and writes nothing (the turn was failed elsewhere).
async fn run_turn(store: &PgStore, agent: &dyn Agent, config: &NodeConfig, turn: PendingTurn) {
    let mut renewals = tokio::time::interval(config.lease / 3);
    renewals.tick().await;
    let running = agent.run_turn(&turn);
    tokio::pin!(running);
    let result = loop {
        tokio::select! {
            result = &mut running => break result,
            _ = renewals.tick() => {
                let (name, held) = (config.name.clone(), turn.clone());
                let until = now_ms().saturating_add(ms(config.lease));
                match store.call(move |c| claim::renew(c, &name, &held, until)).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(job = %turn.job_id, turn = turn.turn, "lost the lease: the turn was failed by another node");
                        return;
                    }
                    Err(err) => tracing::warn!(job = %turn.job_id, "cannot renew a lease: {err}"),
                }
            }
        }
    };
    let output = match &result.output {
        Some(file) => read_output(file).await,
        None => None,
    };
    let diff = match agent.changes(&turn.job_id).await {
        Some(Ok(diff)) => Some(diff),
        _ => None,
    };
    // While PostgreSQL cannot be reached the result is kept and recorded once it answers:
    // given up at the first try, a turn that finished during a restart of a few seconds
    // was failed as interrupted once its lease ran out (the trial of stop 33). A node that
    // failed it meanwhile wins: `finish` then records nothing.
    let mut outage = Outage::default();
    loop {
        let (name, done, kept, diff) = (
            config.name.clone(),
            turn.clone(),
            result.clone(),
            diff.clone(),
        );
        let finished = store
            .call(move |c| claim::finish(c, &name, &done, &kept, diff.as_deref(), now_ms()))
            .await;
        match finished {
            Ok(true) => {
                outage.recovered("the database takes finished turns");
                keep_output(store, &turn, output).await;
                return;
            }
            Ok(false) => {
                tracing::warn!(job = %turn.job_id, "finished a turn no longer held: not recorded");
                return;
            }
            Err(err @ (StoreError::Unreachable(_) | StoreError::Open { .. })) => {
                outage.failed("cannot record a finished turn yet (trying again)", &err);
                tokio::time::sleep(config.poll).await;
            }
            Err(err) => {
                tracing::error!(job = %turn.job_id, "cannot record a finished turn: {err}");
                return;
            }
        }
    }
}

/// What the agent printed, as kept in `file` (the agent keeps at most its output limit).
async fn read_output(file: &str) -> Option<String> {
    match tokio::fs::read(file).await {
        Ok(mut bytes) => {
            bytes.truncate(usize::try_from(OUTPUT_LIMIT).unwrap_or(usize::MAX));
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
        Err(err) => {
            tracing::warn!(file, "cannot read a turn's output to store it: {err}");
            None
        }
    }
}

/// Stores a finished turn's output in the database, so that every node serves it.
async fn keep_output(store: &PgStore, turn: &PendingTurn, output: Option<String>) {
    let Some(text) = output else {
        return;
    };
    let (seq, number) = (turn.job_seq, turn.turn);
    let kept = store
        .call(move |c| {
            c.execute(
                "UPDATE turns SET output_text = $3 WHERE job_seq = $1 AND turn = $2",
                &[&seq, &number, &text],
            )?;
            Ok(())
        })
        .await;
    if let Err(err) = kept {
        tracing::warn!(job = %turn.job_id, "cannot store a turn's output: {err}");
    }
}

/// The thread that `LISTEN`s for new turns and wakes the node; it ends when the node ends.
struct Listening {
    stop: Arc<AtomicBool>,
}

impl Listening {
    fn start(store: &PgStore, wake: Arc<Notify>, stop: Arc<AtomicBool>, poll: Duration) -> Self {
        let store = store.clone();
        let flag = stop.clone();
        std::thread::spawn(move || {
            let mut outage = Outage::default();
            while !flag.load(Ordering::Relaxed) {
                let mut client = match store.connect() {
                    Ok(client) => client,
                    Err(err) => {
                        outage.failed("cannot listen for new turns (polling instead)", &err);
                        std::thread::sleep(poll);
                        continue;
                    }
                };
                if let Err(err) = client.batch_execute(&format!("LISTEN {}", claim::CHANNEL)) {
                    let err = super::describe(&err);
                    outage.failed("cannot listen for new turns (polling instead)", &err);
                    std::thread::sleep(poll);
                    continue;
                }
                outage.recovered("listening for new turns");
                loop {
                    if flag.load(Ordering::Relaxed) {
                        return;
                    }
                    let mut notifications = client.notifications();
                    let mut waiting = notifications.timeout_iter(poll);
                    match postgres::fallible_iterator::FallibleIterator::next(&mut waiting) {
                        Ok(Some(_)) => wake.notify_one(),
                        Ok(None) => {}
                        Err(_) => break,
                    }
                }
            }
        });
        Self { stop }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The turns node `name` runs now (job id, turn), oldest first, and the turns waiting for
/// any node: what stopping this node ends and leaves.
pub fn under_way(
    client: &mut postgres::Client,
    name: &str,
) -> Result<(Vec<(String, i64)>, i64), StoreError> {
    let running = client
        .query(
            "SELECT j.id, t.turn FROM turns t JOIN jobs j ON j.seq = t.job_seq
             WHERE t.started_ms IS NOT NULL AND t.outcome IS NULL AND t.node = $1
             ORDER BY t.started_ms",
            &[&name],
        )?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let waiting = client
        .query_one(
            "SELECT COUNT(*) FROM turns WHERE started_ms IS NULL AND outcome IS NULL",
            &[],
        )?
        .get(0);
    Ok((running, waiting))
}
