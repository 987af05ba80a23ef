//! Tests of the log-line parsers.

use super::*;

fn request(format: LogFormat, line: &str) -> Record<'_> {
    match parse(format, line, &mut Clock::default()) {
        Ok(Line::Request(record)) => record,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn combined_and_common_lines_are_read() {
    let line = r#"203.0.113.7 - - [20/Nov/2026:09:14:03 +0100] "GET /guide?x=1 HTTP/1.1" 200 5120 "https://example.test/" "Mozilla/5.0 (X11) \"quoted\" Firefox/133.0""#;
    let record = request(LogFormat::Combined, line);
    assert_eq!(record.ts_ms, 1_795_166_043_000 - 3_600_000);
    assert_eq!(
        (&*record.method, &*record.target, record.status),
        ("GET", "/guide?x=1", 200)
    );
    assert_eq!(record.ip.as_deref(), Some("203.0.113.7"));
    assert_eq!(
        record.user_agent.as_deref(),
        Some(r#"Mozilla/5.0 (X11) \"quoted\" Firefox/133.0"#)
    );
    let common = request(
        LogFormat::Common,
        r#"::1 - bob [20/Nov/2026:09:14:03 +0000] "HEAD / HTTP/2.0" 304 -"#,
    );
    assert_eq!((common.status, common.user_agent), (304, None));
}

#[test]
fn times_keep_their_offset_and_bad_times_are_refused() {
    let mut clock = Clock::default();
    let at = |clock: &mut Clock, time: &str| {
        let line = format!(r#"::1 - - [{time}] "GET / HTTP/1.1" 200 1"#);
        match parse(LogFormat::Common, &line, clock) {
            Ok(Line::Request(record)) => Ok(record.ts_ms),
            Ok(Line::Other | Line::Event(_) | Line::Signal(_)) => Err("other".to_owned()),
            Err(err) => Err(err),
        }
    };
    assert_eq!(
        at(&mut clock, "20/Nov/2026:09:14:03 +0000"),
        Ok(1_795_166_043_000)
    );
    assert_eq!(
        at(&mut clock, "20/Nov/2026:09:14:03 -0530"),
        Ok(1_795_166_043_000 + 19_800_000)
    );
    assert_eq!(
        at(&mut clock, "21/Nov/2026:00:00:00 +0000"),
        Ok(1_795_219_200_000)
    );
    for bad in [
        "20/Nov/2026:24:00:00 +0000",
        "20/Nov/2026:09:1x:03 +0000",
        "20/Nov/2026:09:14:03 0000",
        "20/Foo/2026:09:14:03 +0000",
    ] {
        assert!(at(&mut clock, bad).unwrap_err().contains("time ["), "{bad}");
    }
}

#[test]
fn broken_lines_say_why() {
    let cases = [
        (
            r#"203.0.113.7 - - [20/Nov/2026:09:14:03 +0000] "GET /guide HTTP/1.1" 200 5120 "https://ex"#,
            "user agent",
        ),
        (
            r#"203.0.113.7 - - [20/Nov/2026:09:14:03 +0000] "\x16\x03\x01" 400 0 "-" "-""#,
            "METHOD PATH PROTOCOL",
        ),
        (r#"203.0.113.7 - - [20/Nov/2026:09:14"#, "time"),
        (
            r#"203.0.113.7 - - [31/Nov/2026:09:14:03 +0000] "GET / HTTP/1.1" 200 1 "-" "-""#,
            "time",
        ),
        ("garbage", "time"),
    ];
    for (line, hint) in cases {
        let err = parse(LogFormat::Combined, line, &mut Clock::default()).unwrap_err();
        assert!(err.contains(hint), "{line}: {err}");
    }
}

#[test]
fn caddy_lines_are_read() {
    let line = r#"{"level":"info","ts":1795166043.5,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"10.0.0.1","client_ip":"203.0.113.9","method":"GET","uri":"/guide.md","headers":{"User-Agent":["curl/8.5.0"],"Accept":["text/markdown"]}},"status":200}"#;
    let record = request(LogFormat::Caddy, line);
    assert_eq!(record.ts_ms, 1_795_166_043_500);
    assert_eq!(record.ip.as_deref(), Some("203.0.113.9"));
    assert_eq!(record.user_agent.as_deref(), Some("curl/8.5.0"));
    assert_eq!(record.accept.as_deref(), Some("text/markdown"));
    let other = r#"{"level":"info","ts":1795166043.5,"logger":"tls","msg":"certificate obtained"}"#;
    assert_eq!(
        parse(LogFormat::Caddy, other, &mut Clock::default()),
        Ok(Line::Other)
    );
}

#[test]
fn mintlify_events_are_read() {
    let line = r#"{"eventType":"docs.content.view","payload":{"event_id":"e1","anon_id":"a1","path":"/guide","ip":"203.0.113.1","user_agent":"Mozilla/5.0","created_at":"2026-11-20T09:14:03Z"}}"#;
    let record = request(LogFormat::Mintlify, line);
    assert_eq!(
        (record.event_id.as_deref(), record.anon_id.as_deref()),
        (Some("e1"), Some("a1"))
    );
    assert_eq!(record.ts_ms, 1_795_166_043_000);
    let other = r#"{"eventType":"docs.search","payload":{}}"#;
    assert_eq!(
        parse(LogFormat::Mintlify, other, &mut Clock::default()),
        Ok(Line::Event("docs.search".to_owned()))
    );
    let nobody =
        r#"{"eventType":"docs.content.view","payload":{"path":"/g","created_at":"2026-11-20"}}"#;
    assert!(
        parse(LogFormat::Mintlify, nobody, &mut Clock::default())
            .unwrap_err()
            .contains("anon_id")
    );
}

#[test]
fn accept_prefers_markdown_only_when_it_ranks_first() {
    assert!(prefers_markdown("text/markdown"));
    assert!(prefers_markdown("text/plain, text/html;q=0.5"));
    assert!(!prefers_markdown(
        "text/html,application/xhtml+xml,*/*;q=0.8"
    ));
    assert!(!prefers_markdown("text/html, text/markdown;q=0.9"));
}
