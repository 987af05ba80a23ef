//! The analytics budget on the command line, against `docdeck serve` on port 0: every
//! request counted in the journal, work of more than 10 requests asked about first (and
//! refused without a terminal unless `--yes`), work over what is left refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{ServeProcess, import_views_into, run_cli, run_cli_failing, text, view};
use docdeck::server::db::DbLocation;
use serde_json::Value;

/// 300 paths with one human visitor each on 2026-10-12: two pages of 250.
fn service(home: &Path, db: &DbLocation) -> ServeProcess {
    let lines: Vec<String> = (0..300)
        .map(|i| view("2026-10-12T10:00:00Z", &format!("/p{i:03}"), "v", "human"))
        .collect();
    import_views_into(db, common::PROJECT, &lines);
    ServeProcess::over_store(home, db, &[])
}

fn json_of(home: &Path, service: &ServeProcess, args: &[&str]) -> Value {
    let out = run_cli(
        home,
        &service.base_url,
        &[args, &["--format", "json"]].concat(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

on_both_stores_sync! {
    fn a_whole_range_of_a_few_pages_goes_without_asking(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db);
        let sort = [
            "visitors",
            "--sort",
            "path",
            "--from",
            "2026-10-12",
            "--to",
            "2026-10-13",
        ];
        // 300 rows are two requests: a script is not stopped for the worst case of 20.
        let all = json_of(home.path(), &service, &sort);
        assert_eq!(all["visitors"].as_array().unwrap().len(), 300);
        assert_eq!(all["visitors"][0]["path"], "/p000");
        let few = json_of(
            home.path(),
            &service,
            &[&sort[..], &["--max-rows", "1000"]].concat(),
        );
        assert_eq!(few["visitors"].as_array().unwrap().len(), 300);
        // 2 + 2 requests counted, and a plain page is one more.
        json_of(home.path(), &service, &["visitors", "--limit", "1"]);
        let long = [
            "visitors",
            "trend",
            "--from",
            "2026-01-01",
            "--to",
            "2026-04-10",
            "--by",
            "day",
            "--yes",
        ];
        let stderr = run_cli_failing(home.path(), &service.base_url, &long, 1);
        assert!(
            stderr.contains("needs 99 analytics requests, more than are left (95 of 100"),
            "{stderr}"
        );
    }
}

on_both_stores_sync! {
    /// 2,600 rows take 11 requests: the first 10 go, and the 11th asks first, saying what
    /// was fetched and the most that is left.
    fn a_whole_range_asks_when_an_eleventh_request_would_be_sent(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let lines: Vec<String> = (0..2_600)
            .map(|i| view("2026-10-12T10:00:00Z", &format!("/p{i:04}"), "v", "human"))
            .collect();
        import_views_into(&db, common::PROJECT, &lines);
        let service = ServeProcess::over_store(home.path(), &db, &[]);
        let sort = [
            "visitors",
            "--sort",
            "path",
            "--from",
            "2026-10-12",
            "--to",
            "2026-10-13",
        ];
        let stderr = run_cli_failing(home.path(), &service.base_url, &sort, 2);
        assert!(
            stderr.contains(
                "--sort made 10 requests (2,500 rows so far); the rest needs up to 10 analytics requests"
            ) && stderr.contains("90 of 100 left this hour")
                && stderr.contains("add --yes"),
            "{stderr}"
        );
        let all = json_of(home.path(), &service, &[&sort[..], &["--yes"]].concat());
        assert_eq!(all["visitors"].as_array().unwrap().len(), 2_600);
    }
}

on_both_stores_sync! {
    fn work_of_more_than_ten_requests_asks_and_more_than_an_hour_is_refused(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db);
        let eleven = [
            "visitors",
            "trend",
            "--from",
            "2026-10-04",
            "--to",
            "2026-10-15",
        ];
        let stderr = run_cli_failing(home.path(), &service.base_url, &eleven, 2);
        assert!(
            stderr.contains("needs 11 analytics requests") && stderr.contains("add --yes"),
            "{stderr}"
        );
        assert!(stderr.contains("100 of 100 left this hour"), "{stderr}");
        let value = json_of(home.path(), &service, &[&eleven[..], &["--yes"]].concat());
        assert_eq!(value["buckets"].as_array().unwrap().len(), 11);
        // 11 counted, 89 left: 95 days the journal does not keep are too many (over 60
        // days the trend is weekly unless asked otherwise).
        let long = [
            "visitors",
            "trend",
            "--from",
            "2026-07-01",
            "--to",
            "2026-10-04",
            "--by",
            "day",
            "--yes",
        ];
        let stderr = run_cli_failing(home.path(), &service.base_url, &long, 1);
        assert!(
            stderr.contains("needs 95 analytics requests, more than are left (89 of 100"),
            "{stderr}"
        );
        assert!(
            stderr.contains("enough are free again at") && stderr.contains("--by week"),
            "{stderr}"
        );
    }
}

on_both_stores_sync! {
    /// The budget follows the limit the service states (`RateLimit-Limit`), not the hosted
    /// service's 100: with `serve --rate-limit 1000`, 25 minutes of ordinary use no longer
    /// refuse a trend for an hour. `doctor` says which limit applies and where it came from.
    fn the_budget_follows_the_limit_the_service_states(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let lines: Vec<String> = (0..300)
            .map(|i| view("2026-10-12T10:00:00Z", &format!("/p{i:03}"), "v", "human"))
            .collect();
        import_views_into(&db, common::PROJECT, &lines);
        let service = ServeProcess::over_store(home.path(), &db, &["--rate-limit", "1000"]);
        let doctor = run_cli(home.path(), &service.base_url, &["doctor"]);
        assert!(
            text(&doctor.stdout).contains("the hosted service's documented limit"),
            "{}",
            text(&doctor.stdout)
        );
        let range = ["--from", "2026-10-12", "--to", "2026-10-13"];
        json_of(home.path(), &service, &[&["visitors"][..], &range].concat());
        let eleven = [
            "visitors",
            "trend",
            "--from",
            "2026-10-04",
            "--to",
            "2026-10-15",
        ];
        let stderr = run_cli_failing(home.path(), &service.base_url, &eleven, 2);
        assert!(
            // One level of brackets (a trial read three nested in this line).
            stderr.contains("needs 11 analytics requests (999 of 1000 left this hour as counted on this machine for this project; 1000 is the limit the service states in RateLimit-Limit)"),
            "{stderr}"
        );
        let doctor = run_cli(home.path(), &service.base_url, &["doctor"]);
        let said = text(&doctor.stdout);
        assert!(
            said.contains("999 of 1000 requests left this hour")
                && said.contains("1000 an hour as the service states it (RateLimit-Limit"),
            "{said}"
        );
    }
}
