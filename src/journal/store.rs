//! The journal's tables and the statements that read and write them.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::{JournalError, Recorded, Scope, SentPrompt, StatusChange, SubmissionKind, TrackedJob};
use crate::api::{Job, JobStatus};

/// Schema steps; entry `n` takes the journal from version `n` to `n + 1`.
pub const MIGRATIONS: &[&str] = &[
    r"
CREATE TABLE jobs (
    service TEXT NOT NULL,
    project TEXT NOT NULL,
    job_id TEXT NOT NULL,
    tracked INTEGER NOT NULL DEFAULT 1,
    added_ms INTEGER NOT NULL,
    created_ms INTEGER,
    status TEXT,
    snapshot TEXT,
    seen_ms INTEGER,
    PRIMARY KEY (service, project, job_id)
);
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL,
    project TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('create', 'message')),
    job_id TEXT,
    prompt TEXT NOT NULL,
    sent_ms INTEGER NOT NULL,
    outcome TEXT NOT NULL DEFAULT 'pending'
        CHECK (outcome IN ('pending', 'accepted', 'rejected', 'unknown')),
    error TEXT
);
CREATE INDEX submissions_by_job ON submissions (service, project, job_id);
CREATE INDEX submissions_by_time ON submissions (service, project, sent_ms);
CREATE TABLE status_changes (
    service TEXT NOT NULL,
    project TEXT NOT NULL,
    job_id TEXT NOT NULL,
    status TEXT NOT NULL,
    observed_ms INTEGER NOT NULL
);
CREATE INDEX status_changes_by_job ON status_changes (service, project, job_id, observed_ms);
",
    r"
CREATE TABLE drafts (
    service TEXT NOT NULL,
    project TEXT NOT NULL,
    draft_key TEXT NOT NULL,
    text TEXT NOT NULL,
    saved_ms INTEGER NOT NULL,
    PRIMARY KEY (service, project, draft_key)
);
CREATE TABLE console_settings (
    service TEXT NOT NULL,
    project TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (service, project, name)
);
",
    // The first prompt of each job is read with ORDER BY sent_ms: without sent_ms in this
    // index SQLite walked the by-time index for every job (10,000 jobs: 4.8 s to load).
    r"
DROP INDEX submissions_by_job;
CREATE INDEX submissions_by_job ON submissions (service, project, job_id, sent_ms);
",
    // A new job of unknown outcome stays in the console's list until the user dismisses it.
    r"
ALTER TABLE submissions ADD COLUMN dismissed INTEGER NOT NULL DEFAULT 0;
",
    // The console's start counts the hour's creates and messages and lists the creates of
    // unknown outcome: without these, both walked every submission of the hour or of all
    // time, row by row (10,000 submissions: several milliseconds each).
    r"
CREATE INDEX submissions_by_kind ON submissions (service, project, kind, sent_ms, outcome);
CREATE INDEX submissions_unsure ON submissions (service, project, sent_ms)
    WHERE kind = 'create' AND outcome = 'unknown' AND dismissed = 0;
",
    // Visitors insight: analytics requests counted against the hourly budget (one row a
    // request, so the time each frees up is known), and the trend cache, one row per
    // bucket with when it was read (kept only once read after it settled).
    r"
CREATE TABLE analytics_requests (
    service TEXT NOT NULL,
    project TEXT NOT NULL,
    sent_ms INTEGER NOT NULL
);
CREATE INDEX analytics_requests_by_time ON analytics_requests (service, project, sent_ms);
CREATE TABLE trend_buckets (
    service TEXT NOT NULL,
    project TEXT NOT NULL,
    from_ms INTEGER NOT NULL,
    to_ms INTEGER NOT NULL,
    human INTEGER NOT NULL,
    ai INTEGER NOT NULL,
    total INTEGER NOT NULL,
    read_ms INTEGER NOT NULL,
    PRIMARY KEY (service, project, from_ms, to_ms)
);
",
    // Kept with each job: its first accepted prompt (the list's PROMPT), and when a change
    // of its status was last seen (the list sorts by it). Gathering them from the
    // submissions and the timeline at each start cost as much as reading the jobs.
    r"
