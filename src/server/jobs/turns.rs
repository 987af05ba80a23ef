//! A job's turns written once for both stores: the oldest turn still to run, and
//! recording a finished one (the single-node worker and the demo seed; PostgreSQL's
//! nodes finish theirs under a lease, `pg::claim::finish`). The callers give a
//! transaction; these functions open none.

use super::{PendingTurn, TurnOutcome, TurnResult};
use crate::args;
use crate::server::db::StoreError;
use crate::server::store::Sql;

/// The oldest unfinished turn of a job, if any, with the job's prompts up to it.
pub fn next(sql: &mut dyn Sql, job_id: &str) -> Result<Option<PendingTurn>, StoreError> {
    let row = sql.opt(
        "SELECT j.seq, j.id, j.project, t.turn, t.prompt, j.repository
         FROM jobs j JOIN turns t ON t.job_seq = j.seq
         WHERE j.id = $1 AND t.outcome IS NULL
         ORDER BY t.turn LIMIT 1",
        args![job_id],
    )?;
    let Some(row) = row else {
        return Ok(None);
    };
    let mut turn = PendingTurn {
        job_seq: row.int(0)?,
        job_id: row.text(1)?,
        project: row.text(2)?,
        turn: row.int(3)?,
        prompt: row.text(4)?,
        repository: row.text(5)?,
        prompts: Vec::new(),
    };
    turn.prompts = sql
        .rows(
            "SELECT prompt FROM turns WHERE job_seq = $1 AND turn <= $2 ORDER BY turn",
            args![turn.job_seq, turn.turn],
        )?
        .iter()
        .map(|row| row.text(0))
        .collect::<Result<_, _>>()?;
    Ok(Some(turn))
}

/// Records a finished turn. When no other turn waits, the job ends with the turn's outcome.
pub fn finish(
    sql: &mut dyn Sql,
    turn: &PendingTurn,
    result: &TurnResult,
    now_ms: i64,
) -> Result<(), StoreError> {
    let outcome = result.outcome;
    sql.exec(
        "UPDATE turns SET outcome = $3, finished_ms = $4, reason = $5, output = $6
         WHERE job_seq = $1 AND turn = $2",
        args![
            turn.job_seq,
            turn.turn,
            outcome.as_db(),
            now_ms,
            result.reason.as_deref(),
            result.output.as_deref()
        ],
    )?;
    if outcome == TurnOutcome::PullRequest {
        let link = match &result.pr_link {
            Some(link) => link.clone(),
            None => {
                let number = sql
                    .one(
                        "INSERT INTO pr_numbers (repository, next) VALUES ($1, 2)
                         ON CONFLICT (repository) DO UPDATE SET next = pr_numbers.next + 1
                         RETURNING next - 1",
                        args![&turn.repository],
                    )?
                    .int(0)?;
                format!("{}/pull/{number}", turn.repository.trim_end_matches('/'))
            }
        };
        sql.exec(
            "UPDATE jobs SET pr_link = $2 WHERE seq = $1",
            args![turn.job_seq, link],
        )?;
    }
    let status = if outcome == TurnOutcome::Failed {
        "failed"
    } else {
        "completed"
    };
    sql.exec(
        "UPDATE jobs SET status = $2, updated_ms = $3
         WHERE seq = $1 AND NOT EXISTS
           (SELECT 1 FROM turns WHERE job_seq = $1 AND outcome IS NULL)",
        args![turn.job_seq, status, now_ms],
    )?;
    Ok(())
}
