//! The searches pane (`4`) in the real console loop, against the local service's demo
//! seed on port 0: the searches and unanswered questions it shows are the service's own
//! answer for the visitors pane's dates, and the analytics requests the journal counted
//! are exactly those the service received (its own rate-limit count says so).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use chrono::Utc;
use crossterm::event::KeyCode;
use docdeck::api::signals::{AssistantPage, Kind, SearchesPage, SignalsQuery};
use docdeck::journal::ANALYTICS_HOURLY_LIMIT;
use docdeck::server::db::DbLocation;
use docdeck::tui::app::{QUESTION_PAGE, SEARCH_PAGE, unclicked};

use common::console::{Console, line_with};

on_both_stores_kept! {
    async fn the_searches_pane_shows_the_services_answer_and_counts_what_it_sent(db: DbLocation) {
        let (server, mut console, journal) = Console::on_the_demo(&db).await;
        let scope = console.scope.clone();
        console.wait_for("the list", |s| s.contains("Jobs")).await;
        console.key(KeyCode::Char('4'));
        let searches_screen = console
            .wait_for("the searches", |s| s.contains("searches in all"))
            .await;
        console.key(KeyCode::Char('a'));
        let questions_screen = console
            .wait_for("the questions", |s| s.contains("unanswered of"))
            .await;
        let app = console.quit().await;

        // The service's answer for the same dates.
        let held = app.searches.searches.pages.clone().unwrap();
        let client = common::client(&server);
        let asked = |kind, limit| SignalsQuery {
            date_from: held.dates.0,
            date_to: held.dates.1,
            limit: Some(limit),
            ..SignalsQuery::new(kind)
        };
        let service: SearchesPage = client
            .signals(&asked(Kind::Searches, SEARCH_PAGE))
            .await
            .unwrap();
        let assistant: AssistantPage = client
            .signals(&asked(Kind::Assistant, QUESTION_PAGE))
            .await
            .unwrap();
        assert_eq!(
            (held.dates.0.is_some(), held.dates.1.is_some()),
            (true, true),
            "the visitors pane's last 7 days"
        );
        assert_eq!(held.total, Some(service.total_searches));
        assert_eq!(held.rows.len(), service.searches.len());
        for row in &service.searches {
            let shown = held
                .rows
                .iter()
                .find(|r| r.search_query == row.search_query);
            assert_eq!(shown, Some(row), "{}", row.search_query);
            // The screen's numbers are the service's.
            let quoted = format!("\"{}\"", row.search_query);
            if let Some(line) = line_with(&searches_screen, &format!("{quoted} ")) {
                let words: Vec<&str> = line.split_whitespace().collect();
                assert!(words.contains(&row.hits.to_string().as_str()), "{line}");
            }
        }
        // Nobody clicked through: first, and there are some in the demo's week.
        let gaps = held.rows.iter().take_while(|r| unclicked(r)).count();
        assert!(gaps > 0, "{searches_screen}");
        assert!(
            held.rows[gaps..].iter().all(|r| !unclicked(r)),
            "{:?}",
            held.rows
        );
        let unanswered: Vec<_> = (assistant.conversations.iter())
            .filter(|c| c.unanswered())
            .cloned()
            .collect();
        assert_eq!(app.searches.questions.rows(), unanswered.as_slice());
        for question in &unanswered {
            assert!(
                questions_screen.contains(&question.query),
                "{}: {questions_screen}",
                question.query
            );
        }

        // Counted: the two lists, one request each (the visitors pane was never opened).
        let used = journal
            .lock()
            .unwrap()
            .analytics_budget(&scope, ANALYTICS_HOURLY_LIMIT, Utc::now())
            .unwrap()
            .used();
        assert_eq!(used, 2, "the searches and the questions");
        // Sent: the service counted the console's two and this test's two.
        let stated = client
            .stated_analytics_limit()
            .expect("the service states its limit");
        assert_eq!(stated.remaining, Some(stated.limit - 4), "{stated:?}");
        server.shutdown().await;
    }
}
