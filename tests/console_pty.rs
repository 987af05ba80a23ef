//! Smoke tests of the real binary in a pseudo-terminal: `docdeck demo` starts, draws,
//! and gives the terminal back (alternate screen left, cursor shown, paste mode off) when
//! it quits on `q` and when it is sent SIGTERM or SIGHUP.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::pty::Pty;

#[test]
fn demo_starts_draws_and_quits_on_q_giving_the_terminal_back() {
    let mut pty = Pty::demo();
    pty.wait_for("the first frame", |out| {
        out.contains("Jobs (5)") && out.contains("acme/docs@main")
    });
    pty.keys(b"q");
    let status = pty.wait_exit();
    assert!(status.success(), "{status:?}");
    pty.assert_restored();
}

#[test]
fn sigterm_and_sighup_end_the_console_cleanly() {
    for signal in ["-TERM", "-HUP"] {
        let mut pty = Pty::demo();
        pty.wait_for("the first frame", |out| out.contains("Jobs (5)"));
        common::signal(pty.child.process_id().unwrap(), signal);
        let status = pty.wait_exit();
        assert!(status.success(), "{signal}: {status:?}");
        pty.assert_restored();
    }
}
