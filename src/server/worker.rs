//! Runs agent turns: one task per job with queued turns, never two for the same job, so a
//! follow-up to an active job waits for the current turn to end; and at most the agent's
//! limit of turns at once, the others waiting with their jobs `active`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use super::agent::Agent;
use super::db::{Db, ReadKind, now_ms};
use super::jobs;
use super::store::Store;

enum Signal {
    /// A job has a new turn queued.
    Kick(String),
    /// A job's task found no more turns and ended.
    Done(String),
}

/// Hands jobs to the dispatcher. Cheap to clone.
#[derive(Clone)]
pub struct Worker {
    signals: mpsc::UnboundedSender<Signal>,
    /// The agents' slots, when the agent has a limit.
    slots: Option<Arc<Semaphore>>,
}

impl Worker {
    /// Starts the dispatcher. Dropping the returned task's handle does not stop it; abort
    /// it to stop every turn in flight (their turns stay queued and resume on restart).
    /// Also sweeps, now and every few minutes, what the agent keeps for jobs idle past
    /// `archive_after_ms` (they are archived, or will be at their next read).
    /// Each turn is recorded as run by `node` (`serve --node-name`).
    pub fn start(
        db: Db,
        agent: Arc<dyn Agent>,
        archive_after_ms: i64,
        node: &str,
    ) -> (Self, tokio::task::JoinHandle<()>) {
        let (signals, inbox) = mpsc::unbounded_channel();
        let slots = agent
            .max_concurrent()
            .map(|n| Arc::new(Semaphore::new(n.max(1))));
        let worker = Self {
            signals,
            slots: slots.clone(),
        };
        let sweeper = sweep(Store::Sqlite(db.clone()), agent.clone(), archive_after_ms);
        let dispatcher = dispatch(db, agent, slots, inbox, worker.clone(), Arc::from(node));
        let task = tokio::spawn(async move {
            tokio::join!(dispatcher, sweeper);
        });
        (worker, task)
    }

    /// How many agents are free now: none taken by a turn (`None`: the agent has no
    /// limit). A job that waits no further back than this gets one as soon as it is kicked.
    #[must_use]
    pub fn free_agents(&self) -> Option<usize> {
        self.slots.as_ref().map(|slots| slots.available_permits())
    }

    /// Tells the dispatcher that `job_id` has work.
    pub fn kick(&self, job_id: String) {
        // Fails only once the dispatcher has stopped, at shutdown; the turn stays queued.
        let _ = self.signals.send(Signal::Kick(job_id));
    }
}

async fn dispatch(
    db: Db,
    agent: Arc<dyn Agent>,
    slots: Option<Arc<Semaphore>>,
    mut inbox: mpsc::UnboundedReceiver<Signal>,
    worker: Worker,
    node: Arc<str>,
) {
    // Job id -> whether it was kicked again while its task ran.
    let mut running: HashMap<String, bool> = HashMap::new();
    let mut tasks = JoinSet::new();
    while let Some(signal) = inbox.recv().await {
        while tasks.try_join_next().is_some() {}
        let job_id = match signal {
            Signal::Kick(id) => match running.get_mut(&id) {
                Some(kicked_again) => {
                    *kicked_again = true;
                    continue;
                }
                None => id,
            },
            Signal::Done(id) => match running.remove(&id) {
                Some(true) => id,
                _ => continue,
            },
        };
        running.insert(job_id.clone(), false);
        tasks.spawn(run_job(
            db.clone(),
            agent.clone(),
            slots.clone(),
            job_id,
            worker.clone(),
            node.clone(),
        ));
    }
}

async fn run_job(
    db: Db,
    agent: Arc<dyn Agent>,
    slots: Option<Arc<Semaphore>>,
    job_id: String,
    worker: Worker,
    node: Arc<str>,
) {
    loop {
        // The slot is taken before the turn is read and marked started: a turn that waits
        // for a slot has not begun, so a restart runs it rather than failing it.
        let _slot = match &slots {
            Some(slots) => match slots.clone().acquire_owned().await {
                Ok(permit) => Some(permit),
                Err(_) => break,
            },
            None => None,
        };
        let id = job_id.clone();
        let turn = match db.call(move |conn| jobs::next_turn(conn, &id)).await {
            Ok(Some(turn)) => turn,
            Ok(None) => break,
            Err(err) => {
                tracing::error!(job = %job_id, "cannot read the next turn: {err}");
                break;
            }
        };
        let (started, on) = (turn.clone(), node.clone());
        if let Err(err) = db
            .call(move |conn| jobs::mark_started(conn, &started, Some(&on), now_ms()))
            .await
        {
            tracing::error!(job = %job_id, "cannot record a turn's start: {err}");
            break;
        }
        let result = agent.run_turn(&turn).await;
        let outcome = result.outcome;
        let finished = db
            .call(move |conn| jobs::finish_turn(conn, &turn, &result, now_ms()))
            .await;
        if let Err(err) = finished {
            tracing::error!(job = %job_id, "cannot record a finished turn: {err}");
            break;
        }
        tracing::debug!(job = %job_id, ?outcome, "turn finished");
    }
    let _ = worker.signals.send(Signal::Done(job_id));
}

/// How often jobs that have become due for archiving are looked for.
const SWEEP_EVERY: Duration = Duration::from_secs(600);

/// Tells the agent to forget each job as it becomes due for archiving (its worktree goes;
/// its branch stays, so its change can still be read). On PostgreSQL each node runs its
/// own sweep beside its node loop, for the worktrees its agent keeps.
pub async fn sweep(db: Store, agent: Arc<dyn Agent>, archive_after_ms: i64) {
    let mut since = i64::MIN;
    let mut ticks = tokio::time::interval(SWEEP_EVERY);
    loop {
        ticks.tick().await;
        let until = now_ms().saturating_sub(archive_after_ms);
        let due = db
            .read_sql(ReadKind::Quick, move |sql| {
                jobs::ended_between(sql, since, until)
            })
            .await;
        match due {
            Ok(ids) => {
                for id in ids {
                    agent.forget(&id).await;
                }
                since = until;
            }
            Err(err) => tracing::warn!("cannot look for jobs to archive: {err}"),
        }
    }
}
