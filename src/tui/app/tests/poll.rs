//! Polling: which jobs are read how often, how many at once, and how errors back off.

use super::*;

#[test]
fn active_jobs_are_read_every_interval_and_archived_ones_never() {
    let mut h = Harness::new(vec![tracked("a", "active", 3), tracked("x", "archived", 1)]);
    assert!(
        fetches(&h.tick(2.9)).is_empty(),
        "nothing before the interval"
    );
    let due = h.tick(3.0);
    assert_eq!(fetches(&due), vec!["a"]);
    assert!(
        fetches(&h.tick(3.5)).is_empty(),
        "never two reads of one job at once"
    );
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "completed", 3)),
    });
    // Completed: next read only after the long cadence.
    assert!(fetches(&h.tick(600.0)).is_empty());
    assert_eq!(fetches(&h.tick(603.5)), vec!["a"]);
    h.key(KeyCode::Char('3'));
    assert_eq!(
        h.app.next_wake().map(|at| at - h.clock().mono),
        Some(Duration::from_secs(5)),
        "nothing else to poll and no age on screen: the console wakes only to say that \
         the read out has had no answer for 5 s"
    );
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "archived", 3)),
    });
    assert_eq!(
        h.app.next_wake(),
        None,
        "nothing to poll: the console sleeps"
    );
}

#[test]
fn at_most_four_reads_are_in_flight() {
    let jobs = (0..10)
        .map(|i| tracked(&format!("j{i}"), "active", i))
        .collect::<Vec<_>>();
    let mut h = Harness {
        app: App::new(config()),
        base: Instant::now(),
        secs: 0.0,
    };
    let first = h.send(Msg::Loaded(Box::new(Startup {
        jobs,
        ..Startup::default()
    })));
    assert_eq!(fetches(&first).len(), 4);
    assert_eq!(h.app.jobs.poll.in_flight(), 4);
    assert!(fetches(&h.tick(0.1)).is_empty());
    let more = h.send(Msg::JobFetched {
        id: fetches(&first)[0].clone(),
        result: Ok(job("x", "active", 0)),
    });
    assert_eq!(fetches(&more).len(), 1, "one answer frees one slot");
}

#[test]
fn errors_back_off_exponentially_with_jitter_up_to_a_minute() {
    let mut h = Harness::new(vec![tracked("a", "active", 0)]);
    let mut waits = Vec::new();
    let mut t = 3.0;
    for _ in 0..8 {
        assert_eq!(fetches(&h.tick(t)), vec!["a"]);
        h.send(Msg::JobFetched {
            id: "a".into(),
            result: Err(network_error(false)),
        });
        let next = h.app.jobs.poll.next_due().unwrap();
        let wait = next.duration_since(h.clock().mono);
        waits.push(wait);
        t += wait.as_secs_f64();
    }
    assert!(
        waits[0] >= Duration::from_secs(3) && waits[0] <= Duration::from_secs(6),
        "{waits:?}"
    );
    assert!(waits[3] >= Duration::from_secs(24), "grows: {waits:?}");
    assert!(
        waits.iter().all(|w| *w <= Duration::from_secs(60)),
        "capped: {waits:?}"
    );
    assert!(
        waits[7] >= Duration::from_secs(30),
        "equal jitter keeps half: {waits:?}"
    );
    assert_eq!(h.app.link.connection, Connection::Trouble);
    assert!(
        h.app
            .jobs
            .get("a")
            .unwrap()
            .problem
            .as_deref()
            .unwrap()
            .contains("next try")
    );
    // Success resets the backoff.
    assert_eq!(fetches(&h.tick(t)), vec!["a"]);
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "active", 0)),
    });
    assert_eq!(
        h.app
            .jobs
            .poll
            .next_due()
            .unwrap()
            .duration_since(h.clock().mono),
        Duration::from_secs(3)
    );
    assert_eq!(h.app.link.connection, Connection::Online);
}
