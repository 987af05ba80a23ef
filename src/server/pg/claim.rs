//! Turns shared by many nodes on PostgreSQL: a node claims a job's next turn with
//! `SELECT … FOR UPDATE SKIP LOCKED` (only when none of the job's turns runs, so a job's
//! turns still run in order), holds a lease on it that it renews while the agent runs, and
//! finishes it only while it still holds it. A node that dies stops renewing; once its
//! lease has run out another node fails the turn with the interrupted-turn message. New
//! work is announced with `NOTIFY`, which idle nodes `LISTEN` for.

use postgres::Client;

use crate::server::db::StoreError;
use crate::server::jobs::{PendingTurn, TurnOutcome, TurnResult};

/// The channel a node listens on for new turns.
pub const CHANNEL: &str = "docdeck_turns";

/// Claims the next turn to run, if any, for `node`, leased until `lease_until_ms`.
///
/// A turn is a candidate when it is the oldest unfinished turn of its job and has not
/// started (so nothing of its job runs). Projects with turns waiting are tried in order:
/// fewest turns running first, then the one whose last claim is oldest, so one project's
/// hundred jobs do not starve another's one; within a project, the turn waiting longest.
/// `SKIP LOCKED` lets nodes claiming at once take different turns instead of queueing on
/// one; the re-check of `started_ms IS NULL` on the locked row (PostgreSQL re-reads a row
/// locked after a concurrent update) and in the update make a turn claimed once.
pub fn claim(
    client: &mut Client,
    node: &str,
    now_ms: i64,
    lease_until_ms: i64,
) -> Result<Option<PendingTurn>, StoreError> {
    claim_keeping(client, node, now_ms, lease_until_ms, false)
}

/// [`claim`], where a job another node keeps is not a candidate, and (`keeps`) the job of
/// the turn claimed becomes this node's to keep: its follow-ups wait for this node (a
/// real agent with no remote keeps a job's work in its own worktree).
pub fn claim_keeping(
    client: &mut Client,
    node: &str,
    now_ms: i64,
    lease_until_ms: i64,
    keeps: bool,
) -> Result<Option<PendingTurn>, StoreError> {
    let mut tx = client.transaction()?;
    let projects: Vec<String> = tx
        .query(
            "SELECT w.project FROM
               (SELECT DISTINCT project FROM turns
                WHERE outcome IS NULL AND started_ms IS NULL) w
             LEFT JOIN (SELECT project, count(*) AS running FROM turns
                        WHERE outcome IS NULL AND started_ms IS NOT NULL
                        GROUP BY project) r ON r.project = w.project
             LEFT JOIN project_claims c ON c.project = w.project
             ORDER BY COALESCE(r.running, 0), c.claimed_ms NULLS FIRST, w.project",
            &[],
        )?
        .iter()
        .map(|row| row.get(0))
        .collect();
    for project in &projects {
        // One statement picks, locks and starts the turn and reads what the agent needs.
        let claimed = tx.query_opt(
            "WITH picked AS (
               SELECT t.job_seq, t.turn FROM turns t
               WHERE t.project = $1 AND t.outcome IS NULL AND t.started_ms IS NULL
                 AND NOT EXISTS (SELECT 1 FROM turns e
                                 WHERE e.job_seq = t.job_seq AND e.turn < t.turn
                                   AND e.outcome IS NULL)
                 AND NOT EXISTS (SELECT 1 FROM jobs k
                                 WHERE k.seq = t.job_seq AND k.kept_by <> $3)
               ORDER BY t.received_ms, t.job_seq
               LIMIT 1
               FOR UPDATE OF t SKIP LOCKED)
             UPDATE turns u SET started_ms = $2, node = $3, lease_until_ms = $4
             FROM picked, jobs j
             WHERE u.job_seq = picked.job_seq AND u.turn = picked.turn AND j.seq = u.job_seq
               AND u.started_ms IS NULL AND u.outcome IS NULL
             RETURNING u.job_seq, u.turn, j.id, j.project, u.prompt, j.repository,
               ARRAY(SELECT p.prompt FROM turns p
                     WHERE p.job_seq = u.job_seq AND p.turn <= u.turn ORDER BY p.turn)",
            &[project, &now_ms, &node, &lease_until_ms],
        )?;
        let Some(row) = claimed else {
            continue;
        };
        if keeps {
            let job_seq: i64 = row.get(0);
            tx.execute(
                "UPDATE jobs SET kept_by = $1 WHERE seq = $2 AND kept_by IS NULL",
                &[&node, &job_seq],
            )?;
        }
        tx.execute(
            "INSERT INTO project_claims (project, claimed_ms) VALUES ($1, $2)
             ON CONFLICT (project) DO UPDATE
             SET claimed_ms = GREATEST(project_claims.claimed_ms, EXCLUDED.claimed_ms)",
            &[project, &now_ms],
        )?;
        tx.commit()?;
        return Ok(Some(PendingTurn {
            job_seq: row.get(0),
            turn: row.get(1),
            job_id: row.get(2),
            project: row.get(3),
            prompt: row.get(4),
            repository: row.get(5),
            prompts: row.get(6),
        }));
    }
    Ok(None)
}

