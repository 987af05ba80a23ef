//! The demo seed: 90 days of realistic, deterministic traffic over 243 pages (a long tail,
//! a weekly rhythm, a growing share of AI agents, people who also fetch Markdown, a page
//! AI agents discover in the last two weeks, three pages new in the last week), and a
//! handful of finished jobs, so a new user sees every part of docdeck working, the
//! visitors trend and comparison included.

mod guard;
mod traffic;
mod views;

pub use self::guard::{Claimed, MixError, claim_in, claim_real};

use chrono::{NaiveDate, NaiveTime};
use rusqlite::Connection;

pub use self::views::SeedDays;
pub(crate) use self::views::pending_marker;
use super::db::StoreError;
use super::jobs::{JobDefaults, TurnOutcome, TurnResult, record, turns};
use super::store::{Engine, Lite, Sql};
use crate::args;

/// Days of traffic the seed writes, ending the day before the anchor date.
pub const SEED_DAYS: u64 = 90;
const RNG_SEED: u64 = 0x00d0_cdec;
const DAY_MS: i64 = 86_400_000;

/// What the seed wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedSummary {
    pub views: usize,
    pub pages: usize,
    pub jobs: Vec<SeededJob>,
}

/// A job the seed made, with the prompts it was given (oldest first) and when, so that a
/// client journal can remember them as if they had been sent from there (`docdeck demo`).
#[derive(Debug, Clone, PartialEq)]
pub struct SeededJob {
    pub id: String,
    pub prompts: Vec<(String, i64)>,
    /// The job as the service answers for it once seeded, so a client can remember it
    /// without a call.
    pub job: crate::api::Job,
}

/// What a project already holds in this database. The demo seed runs only when all of it
/// is zero: invented data must never be mixed into a project with real data.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Footprint {
    pub views: u64,
    pub jobs: u64,
    pub keys: u64,
    /// Log files `import --follow` reads into the project (it may have seen no view yet).
    pub followed: u64,
    /// Whether an import claimed the project for real views (it may have written none).
    pub imported: bool,
}

impl Footprint {
    /// Counts what `project` holds.
    pub fn read(sql: &mut dyn Sql, project: &str) -> Result<Self, StoreError> {
        let mut count = |query: &str, key: &str| -> Result<u64, StoreError> {
            let n = sql.one(query, args![key])?.int(0)?;
            Ok(u64::try_from(n).unwrap_or(0))
        };
        Ok(Self {
            views: count("SELECT COUNT(*) FROM views WHERE project = $1", project)?,
            jobs: count("SELECT COUNT(*) FROM jobs WHERE project = $1", project)?,
            keys: count("SELECT COUNT(*) FROM api_keys WHERE project = $1", project)?,
            followed: count(
                "SELECT COUNT(*) FROM import_positions WHERE project = $1",
                project,
            )?,
            imported: count(
                "SELECT COUNT(*) FROM meta WHERE key = $1",
                &guard::real_marker(project),
            )? > 0,
        })
    }

    /// Whether the project has never existed in this database.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.views == 0 && self.jobs == 0 && self.keys == 0 && self.followed == 0 && !self.imported
    }
}

impl std::fmt::Display for Footprint {
    /// Such as "4 views, 0 jobs and 1 API key".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = |n: u64, one: &str, many: &str| {
            format!(
                "{} {}",
                crate::text::thousands(n),
                if n == 1 { one } else { many }
            )
        };
        write!(
            f,
            "{}, {} and {}",
            plural(self.views, "view", "views"),
            plural(self.jobs, "job", "jobs"),
            plural(self.keys, "API key", "API keys")
        )?;
        if self.imported && self.views == 0 {
            write!(f, " (and an import made it a project of real views)")?;
        }
        if self.followed > 0 {
            write!(
                f,
                " (and {} read by import --follow)",
                plural(self.followed, "log file", "log files")
            )?;
        }
        Ok(())
    }
}

/// What [`seed_demo`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum SeedOutcome {
    /// The project was new: the demo data is now in it.
    Seeded(SeedSummary),
    /// The demo data was written at an earlier start; nothing more is added.
    AlreadySeeded,
    /// The project already holds data of its own, so nothing invented was added.
    Refused(Footprint),
}

