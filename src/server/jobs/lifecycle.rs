//! What the worker notes about turns beyond their outcome: when one started (so a restart
//! can fail a turn it interrupted, for agents that must not run it twice), and which jobs
//! have become due for archiving (so the agent can drop their worktrees).

use rusqlite::{Connection, params};

use super::PendingTurn;
use crate::args;
use crate::server::db::StoreError;
use crate::server::store::Sql;

/// Notes that a turn has started, so that a restart can tell it was under way.
pub fn mark_started(
    conn: &mut Connection,
    turn: &PendingTurn,
    node: Option<&str>,
    now_ms: i64,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE turns SET started_ms = ?3, node = ?4 WHERE job_seq = ?1 AND turn = ?2",
        params![turn.job_seq, turn.turn, now_ms, node],
    )?;
    Ok(())
}

/// Fails every turn that had started and not finished (the service stopped during it),
/// with `reason`; a job with no other turn waiting becomes `failed`. What such a turn
/// printed before it was stopped is linked when `output_of` (the agent) still has it.
/// Returns their jobs.
pub fn fail_interrupted(
    conn: &mut Connection,
    reason: &str,
    now_ms: i64,
    output_of: impl Fn(&str, i64) -> Option<String>,
) -> Result<Vec<String>, StoreError> {
    let tx = crate::sqlite::write_transaction(conn)?;
    let interrupted: Vec<(i64, String, i64)> = {
        let mut statement = tx.prepare(
            "SELECT t.job_seq, j.id, t.turn FROM turns t JOIN jobs j ON j.seq = t.job_seq
             WHERE t.started_ms IS NOT NULL AND t.outcome IS NULL",
        )?;
        statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?
    };
    for (seq, id, turn) in &interrupted {
        tx.execute(
            "UPDATE turns SET outcome = 'fail', reason = ?3, finished_ms = ?4,
                 output = COALESCE(output, ?5)
             WHERE job_seq = ?1 AND turn = ?2",
            params![seq, turn, reason, now_ms, output_of(id, *turn)],
        )?;
    }
    for (seq, _, _) in &interrupted {
        tx.execute(
            "UPDATE jobs SET status = 'failed', updated_ms = ?2
             WHERE seq = ?1 AND NOT EXISTS
               (SELECT 1 FROM turns WHERE job_seq = ?1 AND outcome IS NULL)",
            params![seq, now_ms],
        )?;
    }
    tx.commit()?;
    Ok(interrupted.into_iter().map(|(_, id, _)| id).collect())
}

/// The turns under way, as `(job id, turn)`, and how many wait for an agent: what a stop
/// of the service ends and what it leaves for the next start.
pub fn under_way(conn: &Connection) -> Result<(Vec<(String, i64)>, i64), StoreError> {
    let mut statement = conn.prepare(
        "SELECT j.id, t.turn FROM turns t JOIN jobs j ON j.seq = t.job_seq
         WHERE t.started_ms IS NOT NULL AND t.outcome IS NULL ORDER BY t.started_ms",
    )?;
    let running = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<Vec<(String, i64)>, _>>()?;
    let waiting = conn.query_row(
        "SELECT COUNT(*) FROM turns WHERE started_ms IS NULL AND outcome IS NULL",
        [],
        |row| row.get(0),
    )?;
    Ok((running, waiting))
}

/// Ids of finished jobs last updated in `(after_ms, until_ms]`: those that became due for
/// archiving in that window.
pub fn ended_between(
    sql: &mut dyn Sql,
    after_ms: i64,
    until_ms: i64,
) -> Result<Vec<String>, StoreError> {
    sql.rows(
        "SELECT id FROM jobs WHERE status IN ('completed', 'failed', 'archived')
         AND updated_ms > $1 AND updated_ms <= $2 ORDER BY seq",
        args![after_ms, until_ms],
    )?
    .iter()
    .map(|row| row.text(0))
    .collect()
}
