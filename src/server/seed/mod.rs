//! The demo seed: 90 days of realistic, deterministic traffic over 240 pages (a long tail,
//! a weekly rhythm, a growing share of AI agents, people who also fetch Markdown), and a
//! handful of finished jobs, so a new user sees every part of docdeck working.

mod traffic;

use chrono::{Days, NaiveDate, NaiveTime};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rusqlite::{Connection, OptionalExtension, params};

use self::traffic::{TrafficModel, page_paths};
use super::analytics::ViewWriter;
use super::db::StoreError;
use super::jobs::{self, JobDefaults, TurnOutcome};

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
}

impl Footprint {
    /// Counts what `project` holds.
    pub fn read(conn: &Connection, project: &str) -> Result<Self, StoreError> {
        let count = |sql: &str| -> Result<u64, StoreError> {
            let n: i64 = conn.query_row(sql, [project], |row| row.get(0))?;
            Ok(u64::try_from(n).unwrap_or(0))
        };
        Ok(Self {
            views: count("SELECT COUNT(*) FROM views WHERE project = ?1")?,
            jobs: count("SELECT COUNT(*) FROM jobs WHERE project = ?1")?,
            keys: count("SELECT COUNT(*) FROM api_keys WHERE project = ?1")?,
            followed: count("SELECT COUNT(*) FROM import_positions WHERE project = ?1")?,
        })
    }

    /// Whether the project has never existed in this database.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.views == 0 && self.jobs == 0 && self.keys == 0 && self.followed == 0
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
    match claim_demo(conn, project, today, defaults)? {
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
/// jobs. The check and the claim are one transaction, so an import running beside it
/// cannot slip in between; the claim is kept in `meta` until the views are written, so a
/// start that stops before that leaves them to the next one.
pub fn claim_demo(
    conn: &mut Connection,
    project: &str,
    today: NaiveDate,
    defaults: &JobDefaults,
) -> Result<Claim, StoreError> {
    let marker = format!("seeded:{project}");
    let tx = crate::sqlite::write_transaction(conn)?;
    let read = |key: &str| -> Result<Option<String>, StoreError> {
        Ok(tx
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                row.get(0)
            })
            .optional()?)
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
    let footprint = Footprint::read(&tx, project)?;
    if !footprint.is_empty() {
        return Ok(Claim::Refused(footprint));
    }
    for key in [marker, pending_marker(project)] {
        tx.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)",
            params![key, today.to_string()],
        )?;
    }
    tx.commit()?;
    let jobs = seed_jobs(conn, project, today, defaults)?;
    Ok(Claim::Seed {
        jobs,
        views: PendingViews {
            project: project.to_owned(),
            today,
            done: 0,
        },
    })
}

/// The `meta` key that says a claimed project's views are not written yet.
fn pending_marker(project: &str) -> String {
    format!("seed-views-pending:{project}")
}

impl PendingViews {
    /// Writes every day not written yet; returns how many views over how many pages.
    pub fn write(self, conn: &mut Connection) -> Result<(usize, usize), StoreError> {
        let mut days = self.days()?;
        while days.next(conn)? {}
        Ok(days.written())
    }

    /// The writer of the days still to write.
    pub fn days(self) -> Result<SeedDays, StoreError> {
        let pages = page_paths();
        let traffic = TrafficModel::new(&pages).map_err(|err| StoreError::Seed(err.to_string()))?;
        let mut days = SeedDays {
            start: self
                .today
                .checked_sub_days(Days::new(SEED_DAYS))
                .unwrap_or(self.today),
            pending: self,
            next: 0,
            rng: ChaCha8Rng::seed_from_u64(RNG_SEED),
            traffic,
            pages: pages.len(),
            views: 0,
            writer: None,
        };
        // The days an earlier start wrote are made again, unwritten, so the random
        // sequence carries on where it stopped.
        while days.next < days.pending.done.min(SEED_DAYS) {
            days.views += days.make().len();
        }
        Ok(days)
    }
}

/// Writes the demo views one day per transaction: the writer connection is free between
/// two days, so a job request waits a few milliseconds at most, never for the whole seed.
/// Each transaction also records the days done, so a start that stops part way leaves the
/// rest to the next start, and nothing is written twice.
pub struct SeedDays {
    pending: PendingViews,
    start: NaiveDate,
    next: u64,
    rng: ChaCha8Rng,
    traffic: TrafficModel,
    pages: usize,
    views: usize,
    writer: Option<ViewWriter>,
}

impl SeedDays {
    fn make(&mut self) -> Vec<super::analytics::ViewEvent> {
        let day = self.next;
        let date = self
            .start
            .checked_add_days(Days::new(day))
            .unwrap_or(self.start);
        self.next += 1;
        self.traffic.day(&mut self.rng, date, day)
    }