/// Seeds `project` only if it has never existed in this database (no views, no jobs, no
/// keys); a project seeded before is left as it is. `today` anchors the data: the 90 days
/// before it hold traffic. [`claim_demo`] and then [`PendingViews::write`], at once.
pub fn seed_demo(
    conn: &mut Connection,
    project: &str,
    today: NaiveDate,
    defaults: &JobDefaults,
) -> Result<SeedOutcome, StoreError> {
    match claim_demo(conn, project, today, defaults, Links::Invented)? {
        Claim::Seed { jobs, views } => {
            let (views, pages) = views.write(conn)?;
            Ok(SeedOutcome::Seeded(SeedSummary { views, pages, jobs }))
        }
        Claim::Resume(views) => {
            let (views, pages) = views.write(conn)?;
            Ok(SeedOutcome::Seeded(SeedSummary {
                views,
                pages,
                jobs: Vec::new(),
            }))
        }
        Claim::AlreadySeeded => Ok(SeedOutcome::AlreadySeeded),
        Claim::Refused(footprint) => Ok(SeedOutcome::Refused(footprint)),
    }
}

/// What [`claim_demo`] decided.
#[derive(Debug)]
pub enum Claim {
    /// The project was new: it is claimed for the demo and its jobs are made; its views
    /// are still to write (the slow part, which the service does in the background).
    Seed {
        jobs: Vec<SeededJob>,
        views: PendingViews,
    },
    /// An earlier start claimed the project and stopped before its views were written.
    Resume(PendingViews),
    AlreadySeeded,
    Refused(Footprint),
}

/// The demo views of a claimed project, not yet written (or written in part).
#[derive(Debug)]
pub struct PendingViews {
    project: String,
    today: NaiveDate,
    /// Days written already, by an earlier start.
    done: u64,
}

/// Decides whether `project` gets the demo data and, if it does, claims it and makes its
/// jobs and signals, in one SQLite transaction ([`claim_demo_in`]).
pub fn claim_demo(
    conn: &mut Connection,
    project: &str,
    today: NaiveDate,
    defaults: &JobDefaults,
    links: Links,
) -> Result<Claim, StoreError> {
    let tx = crate::sqlite::write_transaction(conn)?;
    let claim = claim_demo_in(&mut Lite(&tx), project, today, defaults, links)?;
    tx.commit()?;
    Ok(claim)
}

/// [`claim_demo`] inside the caller's transaction, on either store. The check and the
/// claim are one transaction, so an import running beside it cannot slip in between (on
/// PostgreSQL, nodes starting together take turns on a lock of the project's seed); the
/// claim is kept in `meta` until the views are written, so a start that stops before
/// that leaves them to the next one.
pub fn claim_demo_in(
    sql: &mut dyn Sql,
    project: &str,
    today: NaiveDate,
    defaults: &JobDefaults,
    links: Links,
) -> Result<Claim, StoreError> {
    if sql.engine() == Engine::Postgres {
        sql.exec(
            "SELECT pg_advisory_xact_lock(hashtext('docdeck-seed:' || $1))",
            args![project],
        )?;
    }
    let marker = guard::seeded_marker(project);
    let mut read = |key: &str| -> Result<Option<String>, StoreError> {
        sql.opt("SELECT value FROM meta WHERE key = $1", args![key])?
            .map(|row| row.text(0))
            .transpose()
    };
    if read(&marker)?.is_some() {
        return Ok(match read(&pending_marker(project))? {
            Some(value) => {
                // "2026-11-22 17": the anchor date, and the days written so far.
                let (date, done) = value.split_once(' ').unwrap_or((&value, "0"));
                Claim::Resume(PendingViews {
                    project: project.to_owned(),
                    today: date.parse().unwrap_or(today),
                    done: done.parse().unwrap_or(0),
                })
            }
            None => Claim::AlreadySeeded,
        });
    }
    let footprint = Footprint::read(sql, project)?;
    if !footprint.is_empty() {
        return Ok(Claim::Refused(footprint));
    }
    for key in [marker, pending_marker(project)] {
        sql.exec(
            "INSERT INTO meta (key, value) VALUES ($1, $2)",
            args![key, today.to_string()],
        )?;
    }
    let jobs = seed_jobs(sql, project, today, defaults, links)?;
    super::signals::seed(sql, project, today)?;
    Ok(Claim::Seed {
        jobs,
        views: PendingViews {
            project: project.to_owned(),
            today,
            done: 0,
        },
    })
}

