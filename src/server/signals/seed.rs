//! The demo's searches, feedback and assistant questions over the 30 days before its
//! anchor date, deterministic, and made to show the loop of issue 27: queries nobody
//! clicked through (pages the docs lack), a page many readers thumbed down with comments,
//! and questions the assistant could not answer.

use crate::server::store::Sql;
use chrono::{NaiveDate, NaiveTime};

use super::write::{NewConversation, NewFeedback, record_said, record_search};
use crate::server::db::StoreError;

const DAY_MS: i64 = 86_400_000;

/// Queries: the words, how many times searched, and the page clicked on `clicked` of
/// those searches, spread evenly over the month (none for the rest), so a week's range
/// tells the same gaps as the month's.
const SEARCHES: [(&str, u32, u32, &str); 10] = [
    ("api key", 64, 52, "/guides/authentication"),
    ("webhooks", 41, 35, "/guides/webhooks"),
    ("rate limit", 37, 30, "/guides/rate-limits"),
    ("sso saml", 29, 0, ""),
    ("delete project", 23, 0, ""),
    ("pagination cursor", 18, 11, "/guides/pagination"),
    ("terraform provider", 16, 0, ""),
    ("custom domain", 14, 12, "/guides/custom-domains"),
    ("rotate api key", 12, 1, "/guides/authentication"),
    ("audit log export", 9, 0, ""),
];

/// Feedback: page (sometimes sent as a whole URL), thumbs up, thumbs down, and comments.
const FEEDBACK: [(&str, u32, u32, &[&str]); 4] = [
    (
        "/guides/authentication",
        6,
        14,
        &[
            "How do I rotate a key without downtime? Nothing here says.",
            "The scoped keys section is out of date: the dashboard has moved.",
            "Missing an example for the Python SDK.",
        ],
    ),
    (
        "https://docs.acme.dev/guides/webhooks?ref=nav",
        11,
        4,
        &["Please document the retry schedule for failed deliveries."],
    ),
    // A comment goes with a thumb down: it says what is missing (the trial found a
    // "thanks!" filed under a thumb down).
    (
        "/quickstart",
        23,
        2,
        &["Step 3 fails on Windows: the command needs quotes around the path."],
    ),
    (
        "/api-reference/jobs/create",
        3,
        7,
        &["The example body is missing the required field."],
    ),
];

/// Questions to the assistant: the question, and whether it was answered (with a page).
const QUESTIONS: [(&str, Option<&str>); 6] = [
    ("How do I set up SAML single sign-on?", None),
    ("Can I export the audit log to S3?", None),
    (
        "How do I rotate an API key?",
        Some("/guides/authentication"),
    ),
    ("Is there a Terraform provider?", None),
    (
        "What is the rate limit for creates?",
        Some("/guides/rate-limits"),
    ),
    ("How do I delete a project and its data?", None),
];

/// Writes the demo's signals for `project`, the 30 days before `today`, marked invented
/// (`import --discard-demo` deletes them with the invented views).
pub fn seed(sql: &mut dyn Sql, project: &str, today: NaiveDate) -> Result<(), StoreError> {
    write_seed(sql, project, today)?;
    for table in INVENTED_IN {
        sql.exec(
            &format!("UPDATE {table} SET invented = 1 WHERE project = $1"),
            &[project.into()],
        )?;
    }
    Ok(())
}

/// The tables of signals, each with its `invented` mark.
pub const INVENTED_IN: [&str; 3] = ["searches", "feedback", "assistant"];

fn write_seed(sql: &mut dyn Sql, project: &str, today: NaiveDate) -> Result<(), StoreError> {
    let end = today.and_time(NaiveTime::MIN).and_utc().timestamp_millis();
    // Spread over the 30 days with a fixed stride, so the seed is the same every time.
    let at = |n: u32, of: u32| {
        end - DAY_MS * 30 + i64::from(n) * (DAY_MS * 30 / i64::from(of.max(1))) + 3_600_000
    };
    for (text, hits, clicked, page) in SEARCHES {
        for n in 0..hits {
            // Exactly `clicked` clicks, spread as the thumbs down are: with clicks all
            // at the start of the month, "api key" read as a gap over the last week.
            let click = ((n + 1) * clicked / hits != n * clicked / hits).then_some(page);
            record_search(sql, project, at(n, hits), text, click)?;
        }
    }
    for (path, up, down, comments) in FEEDBACK {
        let total = up + down;
        let mut said = comments.iter();
        for n in 0..total {
            // Exactly `down` thumbs down, spread evenly; the comments go with the first.
            let helpful = (n + 1) * down / total == n * down / total;
            let comment = if helpful { None } else { said.next() };
            let comment = comment.map(|c| (*c).to_owned());
            let thumb = NewFeedback::thumb(at(n, total), path.to_owned(), Some(helpful), comment);
            record_said(sql, project, &thumb)?;
        }
    }
    for (n, (question, answer)) in (0u32..).zip(QUESTIONS) {
        record_said(
            sql,
            project,
            &NewConversation {
                ts_ms: at(n * 5 + 2, 30),
                query: question.to_owned(),
                response: answer.map_or_else(
                    || "I could not find that in the documentation.".to_owned(),
                    |page| format!("See {page}."),
                ),
                sources: answer
                    .map(|page| vec![(page.trim_start_matches('/').to_owned(), page.to_owned())])
                    .unwrap_or_default(),
                answered: answer.is_some(),
                category: None,
                page_url: None,
            },
        )?;
    }
    Ok(())
}
