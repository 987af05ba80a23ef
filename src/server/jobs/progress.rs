//! What the local service says of a job beyond the hosted contract (its own fields, in
//! its `/openapi.json`): whether an active job runs or waits for a free agent and where
//! it waits, and for an ended job why its last turn failed and whether its output is kept.

use rusqlite::{Connection, OptionalExtension, params};

use crate::args;
use crate::server::db::StoreError;
use crate::server::store::Sql;

/// A job's progress, read with the job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progress {
    /// A turn of the job has started and not finished.
    pub running: bool,
    /// While it waits for an agent: 1 is next. Jobs wait in the order their oldest
    /// waiting turn arrived, which is how the worker hands out agents.
    pub queue_position: Option<u64>,
    /// The reason kept with the job's last finished turn, when it failed.
    pub last_failure: Option<String>,
    /// The job's last finished turn whose output is kept.
    pub output_turn: Option<i64>,
    /// The node (`serve --node-name`) that ran, or runs, the job's latest started turn.
    pub node: Option<String>,
}

/// Reads the progress of the job stored as `seq`, whose status is `active` when `active`.
pub fn read(sql: &mut dyn Sql, seq: i64, active: bool) -> Result<Progress, StoreError> {
    let last = sql.opt(
        "SELECT outcome, reason FROM turns WHERE job_seq = $1 AND outcome IS NOT NULL
         ORDER BY turn DESC LIMIT 1",
        args![seq],
    )?;
    let last_failure = match last {
        Some(row) if row.text(0)? == "fail" => row.opt_text(1)?,
        _ => None,
    };
    let output_turn = sql
        .opt(
            "SELECT turn FROM turns WHERE job_seq = $1 AND outcome IS NOT NULL
             AND output IS NOT NULL ORDER BY turn DESC LIMIT 1",
            args![seq],
        )?
        .map(|row| row.int(0))
        .transpose()?;
    let node = sql
        .opt(
            "SELECT node FROM turns WHERE job_seq = $1 AND started_ms IS NOT NULL
             ORDER BY turn DESC LIMIT 1",
            args![seq],
        )?
        .map(|row| row.opt_text(0))
        .transpose()?
        .flatten();
    if !active {
        return Ok(Progress {
            last_failure,
            output_turn,
            node,
            ..Progress::default()
        });
    }
    let running = sql
        .one(
            "SELECT COUNT(*) FROM turns WHERE job_seq = $1
             AND started_ms IS NOT NULL AND outcome IS NULL",
            args![seq],
        )?
        .int(0)?
        > 0;
    let queue_position = if running {
        None
    } else {
        let ahead = sql
            .one(
                "WITH waiting AS (
                   SELECT j.seq, MIN(t.received_ms) AS since FROM jobs j
                   JOIN turns t ON t.job_seq = j.seq AND t.outcome IS NULL
                   WHERE j.status = 'active' GROUP BY j.seq
                   HAVING COUNT(t.started_ms) = 0
                 )
                 SELECT COUNT(*) FROM waiting w, waiting me
                 WHERE me.seq = $1 AND (w.since < me.since OR (w.since = me.since AND w.seq < me.seq))",
                args![seq],
            )?
            .int(0)?;
        Some(u64::try_from(ahead).unwrap_or(0) + 1)
    };
    Ok(Progress {
        running,
        queue_position,
        last_failure,
        output_turn,
        node,
    })
}

/// Where the output of `turn` of job `job` is kept, if it is.
pub fn output_path(
    conn: &Connection,
    project: &str,
    job: &str,
    turn: i64,
) -> rusqlite::Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT t.output FROM turns t JOIN jobs j ON j.seq = t.job_seq
             WHERE j.project = ?1 AND j.id = ?2 AND t.turn = ?3",
            params![project, job, turn],
            |row| row.get::<_, Option<String>>(0),
        )
        .optional()?
        .flatten())
}