/// Whether the seeded jobs' pull requests get links. The simulated agent makes up
/// `{repository}/pull/{n}`; beside a real agent, whose links open real changes, an
/// invented job gets none, so no link on screen leads to a page that does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    Invented,
    None,
    /// `docdeck demo`'s own repository: the job [`MERGED_DEMO_JOB`] links to its change
    /// on the service's `/changes` page (the demo makes that change, merged, in its
    /// repository once the service is up); the other invented jobs link nowhere.
    DemoChange,
}

/// The invented job whose change `docdeck demo` makes and merges in its repository, so a
/// merged job's impact can be seen in the demo.
pub const MERGED_DEMO_JOB: &str = "Fix the broken links in the quickstart";

/// Five finished jobs of the last weeks (oldest first), made through the same code paths as
/// real ones.
fn seed_jobs(
    sql: &mut dyn Sql,
    project: &str,
    today: NaiveDate,
    defaults: &JobDefaults,
    links: Links,
) -> Result<Vec<SeededJob>, StoreError> {
    let day0 = today.and_time(NaiveTime::MIN).and_utc().timestamp_millis();
    let history: [(&str, i64, &[TurnOutcome]); 5] = [
        (
            "Translate the FAQ into Spanish",
            20,
            &[TurnOutcome::PullRequest],
        ),
        // Six days old: in the demo its change was merged five days ago, so its impact
        // compares five days before the merge with five after.
        (MERGED_DEMO_JOB, 6, &[TurnOutcome::PullRequest]),
        (
            "Rewrite the authentication guide for scoped API keys",
            4,
            &[TurnOutcome::Failed],
        ),
        (
            "Check the SDK pages for outdated version numbers",
            3,
            &[TurnOutcome::NoChange],
        ),
        (
            "Document the new webhooks endpoint\nInclude the retry policy and the signature check.",
            2,
            &[TurnOutcome::PullRequest, TurnOutcome::PullRequest],
        ),
    ];
    let mut ids = Vec::new();
    for (prompt, days_ago, outcomes) in history {
        let created = day0 - days_ago * DAY_MS + 9 * 3_600_000;
        let job = record::create(sql, project, prompt, defaults, created)?;
        let mut prompts = vec![((*prompt).to_owned(), created)];
        for (index, outcome) in (0i64..).zip(outcomes.iter()) {
            let at = created + (index + 1) * 240_000;
            if index > 0 {
                let follow_up = "Add a curl example for each event type";
                match record::add_message(sql, project, &job.id, follow_up, at - 60_000, i64::MAX)?
                {
                    Ok(_) => prompts.push((follow_up.to_owned(), at - 60_000)),
                    Err(refusal) => {
                        tracing::warn!(job = %job.id, ?refusal, "seed follow-up refused")
                    }
                }
            }
            let result = match (outcome, links) {
                (TurnOutcome::PullRequest, Links::DemoChange) if prompt == MERGED_DEMO_JOB => {
                    TurnResult {
                        // On this service: the wire makes it whole (`to_wire_at`).
                        pr_link: Some(format!("/changes/{project}/{}", job.id)),
                        ..TurnResult::of(TurnOutcome::PullRequest)
                    }
                }
                (TurnOutcome::PullRequest, Links::None | Links::DemoChange) => {
                    TurnResult::of(TurnOutcome::NoChange)
                }
                (outcome, _) => TurnResult::of(*outcome),
            };
            if let Some(turn) = turns::next(sql, &job.id)? {
                turns::finish(sql, &turn, &result, at)?;
            }
        }
        // As stored (read at time 0, nothing is due for archiving): the first read by a
        // client archives the old ones, as it would any idle job.
        let record = record::get(sql, project, &job.id, 0, i64::MAX)?;
        ids.push(SeededJob {
            job: record.map_or_else(|| job.to_wire(), |r| r.to_wire()),
            id: job.id,
            prompts,
        });
    }
    Ok(ids)
}

#[cfg(test)]
mod tests;