ALTER TABLE jobs ADD COLUMN changed_ms INTEGER;
ALTER TABLE jobs ADD COLUMN first_prompt TEXT;
UPDATE jobs SET
    changed_ms = (
        SELECT MAX(observed_ms) FROM status_changes AS c
        WHERE c.service = jobs.service AND c.project = jobs.project AND c.job_id = jobs.job_id
    ),
    first_prompt = (
        SELECT prompt FROM submissions AS s
        WHERE s.service = jobs.service AND s.project = jobs.project AND s.job_id = jobs.job_id
          AND s.outcome = 'accepted'
        ORDER BY s.sent_ms, s.id LIMIT 1
    );
",
    // The analytics limit a service states in its answers (RateLimit-Limit), per service
    // and project: the budget follows it instead of the hosted service's figure.
    r"
CREATE TABLE analytics_limits (
    service TEXT NOT NULL,
    project TEXT NOT NULL,
    hourly INTEGER NOT NULL,
    stated_ms INTEGER NOT NULL,
    PRIMARY KEY (service, project)
);
",
    // A job's first prompt is the one that created it: a follow-up sent from here to a
    // job made elsewhere was shown as the job's prompt. Taken again from the creates.
    r"
UPDATE jobs SET first_prompt = (
    SELECT prompt FROM submissions AS s
    WHERE s.service = jobs.service AND s.project = jobs.project AND s.job_id = jobs.job_id
      AND s.outcome = 'accepted' AND s.kind = 'create'
    ORDER BY s.sent_ms, s.id LIMIT 1
);
",
];

/// Why an accepted answer cannot be recorded as the submission's job, if it cannot: a
/// create whose job id the journal already knows, or a follow-up answered about another
/// job. `None` when it can (or when the submission is not in the journal).
pub fn refusal(
    conn: &Connection,
    scope: &Scope,
    submission: i64,
    job: &Job,
) -> Result<Option<Recorded>, JournalError> {
    let Some(answered) = job.id.as_deref() else {
        return Ok(None);
    };
    let asked: Option<(String, Option<String>)> = conn
        .query_row(
            "SELECT kind, job_id FROM submissions WHERE id = ?1",
            params![submission],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    let shown = crate::text::excerpt(answered, 40);
    let reason = match asked {
        Some((kind, Some(asked))) if kind == "message" && asked != answered => format!(
            "asked about job {}, it answered about job {shown}; job {shown} was not followed",
            crate::text::excerpt(&asked, 40)
        ),
        Some((kind, _)) if kind == "create" && known(conn, scope, answered)? => format!(
            "the new job has the id of job {shown}, which this machine already knows; \
             that job's history here is kept as it was"
        ),
        _ => return Ok(None),
    };
    Ok(Some(Recorded::Refused {
        job_id: answered.to_owned(),
        reason,
    }))
}

fn known(conn: &Connection, scope: &Scope, job_id: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM jobs WHERE service = ?1 AND project = ?2 AND job_id = ?3)",
        params![scope.service, scope.project, job_id],
        |row| row.get(0),
    )
}

pub fn track(
    conn: &Connection,
    scope: &Scope,
    job_id: &str,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO jobs (service, project, job_id, added_ms) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (service, project, job_id) DO UPDATE SET tracked = 1",
        params![scope.service, scope.project, job_id, now.timestamp_millis()],
    )?;
    Ok(())
}

