//! Tests of the demo seed: realistic, deterministic, written once, never into a project
//! with data of its own, and continued after a stop.

use chrono::Days;

use super::*;
use crate::server::db::{Db, DbLocation};
use crate::server::views::{VisitorsRequest, visitors};

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
        .blocking(|c| claim_demo(c, "demo", today, &defaults(), Links::Invented))
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

/// Two starts that both find the views unwritten (two nodes on one PostgreSQL) never
/// write a day twice: the one that finds the marker moved on stops.
#[test]
fn two_starts_writing_the_views_at_once_write_each_day_once() {
    let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    let db = Db::open(&DbLocation::Memory).unwrap();
    let Claim::Seed { views, .. } = db
        .blocking(|c| claim_demo(c, "demo", today, &defaults(), Links::Invented))
        .unwrap()
    else {
        panic!("a new project is claimed")
    };
    let Claim::Resume(beside) = db
        .blocking(|c| claim_demo(c, "demo", today, &defaults(), Links::Invented))
        .unwrap()
    else {
        panic!("the second start resumes the views")
    };
    let mut first = views.days().unwrap();
    let mut second = beside.days().unwrap();
    assert!(db.blocking(|c| first.next(c)).unwrap());
    assert!(
        !db.blocking(|c| second.next(c)).unwrap(),
        "the second finds the first day written and stops"
    );
    while db.blocking(|c| first.next(c)).unwrap() {}
    assert_eq!(second.written().0, 0);
    let once = Db::open(&DbLocation::Memory).unwrap();
    let SeedOutcome::Seeded(alone) = once
        .blocking(|c| seed_demo(c, "demo", today, &defaults()))
        .unwrap()
    else {
        panic!("seeded")
    };
    assert_eq!(first.written().0, alone.views);
    assert_eq!(footprint(&db, "demo").views, alone.views as u64);
}

fn footprint(db: &Db, project: &str) -> Footprint {
    db.blocking(|c| Footprint::read(c, project)).unwrap()
}