/// Extends `node`'s lease on a running turn. `false`: the lease was lost (the turn was
/// failed by another node after it ran out), so the agent should stop.
pub fn renew(
    client: &mut Client,
    node: &str,
    turn: &PendingTurn,
    lease_until_ms: i64,
) -> Result<bool, StoreError> {
    let updated = client.execute(
        "UPDATE turns SET lease_until_ms = $4
         WHERE job_seq = $1 AND turn = $2 AND node = $3 AND outcome IS NULL",
        &[&turn.job_seq, &turn.turn, &node, &lease_until_ms],
    )?;
    Ok(updated == 1)
}

/// Records a finished turn if `node` still holds it, with its diff; the job ends with the
/// turn's outcome when no other turn waits. `false`: the turn was no longer this node's
/// (failed as interrupted elsewhere) and nothing was written.
pub fn finish(
    client: &mut Client,
    node: &str,
    turn: &PendingTurn,
    result: &TurnResult,
    diff: Option<&str>,
    now_ms: i64,
) -> Result<bool, StoreError> {
    let outcome = result.outcome;
    let mut tx = client.transaction()?;
    let updated = tx.execute(
        "UPDATE turns SET outcome = $4, finished_ms = $5, reason = $6, output = $7, diff = $8,
                          lease_until_ms = NULL
         WHERE job_seq = $1 AND turn = $2 AND node = $3 AND outcome IS NULL",
        &[
            &turn.job_seq,
            &turn.turn,
            &node,
            &outcome.as_db(),
            &now_ms,
            &result.reason,
            &result.output,
            &diff,
        ],
    )?;
    if updated != 1 {
        return Ok(false);
    }
    if outcome == TurnOutcome::PullRequest {
        let link = match &result.pr_link {
            Some(link) => link.clone(),
            None => {
                let number: i64 = tx
                    .query_one(
                        "INSERT INTO pr_numbers (repository, next) VALUES ($1, 2)
                         ON CONFLICT (repository) DO UPDATE SET next = pr_numbers.next + 1
                         RETURNING next - 1",
                        &[&turn.repository],
                    )?
                    .get(0);
                format!("{}/pull/{number}", turn.repository.trim_end_matches('/'))
            }
        };
        tx.execute(
            "UPDATE jobs SET pr_link = $2 WHERE seq = $1",
            &[&turn.job_seq, &link],
        )?;
    }
    let status = if outcome == TurnOutcome::Failed {
        "failed"
    } else {
        "completed"
    };
    let ended = tx.execute(
        "UPDATE jobs SET status = $2, updated_ms = $3
         WHERE seq = $1 AND NOT EXISTS
           (SELECT 1 FROM turns WHERE job_seq = $1 AND outcome IS NULL)",
        &[&turn.job_seq, &status, &now_ms],
    )?;
    if ended == 0 {
        // The job's next turn may now be claimed, by any node. (NOTIFY serialises the
        // commits that carry one, so a job that ended sends none.)
        tx.batch_execute(&format!("NOTIFY {CHANNEL}"))?;
    }
    tx.commit()?;
    Ok(true)
}

/// Fails the running turns whose lease ran out before `now_ms` (their node died or lost
/// the database) with `reason`, the interrupted-turn message; their jobs fail unless a
/// follow-up waits, which then runs. Returns the jobs' ids.
pub fn fail_expired(
    client: &mut Client,
    reason: &str,
    now_ms: i64,
) -> Result<Vec<String>, StoreError> {
    let mut tx = client.transaction()?;
    let expired: Vec<(i64, String)> = tx
        .query(
            "UPDATE turns t SET outcome = 'fail', reason = $1, finished_ms = $2,
                                lease_until_ms = NULL
             FROM jobs j
             WHERE j.seq = t.job_seq AND t.outcome IS NULL AND t.started_ms IS NOT NULL
               AND t.lease_until_ms < $2
             RETURNING t.job_seq, j.id",
            &[&reason, &now_ms],
        )?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    for (seq, _) in &expired {
        tx.execute(
            "UPDATE jobs SET status = 'failed', updated_ms = $2
             WHERE seq = $1 AND NOT EXISTS
               (SELECT 1 FROM turns WHERE job_seq = $1 AND outcome IS NULL)",
            &[seq, &now_ms],
        )?;
    }
    tx.commit()?;
    if !expired.is_empty() {
        client.batch_execute(&format!("NOTIFY {CHANNEL}"))?;
    }
    Ok(expired.into_iter().map(|(_, id)| id).collect())
}

/// Tells every listening node that a turn waits.
pub fn announce(client: &mut Client) -> Result<(), StoreError> {
    client.batch_execute(&format!("NOTIFY {CHANNEL}"))?;
    Ok(())
}

/// Where a turn ran: the node that claimed it, as `jobs get` shows it.
pub fn node_of(client: &mut Client, job_id: &str, turn: i64) -> Result<Option<String>, StoreError> {
    Ok(client
        .query_opt(
            "SELECT t.node FROM turns t JOIN jobs j ON j.seq = t.job_seq
             WHERE j.id = $1 AND t.turn = $2",
            &[&job_id, &turn],
        )?
        .and_then(|row| row.get(0)))
}