/// Whether `job` says nothing new about a tracked job whose last read was stored less than
/// a minute ago: then the journal is not written at all (most polls of an active job).
pub fn unchanged(
    conn: &Connection,
    scope: &Scope,
    job_id: &str,
    job: &Job,
    now: DateTime<Utc>,
) -> Result<bool, JournalError> {
    let stored: Option<(Option<String>, Option<i64>)> = conn
        .prepare_cached(
            "SELECT snapshot, seen_ms FROM jobs
             WHERE service = ?1 AND project = ?2 AND job_id = ?3 AND tracked = 1",
        )?
        .query_row(params![scope.service, scope.project, job_id], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    let Some((Some(snapshot), Some(seen_ms))) = stored else {
        return Ok(false);
    };
    let recent = now.timestamp_millis().saturating_sub(seen_ms) < 60_000;
    Ok(recent && serde_json::to_string(job).is_ok_and(|text| text == snapshot))
}

/// Stores the snapshot of a tracked job; appends to the timeline when the status differs
/// from the last one. A job that is not tracked is left alone (returns `false`).
pub fn observe(
    conn: &Connection,
    scope: &Scope,
    job_id: &str,
    job: &Job,
    now: DateTime<Utc>,
) -> Result<bool, JournalError> {
    let row: Option<(bool, Option<String>)> = conn
        .query_row(
            "SELECT tracked, status FROM jobs WHERE service = ?1 AND project = ?2 AND job_id = ?3",
            params![scope.service, scope.project, job_id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    let previous = match row {
        Some((true, previous)) => previous,
        _ => return Ok(false),
    };
    let status = job.status.as_ref().map(|s| s.as_wire().to_owned());
    let snapshot = serde_json::to_string(job).unwrap_or_default();
    conn.execute(
        "UPDATE jobs SET snapshot = ?4, status = COALESCE(?5, status), seen_ms = ?6,
                created_ms = COALESCE(?7, created_ms)
         WHERE service = ?1 AND project = ?2 AND job_id = ?3",
        params![
            scope.service,
            scope.project,
            job_id,
            snapshot,
            status,
            now.timestamp_millis(),
            job.created_at.map(|t| t.timestamp_millis()),
        ],
    )?;
    let changed = status.is_some() && previous != status;
    if changed {
        conn.execute(
            "INSERT INTO status_changes (service, project, job_id, status, observed_ms)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                scope.service,
                scope.project,
                job_id,
                status,
                now.timestamp_millis()
            ],
        )?;
        conn.execute(
            "UPDATE jobs SET changed_ms = ?4 WHERE service = ?1 AND project = ?2 AND job_id = ?3",
            params![scope.service, scope.project, job_id, now.timestamp_millis()],
        )?;
    }
    Ok(changed)
}

/// Rows handed at once from the thread that reads them to those that parse them.
const CHUNK: usize = 256;

pub fn tracked_statuses(
    conn: &Connection,
    scope: &Scope,
) -> Result<Vec<(String, Option<String>)>, JournalError> {
    let mut statement = conn.prepare_cached(
        "SELECT job_id, json_extract(snapshot, '$.status') FROM jobs
         WHERE service = ?1 AND project = ?2 AND tracked = 1",
    )?;
    let ids = statement
        .query_map(params![scope.service, scope.project], |row| {
            Ok((row.get(0)?, row.get::<_, Option<String>>(1).unwrap_or(None)))
        })?
        .collect::<Result<_, _>>()?;
    Ok(ids)
}

pub fn tracked(conn: &Connection, scope: &Scope) -> Result<Vec<TrackedJob>, JournalError> {
    // Parsing the snapshots is half the work (10,000 jobs: most of the console's start). A
    // second thread parses rows as they are read, and this one joins it once all are read.
    let mut statement = conn.prepare(
        "SELECT job_id, snapshot, seen_ms, COALESCE(created_ms, added_ms), changed_ms,
                first_prompt
         FROM jobs WHERE service = ?1 AND project = ?2 AND tracked = 1",
    )?;
    let (send, receive) = std::sync::mpsc::channel::<(usize, Vec<StoredRow>)>();
    let receive = std::sync::Mutex::new(receive);
    let parse = || {
        let mut parsed = Vec::new();
        while let Some((start, rows)) = receive.lock().ok().and_then(|r| r.recv().ok()) {
            let jobs: Vec<TrackedJob> = rows.into_iter().map(StoredRow::read).collect();
            parsed.push((start, jobs));
        }
        parsed
    };
    let (orders, parsed) = std::thread::scope(|threads| {
        let helper = threads.spawn(parse);
        let read = send_rows(&mut statement, scope, &send);
        drop(send);
        let mut parsed = parse();
        match helper.join() {
            Ok(theirs) => parsed.extend(theirs),
            Err(panic) => std::panic::resume_unwind(panic),
        }
        read.map(|orders| (orders, parsed))
    })?;
    let mut slots: Vec<Option<TrackedJob>> = (0..orders.len()).map(|_| None).collect();
    for (start, jobs) in parsed {
        for (slot, job) in slots[start..].iter_mut().zip(jobs) {
            *slot = Some(job);
        }
    }
    // Newest first, ties by id; sorted as positions, so no job is moved but once.
    let id = |i: usize| slots[i].as_ref().map(|job| job.id.as_str());
    let mut order: Vec<usize> = (0..slots.len()).collect();
    order.sort_unstable_by(|&a, &b| orders[b].cmp(&orders[a]).then_with(|| id(a).cmp(&id(b))));
    Ok(order.into_iter().filter_map(|i| slots[i].take()).collect())
}

/// Reads every tracked job's row and sends them on in chunks; returns the sort key
/// (`created`, else `added`) of each, by position.
fn send_rows(
    statement: &mut rusqlite::Statement<'_>,
    scope: &Scope,
    send: &std::sync::mpsc::Sender<(usize, Vec<StoredRow>)>,
) -> Result<Vec<i64>, JournalError> {
    let rows = statement.query_map(params![scope.service, scope.project], |row| {
        Ok(StoredRow {
            id: row.get(0)?,
            snapshot: row.get(1)?,
            seen_ms: row.get(2)?,
            order: row.get(3)?,
            changed_ms: row.get(4)?,
            first_prompt: row.get(5)?,
        })
    })?;
    let mut orders = Vec::new();
    let mut chunk = Vec::with_capacity(CHUNK);
    for row in rows {
        let row = row?;
        orders.push(row.order);
        chunk.push(row);
        if chunk.len() == CHUNK {
            let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
            // The parsers stop only after this returns: the send cannot fail.
            let _ = send.send((orders.len() - CHUNK, full));
        }
    }
    if !chunk.is_empty() {
        let _ = send.send((orders.len() - chunk.len(), chunk));
    }
    Ok(orders)
}

/// Keeps the prompt that created a job with it, once a create of it is accepted (the
/// earliest sent, should answers come back out of order). A job made elsewhere has none:
/// a follow-up sent from here is not its prompt.
pub fn keep_first_prompt(conn: &Connection, scope: &Scope, job_id: &str) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE jobs SET first_prompt = (
             SELECT prompt FROM submissions AS s
             WHERE s.service = ?1 AND s.project = ?2 AND s.job_id = ?3 AND s.outcome = 'accepted'
               AND s.kind = 'create'
             ORDER BY s.sent_ms, s.id LIMIT 1)
         WHERE service = ?1 AND project = ?2 AND job_id = ?3",
        params![scope.service, scope.project, job_id],
    )?;
    Ok(())
}