#[test]
fn a_project_with_views_jobs_or_a_key_gets_no_invented_data() {
    let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    const VIEW: &str =
        r#"{"ts": "2026-11-20T10:00:00Z", "path": "/a", "visitorId": "v1", "traffic": "human"}"#;
    type Prepare = fn(&Db);
    let prepare: [(&str, Prepare); 4] = [
        ("views", |db| {
            crate::server::import::import(db, "demo", VIEW.as_bytes()).unwrap();
        }),
        ("a job", |db| {
            db.blocking(|c| crate::server::jobs::create(c, "demo", "Fix typos", &defaults(), 0))
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
            let key = crate::secret::Secret::new("mint_x");
            db.blocking(|c| {
                let hasher = crate::server::keys::KeyHasher::load(c)?;
                Ok(crate::server::keys::register(c, &hasher, "demo", &key, 0))
            })
            .unwrap()
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
        imported: true,
    };
    assert_eq!(footprint.to_string(), "104,283 views, 1 job and 0 API keys");
    assert_eq!(crate::text::thousands(0), "0");
    assert_eq!(crate::text::thousands(999), "999");
    assert_eq!(crate::text::thousands(1_000), "1,000");
}

/// Beside a real agent the invented history links nowhere; with the simulated agent its
/// pull requests carry the made-up links that agent makes.
#[test]
fn invented_jobs_get_pull_request_links_only_beside_the_simulated_agent() {
    let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    let links_of = |links: Links| {
        let db = Db::open(&DbLocation::Memory).unwrap();
        let claim = db
            .blocking(|c| claim_demo(c, "demo", today, &defaults(), links))
            .unwrap();
        let Claim::Seed { jobs, .. } = claim else {
            panic!("{claim:?}")
        };
        jobs.iter()
            .filter(|seeded| seeded.job.pr_link.is_some())
            .count()
    };
    assert_eq!(links_of(Links::Invented), 3);
    assert_eq!(links_of(Links::None), 0);
    // `docdeck demo`'s one merged job links to its change on the service.
    assert_eq!(links_of(Links::DemoChange), 1);
}

/// The numbers of `[from, to)` days before `today`, and its rows.
fn days_of(db: &Db, today: NaiveDate, from: u64, to: u64) -> crate::api::VisitorsPage {
    let at = |days_before: u64| {
        today
            .checked_sub_days(Days::new(days_before))
            .unwrap()
            .and_time(NaiveTime::MIN)
            .and_utc()
            .timestamp_millis()
    };
    let request = VisitorsRequest {
        from_ms: Some(at(from)),
        to_ms: Some(at(to)),
        limit: 250,
        offset: 0,
    };
    db.blocking(|c| visitors(c, "demo", &request)).unwrap()
}

fn ai_of(page: &crate::api::VisitorsPage, path: &str) -> u64 {
    page.visitors
        .iter()
        .find(|row| row.path == path)
        .map_or(0, |row| row.ai)
}

#[test]
fn the_demo_data_is_worth_a_trend_and_a_comparison() {
    // 2026-11-22 is a Sunday: days 1 and 2 before it are Saturday and Friday.
    let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    let db = Db::open(&DbLocation::Memory).unwrap();
    db.blocking(|c| seed_demo(c, "demo", today, &defaults()))
        .unwrap();
    // Weekends are quieter: each of the last four weeks' Saturdays and Sundays.
    for week in 0..4 {
        let day = |n: u64| {
            days_of(&db, today, 7 * week + n, 7 * week + n - 1)
                .totals
                .total
        };
        let (sunday, saturday, wednesday) = (day(7), day(1), day(4));
        assert!(
            sunday * 10 < wednesday * 7 && saturday * 10 < wednesday * 7,
            "week {week}"
        );
    }
    // AI agents grow faster than people: the AI share of the last 30 days is higher.
    let (first, last) = (
        days_of(&db, today, 90, 60).totals,
        days_of(&db, today, 30, 0).totals,
    );
    assert!(
        last.ai_share() > first.ai_share() + 3.0,
        "{first:?} then {last:?}"
    );
    // AI agents discover one page in the last two weeks.
    let (before, after) = (days_of(&db, today, 28, 14), days_of(&db, today, 14, 0));
    let (was, is) = (
        ai_of(&before, traffic::JUMP_PAGE),
        ai_of(&after, traffic::JUMP_PAGE),
    );
    assert!(is > 10 * was.max(1), "{} AI visitors, then {is}", was);
    // Pages new in the last week: nothing before it.
    let (before, after) = (days_of(&db, today, 14, 7), days_of(&db, today, 7, 0));
    for path in traffic::NEW_PAGES {
        assert!(before.visitors.iter().all(|row| row.path != path), "{path}");
        assert!(
            after
                .visitors
                .iter()
                .any(|row| row.path == path && row.total > 0),
            "{path}"
        );
    }
}

/// Following the README (serve, then import into the default project) used to add a real
/// log to 90 days of invented views.
#[test]
fn real_views_never_join_invented_ones() {
    let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    let db = Db::open(&DbLocation::Memory).unwrap();
    db.blocking(|c| seed_demo(c, "demo", today, &defaults()))
        .unwrap();
    let seeded = footprint(&db, "demo").views;
    assert!(seeded > 10_000, "{seeded}");
    let refused = db
        .blocking(|c| Ok(claim_real(c, "demo", false)))
        .unwrap()
        .unwrap_err();
    assert!(
        refused.to_string().starts_with(&format!(
            "project demo holds {} invented views",
            crate::text::thousands(seeded)
        )),
        "{refused}"
    );
    assert!(refused.to_string().contains("--discard-demo"), "{refused}");
    assert_eq!(footprint(&db, "demo").views, seeded, "nothing deleted");

    // A reader's real feedback (the widget) arrived meanwhile: it is kept.
    db.blocking(|c| {
        crate::server::signals::record_said(
            c,
            "demo",
            &crate::server::signals::NewFeedback {
                ts_ms: 1,
                path: "/guide".into(),
                source: "thumbs_only".into(),
                helpful: Some(true),
                ..Default::default()
            },
        )
    })
    .unwrap();
    let claimed = db
        .blocking(|c| Ok(claim_real(c, "demo", true).unwrap()))
        .unwrap();
    assert_eq!(claimed.discarded, seeded);
    assert_eq!(footprint(&db, "demo").views, 0);
    // The seed's 263 searches, 70 feedback and 6 questions go with its views (the trial
    // found them kept after --discard-demo said only real data was counted).
    assert_eq!(claimed.discarded_signals, 263 + 70 + 6);
    let left: (i64, i64, i64) = db
        .blocking(|c| {
            Ok(c.query_row(
                "SELECT (SELECT COUNT(*) FROM searches), (SELECT COUNT(*) FROM feedback),
                        (SELECT COUNT(*) FROM assistant)",
                [],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )?)
        })
        .unwrap();
    assert_eq!(left, (0, 1, 0));
    // Real from then on: no second refusal, and the seed never comes back.
    let again = db
        .blocking(|c| Ok(claim_real(c, "demo", false).unwrap()))
        .unwrap();
    assert_eq!(again.discarded, 0);
    let outcome = db
        .blocking(|c| seed_demo(c, "demo", today, &defaults()))
        .unwrap();
    assert!(matches!(outcome, SeedOutcome::Refused(_)), "{outcome:?}");

    // A project claimed by an import before it wrote any view is never seeded either.
    db.blocking(|c| Ok(claim_real(c, "fresh", false).unwrap()))
        .unwrap();
    let outcome = db
        .blocking(|c| seed_demo(c, "fresh", today, &defaults()))
        .unwrap();
    assert!(
        matches!(outcome, SeedOutcome::Refused(f) if f.imported),
        "{outcome:?}"
    );
}
