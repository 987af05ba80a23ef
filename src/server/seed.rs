//! The demo seed: 90 days of realistic, deterministic traffic over 240 pages (a long tail,
//! a weekly rhythm, a growing share of AI agents, people who also fetch Markdown), and a
//! handful of finished jobs, so a new user sees every part of docdeck working.

use chrono::{Datelike, Days, NaiveDate, NaiveTime, Weekday};
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::{Connection, OptionalExtension, params};

use super::analytics::{Traffic, ViewEvent, ViewWriter};
use super::db::StoreError;
use super::jobs::{self, JobDefaults, TurnOutcome};

/// Days of traffic the seed writes, ending the day before the anchor date.
pub const SEED_DAYS: u64 = 90;
const RNG_SEED: u64 = 0x00d0_cdec;
const DAY_MS: i64 = 86_400_000;

/// What the seed wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedSummary {
    pub views: usize,
    pub pages: usize,
    pub jobs: Vec<String>,
}

/// Seeds `project` once; later calls find the marker and write nothing (returning `None`).
/// `today` anchors the data: the 90 days before it hold traffic.
pub fn seed_demo(
    conn: &mut Connection,
    project: &str,
    today: NaiveDate,
    defaults: &JobDefaults,
) -> Result<Option<SeedSummary>, StoreError> {
    let marker = format!("seeded:{project}");
    let done: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [&marker], |row| {
            row.get(0)
        })
        .optional()?;
    if done.is_some() {
        return Ok(None);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(RNG_SEED);
    let pages = page_paths();
    let tx = conn.transaction()?;
    let mut writer = ViewWriter::new(project);
    let mut views = 0;
    let start = today
        .checked_sub_days(Days::new(SEED_DAYS))
        .unwrap_or(today);
    let mut traffic = TrafficModel::new(&pages).map_err(|err| StoreError::Seed(err.to_string()))?;
    for day in 0..SEED_DAYS {
        let date = start.checked_add_days(Days::new(day)).unwrap_or(start);
        for event in traffic.day(&mut rng, date, day) {
            writer.write(&tx, &event)?;
            views += 1;
        }
    }
    tx.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)",
        params![marker, today.to_string()],
    )?;
    tx.commit()?;
    let jobs = seed_jobs(conn, project, today, defaults)?;
    Ok(Some(SeedSummary {
        views,
        pages: pages.len(),
        jobs,
    }))
}

/// 240 plausible documentation paths, most popular first.
fn page_paths() -> Vec<String> {
    let mut paths: Vec<String> = [
        "/introduction",
        "/quickstart",
        "/installation",
        "/changelog",
        "/faq",
    ]
    .iter()
    .map(|p| (*p).to_owned())
    .collect();
    let guides = [
        "authentication",
        "webhooks",
        "pagination",
        "errors",
        "rate-limits",
        "deploying",
        "custom-domains",
        "analytics",
        "search",
        "navigation",
        "themes",
        "components",
        "code-blocks",
        "images",
        "versioning",
        "localization",
        "redirects",
        "seo",
        "access-control",
        "migrations",
    ];
    for topic in guides {
        paths.push(format!("/guides/{topic}"));
        paths.push(format!("/guides/{topic}/troubleshooting"));
    }
    let resources = [
        "users",
        "projects",
        "documents",
        "pages",
        "comments",
        "files",
        "webhooks",
        "events",
        "teams",
        "invites",
        "tokens",
        "domains",
        "deployments",
        "builds",
        "logs",
        "metrics",
        "alerts",
        "billing",
        "invoices",
        "plans",
        "search",
        "assistants",
        "agents",
        "jobs",
        "exports",
    ];
    for resource in resources {
        for action in ["list", "get", "create", "update", "delete"] {
            paths.push(format!("/api-reference/{resource}/{action}"));
        }
    }
    for lang in ["python", "typescript", "go", "ruby", "java", "rust"] {
        for topic in [
            "install",
            "configure",
            "requests",
            "errors",
            "retries",
            "examples",
        ] {
            paths.push(format!("/sdks/{lang}/{topic}"));
        }
    }
    let integrations = [
        "github",
        "gitlab",
        "slack",
        "discord",
        "vercel",
        "netlify",
        "cloudflare",
        "segment",
        "posthog",
        "amplitude",
        "intercom",
        "zendesk",
        "linear",
        "jira",
        "notion",
        "figma",
        "stripe",
        "sentry",
        "datadog",
        "okta",
    ];
    paths.extend(
        integrations
            .iter()
            .map(|name| format!("/integrations/{name}")),
    );
    let concepts = [
        "architecture",
        "glossary",
        "limits",
        "security",
        "privacy",
        "regions",
        "uptime",
        "support",
        "roadmap",
        "pricing",
        "accessibility",
        "openapi",
        "mdx",
        "llms-txt",
    ];
    paths.extend(concepts.iter().map(|name| format!("/concepts/{name}")));
    paths
}

/// Who reads what. Pages follow a Zipf-like tail; AI agents lean towards reference pages.
struct TrafficModel {
    pages: Vec<String>,
    human_pick: WeightedIndex<f64>,
    ai_pick: WeightedIndex<f64>,
    new_visitors: u64,
}

const RETURNING_HUMANS: f64 = 6000.0;
const AI_AGENTS: f64 = 450.0;