/// A tracked job's row as stored, its snapshot not read yet.
struct StoredRow {
    id: String,
    snapshot: Option<String>,
    seen_ms: Option<i64>,
    order: i64,
    changed_ms: Option<i64>,
    first_prompt: Option<String>,
}

impl StoredRow {
    fn read(self) -> TrackedJob {
        TrackedJob {
            id: self.id,
            snapshot: self
                .snapshot
                .as_deref()
                .and_then(|text| serde_json::from_str(text).ok()),
            seen_at: self.seen_ms.and_then(DateTime::from_timestamp_millis),
            first_prompt: self.first_prompt,
            changed_at: self.changed_ms.and_then(DateTime::from_timestamp_millis),
        }
    }
}

pub fn conversation(
    conn: &Connection,
    scope: &Scope,
    job_id: &str,
) -> Result<Vec<SentPrompt>, JournalError> {
    let mut statement = conn.prepare(
        "SELECT prompt, sent_ms, kind FROM submissions
         WHERE service = ?1 AND project = ?2 AND job_id = ?3 AND outcome = 'accepted'
         ORDER BY sent_ms, id",
    )?;
    let rows = statement.query_map(params![scope.service, scope.project, job_id], |row| {
        Ok(SentPrompt {
            prompt: row.get(0)?,
            sent_at: DateTime::from_timestamp_millis(row.get(1)?).unwrap_or_default(),
            kind: if row.get::<_, String>(2)? == "create" {
                SubmissionKind::Create
            } else {
                SubmissionKind::Message
            },
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn timeline(
    conn: &Connection,
    scope: &Scope,
    job_id: &str,
) -> Result<Vec<StatusChange>, JournalError> {
    let mut statement = conn.prepare(
        "SELECT status, observed_ms FROM status_changes
         WHERE service = ?1 AND project = ?2 AND job_id = ?3
         ORDER BY observed_ms, rowid",
    )?;
    let rows = statement.query_map(params![scope.service, scope.project, job_id], |row| {
        Ok(StatusChange {
            status: JobStatus::parse(&row.get::<_, String>(0)?),
            observed_at: DateTime::from_timestamp_millis(row.get(1)?).unwrap_or_default(),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
