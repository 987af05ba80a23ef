//! The nodes sharing a PostgreSQL database and their agents, so that a new job or a
//! follow-up says `starting` only when a node that may take it has an agent free: each
//! node writes its `--max-agents` to `nodes` when it starts and renews its row with its
//! leases (every third of `--lease`); a row not renewed past its `alive_until_ms` is a node
//! gone, and a node that stops removes its own. A node's free agents are its agents less
//! the turns it runs (read from `turns`, so they are every node's truth at once).
//!
//! Counting only the answering node's agents said `queued` for a new job on a full node
//! while another node had an agent free, and `starting` for a follow-up of a job another
//! node keeps (a real agent with nothing to push to) while that node was full.

use std::time::Duration;

use postgres::{Client, IsolationLevel};

use super::PgStore;
use super::node::NodeConfig;
use crate::server::db::{StoreError, now_ms};

fn ms(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// Records node `name` with its `max_agents`, alive until `alive_until_ms`.
pub(crate) fn beat(
    client: &mut Client,
    name: &str,
    max_agents: usize,
    alive_until_ms: i64,
) -> Result<(), StoreError> {
    let max = i64::try_from(max_agents.max(1)).unwrap_or(i64::MAX);
    client.execute(
        "INSERT INTO nodes (name, max_agents, alive_until_ms) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE
         SET max_agents = EXCLUDED.max_agents, alive_until_ms = EXCLUDED.alive_until_ms",
        &[&name, &max, &alive_until_ms],
    )?;
    Ok(())
}

/// Removes node `name` (it stops): its agents are no longer counted as free.
pub(crate) fn leave(client: &mut Client, name: &str) -> Result<(), StoreError> {
    client.execute("DELETE FROM nodes WHERE name = $1", &[&name])?;
    Ok(())
}

/// Writes this node's row now (before it answers: a job created just after its start
/// counts its agents), once.
pub(crate) async fn join(store: &PgStore, config: &NodeConfig) -> Result<(), StoreError> {
    let (name, max, lease) = (config.name.clone(), config.max_agents, ms(config.lease));
    store
        .call(move |c| beat(c, &name, max, now_ms().saturating_add(lease)))
        .await
}

/// Renews this node's row every third of its lease, until the task is dropped. A failed
/// renewal is only logged at debug level: the node's claim loop says the outage.
pub(crate) async fn keep_alive(store: PgStore, config: NodeConfig) {
    let mut renewals = tokio::time::interval(config.lease / 3);
    // After an outage, one renewal, not a burst of the missed ones; the first is a third
    // of a lease after the join.
    renewals.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    renewals.reset();
    loop {
        renewals.tick().await;
        if let Err(err) = join(&store, &config).await {
            tracing::debug!("cannot renew this node's row: {err}");
        }
    }
}

/// Whether the waiting job stored as `job_seq` is about to start: a node that may take
/// it (the node that keeps it, else any node alive) has more agents free than there are
/// jobs ahead of it that those agents would take first. `me` and `my_max` are the
/// answering node, counted alive whatever its row says. The job's own turn is not counted
/// as running: a node may have claimed it since it was read.
pub(crate) fn starts_now(
    client: &mut Client,
    job_seq: i64,
    me: &str,
    my_max: usize,
    now_ms: i64,
) -> Result<bool, StoreError> {
    let my_max = i64::try_from(my_max.max(1)).unwrap_or(i64::MAX);
    // One snapshot for the three reads: a claim between them would count a turn as both
    // running and waiting, or as neither.
    let mut client = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()?;
    let kept_by: Option<String> = client
        .query_opt("SELECT kept_by FROM jobs WHERE seq = $1", &[&job_seq])?
        .and_then(|row| row.get(0));
    let free: Vec<(String, i64)> = client
        .query(
            "WITH live AS (
               SELECT name, max_agents FROM nodes WHERE alive_until_ms >= $1 AND name <> $3
               UNION ALL SELECT $3::TEXT, $4::BIGINT)
             SELECT l.name, l.max_agents - (SELECT COUNT(*) FROM turns t
                                            WHERE t.node = l.name AND t.job_seq <> $2
                                              AND t.started_ms IS NOT NULL
                                              AND t.outcome IS NULL)
             FROM live l",
            &[&now_ms, &job_seq, &me, &my_max],
        )?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let ahead: Vec<(Option<String>, i64)> = client
        .query(
            "WITH waiting AS (
               SELECT j.seq, j.kept_by, MIN(t.received_ms) AS since FROM jobs j
               JOIN turns t ON t.job_seq = j.seq AND t.outcome IS NULL
               WHERE j.status = 'active' GROUP BY j.seq
               HAVING COUNT(t.started_ms) = 0)
             SELECT w.kept_by, COUNT(*) FROM waiting w, waiting me
             WHERE me.seq = $1 AND (w.since < me.since OR (w.since = me.since AND w.seq < me.seq))
             GROUP BY w.kept_by",
            &[&job_seq],
        )?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    client.commit()?;
    Ok(decide(kept_by.as_deref(), &free, &ahead))
}

