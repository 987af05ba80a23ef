//! A dropped connection (an SSH hangup), seen on the terminal itself and not only by
//! SIGHUP: a console that is not its session's leader, or whose shell does not pass the
//! signal on, gets no SIGHUP at all, only an input that has ended. crossterm's reader
//! reads such an input again and again without end (it treats neither an end nor an
//! error as final), so the console does not wait for it to say so: a thread asleep in
//! poll(2) on the terminal wakes only when the terminal hangs up, puts a silent input and
//! `/dev/null` in the terminal's place (the reader then waits for ever, and every write
//! still to come, the restore and any message, goes nowhere instead of failing), and
//! tells the loop.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::OnceLock;

use rustix::event::{PollFd, PollFlags, poll};
use rustix::pipe::{PipeFlags, pipe_with};
use tokio::sync::watch;

/// The writing end of the silent input: kept open until the process ends, so that reading
/// the input finds nothing to read rather than its end.
static SILENT_INPUT: OnceLock<OwnedFd> = OnceLock::new();

/// Whether the terminal on standard input has hung up (its other side closed), and so
/// whether the process has let go of it, or should.
#[must_use]
pub fn gone() -> bool {
    if SILENT_INPUT.get().is_some() {
        return true;
    }
    let stdin = io::stdin();
    let mut fds = [PollFd::new(&stdin, PollFlags::empty())];
    let zero = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    matches!(poll(&mut fds, Some(&zero)), Ok(n) if n > 0)
        && fds[0].revents().intersects(PollFlags::HUP | PollFlags::ERR)
}

/// Starts the thread that waits for the terminal to hang up; then it detaches the process
/// from the terminal and sends `true` on `hung_up`. Keys never wake it (it asks poll(2)
/// for no event, and a hangup is reported all the same).
pub fn watch(hung_up: watch::Sender<bool>) {
    // A descriptor of its own: once the process lets go of the terminal (`detach`, from
    // here or from the editor's hand-off), standard input is a pipe that never hangs up,
    // and a poll begun again after an interruption must still see the terminal's.
    let terminal = match io::stdin().as_fd().try_clone_to_owned() {
        Ok(terminal) => terminal,
        Err(err) => {
            tracing::warn!("cannot watch the terminal for a hangup: {err}");
            return;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("hangup".into())
        .spawn(move || {
            if wait_for_hangup(&terminal) {
                if let Err(err) = detach() {
                    tracing::warn!("cannot let go of the terminal after a hangup: {err}");
                }
                let _ = hung_up.send(true);
            }
        });
    if let Err(err) = spawned {
        tracing::warn!("cannot watch the terminal for a hangup: {err}");
    }
}

/// Sleeps until `terminal` hangs up (true), or cannot be watched (false).
fn wait_for_hangup(terminal: &OwnedFd) -> bool {
    loop {
        let mut fds = [PollFd::new(terminal, PollFlags::empty())];
        match poll(&mut fds, None) {
            Ok(_) => {
                let revents = fds[0].revents();
                if revents.intersects(PollFlags::HUP | PollFlags::ERR) {
                    return true;
                }
                if revents.contains(PollFlags::NVAL) {
                    return false;
                }
            }
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => return false,
        }
    }
}

/// Puts a silent input (a pipe nobody writes to, read without blocking) on standard
/// input and `/dev/null` on standard output and error, in place of a terminal that is
/// gone. Safe to call more than once.
pub fn detach() -> io::Result<()> {
    let null = File::options().write(true).open("/dev/null")?;
    rustix::stdio::dup2_stdout(null.as_fd())?;
    rustix::stdio::dup2_stderr(null.as_fd())?;
    if SILENT_INPUT.get().is_none() {
        let (read, write) = pipe_with(PipeFlags::NONBLOCK | PipeFlags::CLOEXEC)?;
        rustix::stdio::dup2_stdin(read.as_fd())?;
        let _ = SILENT_INPUT.set(write);
    }
    Ok(())
}
