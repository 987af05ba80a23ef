//! Runs agent turns: one task per job with queued turns, never two for the same job, so a
//! follow-up to an active job waits for the current turn to end.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::agent::Agent;
use super::db::{Db, now_ms};
use super::jobs;

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
}

impl Worker {
    /// Starts the dispatcher. Dropping the returned task's handle does not stop it; abort
    /// it to stop every turn in flight (their turns stay queued and resume on restart).
    pub fn start(db: Db, agent: Arc<dyn Agent>) -> (Self, tokio::task::JoinHandle<()>) {
        let (signals, inbox) = mpsc::unbounded_channel();
        let worker = Self { signals };
        let task = tokio::spawn(dispatch(db, agent, inbox, worker.clone()));
        (worker, task)
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
    mut inbox: mpsc::UnboundedReceiver<Signal>,
    worker: Worker,
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
        tasks.spawn(run_job(db.clone(), agent.clone(), job_id, worker.clone()));
    }
}

async fn run_job(db: Db, agent: Arc<dyn Agent>, job_id: String, worker: Worker) {
    loop {
        let id = job_id.clone();
        let turn = match db.call(move |conn| jobs::next_turn(conn, &id)).await {
            Ok(Some(turn)) => turn,
            Ok(None) => break,
            Err(err) => {
                tracing::error!(job = %job_id, "cannot read the next turn: {err}");
                break;
            }
        };
        let outcome = agent.run_turn(&turn).await;
        let finished = db
            .call(move |conn| jobs::finish_turn(conn, &turn, outcome, now_ms()))
            .await;
        if let Err(err) = finished {
            tracing::error!(job = %job_id, "cannot record a finished turn: {err}");
            break;
        }
        tracing::debug!(job = %job_id, ?outcome, "turn finished");
    }
    let _ = worker.signals.send(Signal::Done(job_id));
}