/// The rule of [`starts_now`], on what it read: `free` is each live node's agents less
/// its running turns; `ahead` the jobs waiting ahead, by the node keeping them (`None`:
/// any node may take them).
fn decide(kept_by: Option<&str>, free: &[(String, i64)], ahead: &[(Option<String>, i64)]) -> bool {
    let takers: Vec<(&str, i64)> = free
        .iter()
        .filter(|(name, free)| *free > 0 && kept_by.is_none_or(|keeper| keeper == name))
        .map(|(name, free)| (name.as_str(), *free))
        .collect();
    let agents: i64 = takers.iter().map(|(_, free)| *free).sum();
    // A job ahead takes one of these agents; jobs a node keeps take only that node's,
    // as many as it has free.
    let before: i64 = ahead
        .iter()
        .map(|(keeper, jobs)| match keeper.as_deref() {
            None => *jobs,
            Some(keeper) => takers
                .iter()
                .find(|(name, _)| *name == keeper)
                .map_or(0, |(_, free)| (*jobs).min(*free)),
        })
        .sum();
    before < agents
}

#[cfg(test)]
mod tests {
    use super::decide;

    fn nodes(list: &[(&str, i64)]) -> Vec<(String, i64)> {
        list.iter().map(|(n, f)| ((*n).to_owned(), *f)).collect()
    }

    #[test]
    fn a_free_agent_on_another_node_starts_a_new_job() {
        let free = nodes(&[("a", 0), ("b", 1)]);
        assert!(decide(None, &free, &[]));
        assert!(!decide(None, &nodes(&[("a", 0), ("b", 0)]), &[]));
    }

    #[test]
    fn a_kept_job_waits_for_its_own_node() {
        let free = nodes(&[("keeper", 0), ("other", 3)]);
        assert!(!decide(Some("keeper"), &free, &[]));
        assert!(decide(Some("other"), &free, &[]));
        // A keeper that is gone (no row alive) has no agent for it.
        assert!(!decide(Some("gone"), &free, &[]));
    }

    #[test]
    fn jobs_ahead_take_the_free_agents_first_unless_another_node_keeps_them() {
        let free = nodes(&[("a", 0), ("b", 2)]);
        assert!(decide(None, &free, &[(None, 1)]));
        assert!(!decide(None, &free, &[(None, 2)]));
        // Two jobs ahead wait for node a, which is full: they take none of b's agents.
        assert!(decide(None, &free, &[(Some("a".to_owned()), 2), (None, 1)]));
        assert!(!decide(None, &free, &[(Some("b".to_owned()), 2)]));
    }

    #[test]
    fn jobs_a_node_keeps_take_no_more_than_that_nodes_free_agents() {
        // a and b have an agent free each; two jobs ahead wait for a: a's agent takes
        // one of them, b's is free for this one.
        let free = nodes(&[("a", 1), ("b", 1)]);
        assert!(decide(None, &free, &[(Some("a".to_owned()), 2)]));
        assert!(!decide(
            None,
            &free,
            &[(Some("a".to_owned()), 2), (None, 1)]
        ));
    }
}
