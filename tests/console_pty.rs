//! Smoke tests of the real binary in a pseudo-terminal: `docdeck demo` starts, draws,
//! and gives the terminal back (alternate screen left, cursor shown, paste mode and mouse
//! capture off) when
//! it quits on `q` and when it is sent SIGTERM or SIGHUP (exiting as a shell reports a
//! signal); Ctrl+Z stops it as a shell job and `fg` brings it back whole; a faulty or slow
//! service never keeps the console from opening.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::pty::Pty;

#[test]
fn demo_starts_draws_and_quits_on_q_giving_the_terminal_back() {
    let mut pty = Pty::demo();
    // The demo's repository reads as one (`acme/docs`), not as its temporary folder's
    // random end (`~71Pjm/docs@main`, as a new user saw it at 80x24).
    pty.wait_for("the first frame", |out| {
        out.contains("Jobs (5)") && out.contains("acme/docs@main")
    });
    // The default `terminal` theme in the codes every colour terminal reads (31, 90...),
    // not the 256-colour form (38;5;N) the Linux console does not.
    let out = pty.text();
    if let Some(at) = out.find("\x1b[38;5;") {
        panic!(
            "256-colour codes written: {:?}",
            &out[at..(at + 16).min(out.len())]
        );
    }
    // Bright black (90) as a parameter of one SGR sequence, however it is combined.
    let dim = out.split("\x1b[").any(|sgr| {
        sgr.split_once('m')
            .is_some_and(|(params, _)| params.split(';').any(|p| p == "90"))
    });
    assert!(dim, "dim text in bright black: {out:?}");
    pty.keys(b"q");
    let status = pty.wait_exit();
    assert!(status.success(), "{status:?}");
    pty.assert_restored();
}

#[test]
fn sigterm_sighup_and_sigint_end_the_console_cleanly_with_the_shells_exit_code() {
    for (signal, code) in [("-TERM", 143), ("-HUP", 129), ("-INT", 130)] {
        let mut pty = Pty::demo();
        pty.wait_for("the first frame", |out| out.contains("Jobs (5)"));
        common::signal(pty.child.process_id().unwrap(), signal);
        let status = pty.wait_exit();
        assert_eq!(status.exit_code(), code, "{signal}: {status:?}");
        pty.assert_restored();
    }
}

#[test]
fn ctrl_z_gives_the_terminal_to_the_shell_and_fg_brings_the_console_back_whole() {
    let mut pty = Pty::shell(tempfile::tempdir().unwrap());
    pty.wait_for("the prompt", |out| out.contains('$'));
    pty.keys(b"\"$DOCDECK\" demo --agent-delay-ms 200\r");
    pty.wait_for("the first frame", |out| out.contains("Jobs (5)"));
    pty.keys(b"\x1a");
    pty.wait_for("the shell saying the job stopped", |out| {
        out.contains("Stopped") && !out.contains("Jobs (5)")
    });
    pty.keys(b"fg\r");
    pty.wait_for("the whole console again", |out| {
        out.contains("Jobs (5)") && out.contains("/docs@main") && out.contains("help")
    });
    pty.keys(b"q");
    pty.wait_for("the prompt after quitting", |out| {
        !out.contains("Jobs (5)") && out.trim_end().ends_with('$')
    });
    pty.keys(b"exit\r");
    pty.wait_exit();
    pty.assert_restored();
}

#[test]
fn the_demo_opens_at_once_however_faulty_or_slow_the_service() {
    // Every answer unreadable: the console opens and says so, rather than exiting.
    let home = tempfile::tempdir().unwrap();
    let mut pty = Pty::spawn(home, &["demo", "--garbage-rate", "1"], &[]);
    pty.wait_for("the console with the trouble shown", |out| {
        out.contains("Jobs (5)") && out.contains("▲ trouble")
    });
    assert!(pty.child.try_wait().unwrap().is_none(), "still running");
    pty.child.kill().unwrap();
    // Slow answers: the first frame comes before any answer does, and quitting does not
    // wait for the answers still on their way (30 s is past the test's deadline).
    let home = tempfile::tempdir().unwrap();
    let mut pty = Pty::spawn(home, &["demo", "--latency-ms", "30000..30000"], &[]);
    pty.wait_for("the console before any answer", |out| {
        out.contains("Jobs (5)") && out.contains("○ connecting")
    });
    pty.keys(b"q");
    assert!(pty.wait_exit().success());
    pty.assert_restored();
}

#[test]
fn the_mouse_is_captured_while_the_console_runs_a_click_switches_pane_and_it_is_let_go_on_quit() {
    let mut pty = Pty::demo();
    pty.wait_for("the first frame", |out| out.contains("Jobs (5)"));
    assert!(pty.text().contains("\x1b[?1000h"), "mouse capture on");
    assert!(
        !pty.text().contains("\x1b[?1003h"),
        "no any-motion tracking: every movement would go upstream"
    );
    assert_eq!(
        pty.parser().screen().mouse_protocol_mode(),
        vt100::MouseProtocolMode::ButtonMotion,
        "clicks, drags and the wheel"
    );
    let screen = pty.screen();
    let top = screen.lines().next().unwrap();
    let column = top.find("3 Visitors").expect("the visitors tab") + 1;
    // A left click and its release, as a terminal in SGR mode sends them (1-based).
    pty.keys(format!("\x1b[<0;{column};1M\x1b[<0;{column};1m").as_bytes());
    pty.wait_for("the visitors pane", |out| out.contains("AI share"));
    pty.keys(b"q");
    assert!(pty.wait_exit().success());
    pty.assert_restored();
}

#[test]
fn with_no_mouse_the_console_never_captures_it() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = Pty::spawn(
        home,
        &["demo", "--no-mouse", "--agent-delay-ms", "200"],
        &[],
    );
    pty.wait_for("the first frame", |out| out.contains("Jobs (5)"));
    pty.keys(b"q");
    assert!(pty.wait_exit().success());
    assert!(!pty.text().contains("\x1b[?1000h"), "never turned on");
    assert!(pty.text().contains("\x1b[?1000l"), "let go all the same");
    pty.assert_restored();
}

#[test]
fn a_dumb_terminal_is_refused_with_a_message_and_never_drawn_on() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = Pty::spawn(
        home,
        &["demo", "--agent-delay-ms", "200"],
        &[("TERM", "dumb")],
    );
    let status = pty.wait_exit();
    assert_eq!(status.exit_code(), 2, "{status:?}: {}", pty.text());
    let out = pty.text();
    assert!(out.contains("TERM=dumb"), "{out:?}");
    assert!(out.contains("cannot move the cursor"), "{out:?}");
    assert!(
        !out.contains("\x1b[?1049h"),
        "the alternate screen was taken: {out:?}"
    );
}

#[test]
fn a_locale_that_is_not_utf8_gets_an_ascii_screen() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = Pty::spawn(home, &["demo", "--agent-delay-ms", "200"], &[("LANG", "C")]);
    pty.wait_for("the first frame", |out| {
        out.contains("Jobs (5)") && out.contains("/docs@main")
    });
    let screen = pty.screen();
    assert!(screen.is_ascii(), "not ASCII:\n{screen}");
    assert!(screen.contains("---"), "box lines in ASCII:\n{screen}");
    pty.keys(b"q");
    assert!(pty.wait_exit().success());
    pty.assert_restored();
}
