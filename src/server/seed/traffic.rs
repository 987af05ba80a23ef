//! The demo seed's model of readers: which pages exist, how popular each is, and who
//! reads them on a given day. Made to be worth a trend and a comparison: weekends are
//! quieter, AI agents grow faster than people over the 90 days, AI agents discover
//! [`JUMP_PAGE`] in the last two weeks, and [`NEW_PAGES`] appear in the last week.

use chrono::{Datelike, NaiveDate, NaiveTime, Weekday};
use rand::Rng;
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand_chacha::ChaCha8Rng;

use super::{DAY_MS, SEED_DAYS};
use crate::server::views::{Traffic, ViewEvent};

/// 240 plausible documentation paths, most popular first.
pub fn page_paths() -> Vec<String> {
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

/// Pages published in the last week: no views before it (a comparison calls them new).
pub const NEW_PAGES: [&str; 3] = [
    "/guides/mcp-server",
    "/guides/agent-skills",
    "/api-reference/agents/stream",
];

/// A page deep in the tail that AI agents start reading in the last two weeks (a coding
/// assistant began citing it), so its AI visitors jump from a few a day to dozens.
pub const JUMP_PAGE: &str = "/api-reference/jobs/create";

/// Who reads what. Pages follow a Zipf-like tail; AI agents lean towards reference pages.
pub struct TrafficModel {
    pages: Vec<String>,
    human_pick: WeightedIndex<f64>,
    ai_pick: WeightedIndex<f64>,
    new_visitors: u64,
}

const RETURNING_HUMANS: f64 = 6000.0;
const AI_AGENTS: f64 = 450.0;

impl TrafficModel {
    pub fn new(pages: &[String]) -> Result<Self, rand::distr::weighted::Error> {
        #[expect(clippy::cast_precision_loss)]
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
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    pub fn day(&mut self, rng: &mut ChaCha8Rng, date: NaiveDate, day: u64) -> Vec<ViewEvent> {
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
            // More distinct agents as the weeks pass, not only more visits: so the AI
            // share of a month (unique visitors) rises too, not only a day's.
            let agents_known = AI_AGENTS * (0.25 + 1.75 * progress);
            let visitor = format!(
                "agent{:04}",
                (rng.random::<f64>().powi(2) * agents_known) as u64
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
        news(rng, day, day_start, &mut events);
        events
    }
}

/// The last weeks' news: AI agents on [`JUMP_PAGE`] from 14 days before the end, and
/// [`NEW_PAGES`] read by people and agents from 7 days before it.
#[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn news(rng: &mut ChaCha8Rng, day: u64, day_start: i64, events: &mut Vec<ViewEvent>) {
    if day + 14 >= SEED_DAYS {
        let agents = (45.0 * rng.random_range(0.8..1.2)) as u64;
        for _ in 0..agents {
            let visitor = format!("agent{:04}", rng.random_range(0..AI_AGENTS as u64));
            let ts = day_start + rng.random_range(0..DAY_MS);
            events.push(view(
                ts,
                JUMP_PAGE.to_owned(),
                &visitor,
                Traffic::Ai,
                day_start,
            ));
        }
    }
    if day + 7 >= SEED_DAYS {
        for (rank, path) in (1u64..).zip(NEW_PAGES) {
            let people = rng.random_range(30..60) / rank;
            for _ in 0..people {
                let visitor = format!("v{:05}", rng.random_range(0..RETURNING_HUMANS as u64));
                let ts = day_start + working_hours_ms(rng);
                events.push(view(
                    ts,
                    path.to_owned(),
                    &visitor,
                    Traffic::Human,
                    day_start,
                ));
            }
            for _ in 0..rng.random_range(5..15) {
                let visitor = format!("agent{:04}", rng.random_range(0..AI_AGENTS as u64));
                let ts = day_start + rng.random_range(0..DAY_MS);
                events.push(view(ts, path.to_owned(), &visitor, Traffic::Ai, day_start));
            }
        }
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
