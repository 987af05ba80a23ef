//! A dropped connection, as over SSH: the other side of the console's terminal closed
//! under it (tests/common/hangup.rs). The console exits 129, as a shell reports SIGHUP,
//! whether or not a SIGHUP comes with the hangup, without a panic (its last writes go to a
//! terminal that is gone) and without reading the ended input for ever; and a draft open
//! in `$EDITOR` keeps what the editor last wrote.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;

use common::hangup::{DroppablePty, exited_with};

fn demo(home: &Path) -> Command {
    let mut command = common::docdeck_command(home);
    command
        .args(["demo", "--agent", "simulated", "--agent-delay-ms", "200"])
        .env("TERM", "xterm-256color");
    command
}

#[test]
fn a_hangup_with_sighup_exits_129_without_a_panic() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = DroppablePty::spawn(demo(home.path()));
    pty.wait_for("the first frame", |screen| screen.contains("Jobs (5)"));
    pty.hang_up();
    // As a shell passes the hangup on to its jobs.
    common::signal(pty.child.id(), "-HUP");
    let status = pty.wait_exit();
    assert!(exited_with(status, 129), "{status:?}");
}

#[test]
fn a_hangup_without_a_signal_ends_the_console_as_sighup_does() {
    // Not its session's leader, or under a shell that does not pass SIGHUP on: the ended
    // input is all there is to go by.
    let home = tempfile::tempdir().unwrap();
    let mut pty = DroppablePty::spawn(demo(home.path()));
    pty.wait_for("the first frame", |screen| screen.contains("Jobs (5)"));
    pty.hang_up();
    let status = pty.wait_exit();
    assert!(exited_with(status, 129), "{status:?}");
}

#[test]
fn a_hangup_while_the_editor_is_open_keeps_what_it_saved_in_the_draft() {
    // An editor that saves, then reads the terminal until its input ends, and fails then
    // (as vi does: "Error reading input, exiting").
    hang_up_in_the_editor("cat > /dev/null\nexit 1\n");
}

#[test]
fn a_hangup_while_an_editor_that_does_not_notice_runs_keeps_its_text_and_ends_it() {
    // An editor that saves and then reads nothing: it would run on after the hangup; the
    // console does not wait for it, and sends it SIGHUP as a shell would.
    let home = hang_up_in_the_editor("exec sleep 60\n");
    let pid = std::fs::read_to_string(home.path().join("editor.sh.pid")).unwrap();
    let pid: u32 = pid.trim().parse().unwrap();
    let proc = std::path::PathBuf::from(format!("/proc/{pid}"));
    let deadline = std::time::Instant::now() + common::DEADLINE;
    while proc.exists() && !is_zombie(&proc) {
        assert!(
            std::time::Instant::now() < deadline,
            "the editor still runs after the hangup"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// A process that has ended but was not yet reaped by its parent.
fn is_zombie(proc: &std::path::Path) -> bool {
    std::fs::read_to_string(proc.join("stat"))
        .is_ok_and(|stat| stat.rsplit(") ").next().is_some_and(|s| s.starts_with('Z')))
}

/// Opens the composer, types, hands the draft to an editor that saves a text and then
/// goes on as `rest` says, hangs up, and checks the draft holds the saved text. Returns
/// the folder the editor (`editor.sh`) ran from.
fn hang_up_in_the_editor(rest: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let service = common::ServeProcess::spawn(
        home.path(),
        &[
            "--db",
            ":memory:",
            "--seed",
            "none",
            "--api-key",
            common::KEY,
        ],
    );
    let editor = home.path().join("editor.sh");
    std::fs::write(
        &editor,
        format!(
            // Its process id first (whole, before it says it is ready), then the save.
            "#!/bin/sh\necho $$ > \"$0.pid.new\"\nmv \"$0.pid.new\" \"$0.pid\"\n\
             printf 'saved in the editor\\n' > \"$1\"\nprintf 'EDITOR-READY'\n{rest}"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut command = common::cli_command(home.path(), &service.base_url, common::KEY);
    command
        .env("TERM", "xterm-256color")
        .env("VISUAL", &editor)
        .env_remove("EDITOR");
    let mut pty = DroppablePty::spawn(command);
    pty.wait_for("the console", |screen| screen.contains("Jobs ("));
    pty.keys(b"n");
    pty.wait_for("the composer", |screen| screen.contains("Ctrl+S"));
    pty.keys(b"typed before the editor");
    pty.wait_for("the text typed", |screen| {
        screen.contains("typed before the editor")
    });
    pty.keys(b"\x05");
    pty.wait_for("the editor", |text| text.contains("EDITOR-READY"));
    pty.hang_up();
    let status = pty.wait_exit();
    assert!(exited_with(status, 129), "{status:?}");
    let journal = rusqlite::Connection::open(common::journal_path(home.path())).unwrap();
    let drafts: Vec<String> = journal
        .prepare("SELECT text FROM drafts")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        drafts.iter().any(|text| text == "saved in the editor"),
        "the draft lost the editor's text: {drafts:?}"
    );
    home
}