impl TrafficModel {
    fn new(pages: &[String]) -> Result<Self, rand::distr::weighted::Error> {
        #[allow(clippy::cast_precision_loss)]
        let zipf = |rank: usize| 1.0 / ((rank + 1) as f64).powf(1.07);
        let human: Vec<f64> = (0..pages.len()).map(zipf).collect();
        let ai: Vec<f64> = pages
            .iter()
            .enumerate()
            .map(|(rank, path)| {
                let lean = if path.starts_with("/api-reference") || path.starts_with("/sdks") {
                    4.0
                } else {
                    1.0
                };
                zipf(rank) * lean
            })
            .collect();
        Ok(Self {
            pages: pages.to_vec(),
            human_pick: WeightedIndex::new(human)?,
            ai_pick: WeightedIndex::new(ai)?,
            new_visitors: 0,
        })
    }

    /// The views of one day; `day` counts from the first seeded day, for the trends.
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    fn day(&mut self, rng: &mut ChaCha8Rng, date: NaiveDate, day: u64) -> Vec<ViewEvent> {
        let progress = day as f64 / SEED_DAYS as f64;
        let rhythm = match date.weekday() {
            Weekday::Mon | Weekday::Thu => 1.0,
            Weekday::Tue | Weekday::Wed => 1.05,
            Weekday::Fri => 0.9,
            Weekday::Sat => 0.45,
            Weekday::Sun => 0.4,
        };
        let day_start = date.and_time(NaiveTime::MIN).and_utc().timestamp_millis();
        let mut events = Vec::new();
        let humans =
            (420.0 * rhythm * (1.0 + 0.3 * progress) * rng.random_range(0.85..1.15)) as usize;
        for _ in 0..humans {
            let visitor = if rng.random_bool(0.65) {
                format!(
                    "v{:05}",
                    (rng.random::<f64>().powi(2) * RETURNING_HUMANS) as u64
                )
            } else {
                self.new_visitors += 1;
                format!("n{:06}", self.new_visitors)
            };
            let mut ts = day_start + working_hours_ms(rng);
            let views = 1 + (rng.random::<f64>().ln() / 0.55f64.ln()).floor().min(7.0) as usize;
            for _ in 0..views {
                let path = self.pages[self.human_pick.sample(rng)].clone();
                events.push(view(ts, path, &visitor, Traffic::Human, day_start));
                ts += rng.random_range(20_000..300_000);
            }
            // Someone pasting a page into an assistant, or fetching its Markdown.
            if rng.random_bool(0.05) {
                let path = self.pages[self.human_pick.sample(rng)].clone();
                events.push(view(ts, path, &visitor, Traffic::Ai, day_start));
            }
        }
        let agents =
            (90.0 * (0.6 + 0.4 * rhythm) * (1.0 + 1.2 * progress) * rng.random_range(0.8..1.2))
                as usize;
        for _ in 0..agents {
            let visitor = format!(
                "agent{:04}",
                (rng.random::<f64>().powi(2) * AI_AGENTS) as u64
            );
            let ts = day_start + rng.random_range(0..DAY_MS);
            for step in 0..rng.random_range(1..=3) {
                let path = self.pages[self.ai_pick.sample(rng)].clone();
                events.push(view(
                    ts + step * 2_000,
                    path,
                    &visitor,
                    Traffic::Ai,
                    day_start,
                ));
            }
        }
        events
    }
}

/// A view, kept inside its day so a day's traffic never spills into the next.
fn view(ts: i64, path: String, visitor: &str, traffic: Traffic, day_start: i64) -> ViewEvent {
    ViewEvent {
        ts_ms: ts.min(day_start + DAY_MS - 1),
        path,
        visitor: visitor.to_owned(),
        traffic,
    }
}

/// A time of day centred on the afternoon (UTC), as traffic of a mostly EU/US audience is.
fn working_hours_ms(rng: &mut ChaCha8Rng) -> i64 {
    let spread: i64 = (0..3).map(|_| rng.random_range(0..8 * 3_600_000)).sum();
    (2 * 3_600_000 + spread).min(DAY_MS - 1)
}

/// Five finished jobs of the last weeks, made through the same code paths as real ones.
fn seed_jobs(
    conn: &mut Connection,
    project: &str,
    today: NaiveDate,
    defaults: &JobDefaults,
) -> Result<Vec<String>, StoreError> {
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
        for (index, outcome) in (0i64..).zip(outcomes.iter()) {
            let at = created + (index + 1) * 240_000;
            if index > 0 {
                let follow_up = "Add a curl example for each event type";
                if let Err(refusal) =
                    jobs::add_message(conn, project, &job.id, follow_up, at - 60_000, i64::MAX)?
                {
                    tracing::warn!(job = %job.id, ?refusal, "seed follow-up refused");
                }
            }
            if let Some(turn) = jobs::next_turn(conn, &job.id)? {
                jobs::finish_turn(conn, &turn, *outcome, at)?;
            }
        }
        ids.push(job.id);
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
            let summary = db
                .blocking(|c| seed_demo(c, "demo", today, &defaults()))
                .unwrap()
                .unwrap();
            assert!(
                summary.pages >= 200 && summary.views > 50_000,
                "{summary:?}"
            );
            assert_eq!(summary.jobs.len(), 5);
            assert_eq!(
                db.blocking(|c| seed_demo(c, "demo", today, &defaults()))
                    .unwrap(),
                None
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
}