    /// Writes the next day; false once every day is written.
    pub fn next(&mut self, conn: &mut Connection) -> Result<bool, StoreError> {
        if self.next >= SEED_DAYS {
            return Ok(false);
        }
        let events = self.make();
        let project = &self.pending.project;
        let writer = self.writer.get_or_insert_with(|| ViewWriter::new(project));
        let tx = crate::sqlite::write_transaction(conn)?;
        for event in &events {
            writer.write(&tx, event)?;
        }
        writer.finish(&tx)?;
        let marker = pending_marker(project);
        if self.next >= SEED_DAYS {
            tx.execute("DELETE FROM meta WHERE key = ?1", [marker])?;
        } else {
            tx.execute(
                "UPDATE meta SET value = ?2 WHERE key = ?1",
                params![marker, format!("{} {}", self.pending.today, self.next)],
            )?;
        }
        tx.commit()?;
        self.views += events.len();
        Ok(self.next < SEED_DAYS)
    }

    /// Views (of every day, this start's and earlier ones') and pages.
    #[must_use]
    pub fn written(&self) -> (usize, usize) {
        (self.views, self.pages)
    }
}

/// Five finished jobs of the last weeks, made through the same code paths as real ones.
fn seed_jobs(
    conn: &mut Connection,
    project: &str,
    today: NaiveDate,
    defaults: &JobDefaults,
) -> Result<Vec<SeededJob>, StoreError> {
    let day0 = today.and_time(NaiveTime::MIN).and_utc().timestamp_millis();
    let history: [(&str, i64, &[TurnOutcome]); 5] = [
        (
            "Translate the FAQ into Spanish",
            20,
            &[TurnOutcome::PullRequest],
        ),
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
        (
            "Fix the broken links in the quickstart",
            1,
            &[TurnOutcome::PullRequest],
        ),
    ];
    let mut ids = Vec::new();
    for (prompt, days_ago, outcomes) in history {
        let created = day0 - days_ago * DAY_MS + 9 * 3_600_000;
        let job = jobs::create(conn, project, prompt, defaults, created)?;
        let mut prompts = vec![((*prompt).to_owned(), created)];
        for (index, outcome) in (0i64..).zip(outcomes.iter()) {
            let at = created + (index + 1) * 240_000;
            if index > 0 {
                let follow_up = "Add a curl example for each event type";
                match jobs::add_message(conn, project, &job.id, follow_up, at - 60_000, i64::MAX)? {
                    Ok(_) => prompts.push((follow_up.to_owned(), at - 60_000)),
                    Err(refusal) => {
                        tracing::warn!(job = %job.id, ?refusal, "seed follow-up refused")
                    }
                }
            }
            if let Some(turn) = jobs::next_turn(conn, &job.id)? {
                jobs::finish_turn(conn, &turn, *outcome, at)?;
            }
        }
        // As stored (read at time 0, nothing is due for archiving): the first read by a
        // client archives the old ones, as it would any idle job.
        let record = jobs::get(conn, project, &job.id, 0, i64::MAX)?;
        ids.push(SeededJob {
            job: record.map_or_else(|| job.to_wire(), |r| r.to_wire()),
            id: job.id,
            prompts,
        });
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::analytics::{VisitorsRequest, visitors};
    use crate::server::db::{Db, DbLocation};

    fn defaults() -> JobDefaults {
        JobDefaults {
            repository: "https://github.com/acme/docs".into(),
            git_ref: Some("main".into()),
            model: "sim".into(),
        }
    }

    #[test]
    fn the_seed_is_realistic_deterministic_and_written_once() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        let all = VisitorsRequest {
            from_ms: None,
            to_ms: None,
            limit: 100,
            offset: 0,
        };
        let mut pages = Vec::new();
        for _ in 0..2 {
            let db = Db::open(&DbLocation::Memory).unwrap();
            let SeedOutcome::Seeded(summary) = db
                .blocking(|c| seed_demo(c, "demo", today, &defaults()))
                .unwrap()
            else {
                panic!("a new project is seeded")
            };
            assert!(
                summary.pages >= 200 && summary.views > 50_000,
                "{summary:?}"
            );
            assert_eq!(summary.jobs.len(), 5);
            assert_eq!(
                db.blocking(|c| seed_demo(c, "demo", today, &defaults()))
                    .unwrap(),
                SeedOutcome::AlreadySeeded
            );
            let page = db.blocking(|c| visitors(c, "demo", &all)).unwrap();
            assert!(page.has_more, "more than 100 pages have traffic");
            let t = page.totals;
            assert!(
                t.ai * 10 > t.total && t.ai < t.human,
                "a real but minor AI share: {t:?}"
            );
            assert!(
                t.total < t.human + t.ai,
                "some visitors are seen as both: {t:?}"
            );
            let first = today.checked_sub_days(Days::new(SEED_DAYS)).unwrap();
            let first_ms = first.and_time(NaiveTime::MIN).and_utc().timestamp_millis();
            let outside = VisitorsRequest {
                to_ms: Some(first_ms),
                ..all
            };
            assert_eq!(
                db.blocking(|c| visitors(c, "demo", &outside))
                    .unwrap()
                    .totals
                    .total,
                0
            );
            pages.push(page);
        }
        assert_eq!(pages[0], pages[1]);
    }

    /// A start that claimed the project and stopped part way through its views leaves the
    /// rest to the next start: the same views as at once, none twice.
    #[test]
    fn views_left_unwritten_are_written_at_the_next_start() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        let db = Db::open(&DbLocation::Memory).unwrap();
        let claim = db
            .blocking(|c| claim_demo(c, "demo", today, &defaults()))
            .unwrap();
        let Claim::Seed { jobs, views } = claim else {
            panic!("{claim:?}")
        };
        assert_eq!(jobs.len(), 5);
        // Ten days written, then the start stops.
        let mut days = views.days().unwrap();
        for _ in 0..10 {
            assert!(db.blocking(|c| days.next(c)).unwrap());
        }
        let part = footprint(&db, "demo").views;
        assert!(part > 0, "ten days are stored");
        drop(days);
        let SeedOutcome::Seeded(summary) = db
            .blocking(|c| seed_demo(c, "demo", today, &defaults()))
            .unwrap()
        else {
            panic!("the views are written at the next start")
        };
        assert!(
            summary.views > 50_000 && summary.jobs.is_empty(),
            "{summary:?}"
        );
        let stored = footprint(&db, "demo");
        assert_eq!((stored.views, stored.jobs), (summary.views as u64, 5));
        assert_eq!(
            db.blocking(|c| seed_demo(c, "demo", today, &defaults()))
                .unwrap(),
            SeedOutcome::AlreadySeeded
        );
    }

    fn footprint(db: &Db, project: &str) -> Footprint {
        db.blocking(|c| Footprint::read(c, project)).unwrap()
    }

    #[test]
    fn a_project_with_views_jobs_or_a_key_gets_no_invented_data() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        const VIEW: &str = r#"{"ts": "2026-11-20T10:00:00Z", "path": "/a", "visitorId": "v1", "traffic": "human"}"#;
        type Prepare = fn(&Db);
        let prepare: [(&str, Prepare); 4] = [
            ("views", |db| {
                crate::server::import::import(db, "demo", VIEW.as_bytes()).unwrap();
            }),
            ("a job", |db| {
                db.blocking(|c| jobs::create(c, "demo", "Fix typos", &defaults(), 0))
                    .unwrap();
            }),
            ("a followed log with no view yet", |db| {
                db.blocking(|c| {
                    c.execute(
                        "INSERT INTO import_positions VALUES ('demo', 1, 2, 0, 0, '/var/log/a', 0)",
                        [],
                    )?;
                    Ok(())
                })
                .unwrap();
            }),
            ("a key", |db| {
                let key = crate::config::Secret::new("mint_x");
                db.blocking(|c| crate::server::keys::register(c, "demo", &key, 0))
                    .unwrap();
            }),
        ];
        for (what, prepare) in prepare {
            let db = Db::open(&DbLocation::Memory).unwrap();
            prepare(&db);
            let before = footprint(&db, "demo");
            assert!(!before.is_empty(), "{what}");
            let outcome = db
                .blocking(|c| seed_demo(c, "demo", today, &defaults()))
                .unwrap();
            assert_eq!(outcome, SeedOutcome::Refused(before), "{what}");
            assert_eq!(footprint(&db, "demo"), before, "nothing added with {what}");
            let other = db
                .blocking(|c| seed_demo(c, "other", today, &defaults()))
                .unwrap();
            assert!(
                matches!(other, SeedOutcome::Seeded(_)),
                "another project of the same database is new: {what}"
            );
        }
    }

    #[test]
    fn footprints_read_as_sentences() {
        let footprint = Footprint {
            views: 104_283,
            jobs: 1,
            keys: 0,
            followed: 0,
        };
        assert_eq!(footprint.to_string(), "104,283 views, 1 job and 0 API keys");
        assert_eq!(crate::text::thousands(0), "0");
        assert_eq!(crate::text::thousands(999), "999");
        assert_eq!(crate::text::thousands(1_000), "1,000");
    }
}
