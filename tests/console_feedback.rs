//! The visitors pane's feedback columns in the real console loop, against the local
//! service's demo seed on port 0: the 👍 and 👎 beside a page are the service's own for
//! the range (feedback sent from a whole URL counted under its path), and reading them
//! costs one analytics request beside the page's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use chrono::Utc;
use crossterm::event::KeyCode;
use docdeck::api::signals::{FeedbackByPage, Kind, SignalsQuery};
use docdeck::journal::ANALYTICS_HOURLY_LIMIT;
use docdeck::server::db::DbLocation;
use docdeck::tui::app::Thumbs;

use common::console::{Console, line_with};

on_both_stores_kept! {
    async fn the_feedback_columns_show_the_services_thumbs_for_the_range(db: DbLocation) {
        // 80x24: no chart until `c`, so the page and its feedback are the only reads.
        let (server, mut console, journal) = Console::on_the_demo(&db).await;
        let scope = console.scope.clone();
        console.wait_for("the list", |s| s.contains("Jobs")).await;
        console.key(KeyCode::Char('3'));
        let screen = console
            .wait_for("the feedback columns", |s| {
                s.contains("👎/1k") || s.contains("DOWN/1k")
            })
            .await;
        let app = console.quit().await;
        let query = app.visitors.load().shown().unwrap().query.clone();
        let asked = SignalsQuery {
            date_from: query.date_from,
            date_to: query.date_to,
            limit: Some(100),
            ..SignalsQuery::new(Kind::FeedbackByPage)
        };
        let service: FeedbackByPage = common::client(&server).signals(&asked).await.unwrap();
        let thumbs = app.visitors.feedback.of_range(&query).unwrap();
        for path in ["/guides/authentication", "/guides/webhooks", "/quickstart"] {
            let said = service.feedback.iter().find(|row| row.path == path);
            let expected = said.map_or(Thumbs::default(), |row| Thumbs {
                up: row.thumbs_up,
                down: row.thumbs_down,
            });
            assert_eq!(thumbs.of(path), Some(expected), "{path}");
            if let Some(line) = line_with(&screen, &format!("{path} ")) {
                let words: Vec<&str> = line.split_whitespace().collect();
                let up = expected.up.to_string();
                let down = expected.down.to_string();
                assert!(
                    words.windows(2).any(|w| w == [up.as_str(), down.as_str()]),
                    "{path}: {line}"
                );
            }
        }
        assert!(
            !service
                .feedback
                .iter()
                .any(|row| row.path.starts_with("http")),
            "the service counts a whole URL under its path: {service:?}"
        );
        let used = journal
            .lock()
            .unwrap()
            .analytics_budget(&scope, ANALYTICS_HOURLY_LIMIT, Utc::now())
            .unwrap()
            .used();
        assert_eq!(used, 2, "the page and its feedback");
        server.shutdown().await;
    }
}
