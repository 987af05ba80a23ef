//! The visitors pane's chart and comparison in the real console loop, against the local
//! service on port 0: their numbers are the service's own for each day and each period,
//! and a second opening of the chart reads only the days that have not settled. On both
//! stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{Days, NaiveDate, Utc};
use crossterm::event::KeyCode;
use docdeck::api::{DateParam, VisitorTotals, VisitorsQuery};
use docdeck::journal::{ANALYTICS_HOURLY_LIMIT, Journal};
use docdeck::server::db::DbLocation;
use docdeck::tui::app::{PreviousLoad, TrendLoad};

use common::console::Console;

/// Views over the last 14 days: day `k` (0 = 13 days ago) has `3 + k % 5` human and
/// `1 + k % 3` AI visitors, the same ids from day to day (so days do not add up).
fn views(today: NaiveDate) -> Vec<String> {
    let mut lines = Vec::new();
    for k in 0..14u64 {
        let day = today - Days::new(13 - k);
        let at = format!("{day}T00:00:01Z");
        for i in 0..3 + k % 5 {
            lines.push(common::view(
                &at,
                &format!("/p/{}", i % 4),
                &format!("h{i}"),
                "human",
            ));
        }
        for i in 0..1 + k % 3 {
            lines.push(common::view(&at, "/api", &format!("a{i}"), "ai"));
        }
    }
    lines
}

fn range(from: NaiveDate, to: NaiveDate) -> VisitorsQuery {
    VisitorsQuery {
        date_from: Some(DateParam::from_date(from)),
        date_to: Some(DateParam::from_date(to)),
        limit: Some(1),
        offset: None,
    }
}

fn used(journal: &Arc<Mutex<Journal>>, scope: &docdeck::journal::Scope) -> u32 {
    let journal = journal.lock().unwrap();
    journal
        .analytics_budget(scope, ANALYTICS_HOURLY_LIMIT, Utc::now())
        .unwrap()
        .used()
}

on_both_stores_kept! {
    async fn the_chart_and_the_comparison_show_the_services_numbers_and_settled_days_cost_nothing_again(db: DbLocation) {
        let today = Utc::now().date_naive();
        common::import_views_into(&db, common::PROJECT, &views(today));
        let server = common::start(common::options_on(&db)).await;
        let client = common::client(&server);
        let journal = Arc::new(Mutex::new(Journal::open_in_memory().unwrap()));
        let poll = Duration::from_secs(3);
        let mut console = Console::open_with(&server, poll, Arc::clone(&journal));
        let scope = console.scope.clone();
        console.wait_for("the list", |s| s.contains("Jobs")).await;
        console.key(KeyCode::Char('3'));
        // 40 rows: the chart is shown by default; the last 7 days are 7 requests. The page's
        // feedback (its 👍 and 👎 columns, `/1k` in their header) is one more.
        console
            .wait_for("the chart and the feedback", |s| {
                s.contains("unique visitors per day") && s.contains("└") && s.contains("/1k")
            })
            .await;
        console.key(KeyCode::Char('v'));
        let screen = console
            .wait_for("the comparison", |s| {
                s.contains(" vs ") && s.contains("AI share") && s.contains("pp")
            })
            .await;
        let first = used(&journal, &scope);
        let app = console.quit().await;

        // Each day of the chart is the service's totals for that day.
        let TrendLoad::Shown { totals, plan } = &app.visitors.trend else {
            panic!("{:?}", app.visitors.trend)
        };
        assert_eq!(totals.len(), 7);
        let from = today - Days::new(6);
        assert_eq!(plan.from.date_naive(), from);
        for (i, shown) in totals.iter().enumerate() {
            let day = from + Days::new(i as u64);
            let direct = client
                .visitors(&range(day, day + Days::new(1)))
                .await
                .unwrap();
            assert_eq!(*shown, direct.totals, "day {day}");
        }
        // The comparison is the service's totals of the 7 days before.
        let PreviousLoad::Shown { totals: before, .. } = &app.visitors.previous else {
            panic!("{:?}", app.visitors.previous)
        };
        let direct_before = client
            .visitors(&range(from - Days::new(7), from))
            .await
            .unwrap();
        let direct_now = client
            .visitors(&range(from, today + Days::new(1)))
            .await
            .unwrap();
        assert_eq!(*before, direct_before.totals);
        let change = |now: u64, was: u64| {
            let by = i64::try_from(now).unwrap() - i64::try_from(was).unwrap();
            if by > 0 {
                format!("+{by}")
            } else if by < 0 {
                format!("{by}")
            } else {
                "±0".into()
            }
        };
        let VisitorTotals { human, ai, total } = direct_now.totals;
        for (name, now, was) in [
            ("human", human, before.human),
            ("AI", ai, before.ai),
            ("total", total, before.total),
        ] {
            let said = format!("{name} {}", change(now, was));
            assert!(screen.contains(&said), "{said:?} in:\n{screen}");
        }
        // A page, its feedback, 7 days and the period before: each counted.
        assert_eq!(first, 1 + 1 + 7 + 1);

        // A second opening reads only the days not yet settled (48 hours): today and the
        // two days before it.
        let mut again = Console::open_with(&server, poll, Arc::clone(&journal));
        again.wait_for("the list", |s| s.contains("Jobs")).await;
        again.key(KeyCode::Char('3'));
        again
            .wait_for("the chart again", |s| {
                s.contains("unique visitors per day") && s.contains("└")
            })
            .await;
        let app = again.quit().await;
        assert!(matches!(app.visitors.trend, TrendLoad::Shown { .. }));
        let second = used(&journal, &scope) - first;
        assert!(
            second <= 1 + 1 + 3,
            "a page, its feedback and at most the 3 unsettled days: {second}"
        );
        server.shutdown().await;
    }
}
