//! A docdeck process on a pseudo-terminal that the test owns whole, so that it can hang it
//! up as a dropped SSH connection does: its other side (the master) closed. The process
//! is not given it as its controlling terminal, so no SIGHUP comes with the hangup unless
//! the test sends one (as a shell passing it on would): all it sees is the terminal gone.

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt as _;
use std::os::unix::process::ExitStatusExt as _;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, poll};
use rustix::fd::OwnedFd;
use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};

use super::DEADLINE;

pub struct DroppablePty {
    pub child: Child,
    master: Option<Arc<OwnedFd>>,
    /// Written to end the reader thread, so the master's last descriptor can be closed.
    stop: Option<OwnedFd>,
    reader: Option<std::thread::JoinHandle<()>>,
    output: Arc<Mutex<Vec<u8>>>,
    changed: mpsc::Receiver<()>,
}

impl DroppablePty {
    /// Runs `command` (its environment already set) on a new 80x24 pseudo-terminal.
    pub fn spawn(mut command: Command) -> Self {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)
            .expect("a pseudo-terminal");
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let name = ptsname(&master, Vec::new()).unwrap();
        let size = rustix::termios::Winsize {
            ws_row: 24,
            ws_col: 80,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        rustix::termios::tcsetwinsize(&master, size).unwrap();
        let slave = File::options()
            .read(true)
            .write(true)
            .custom_flags(rustix::fs::OFlags::NOCTTY.bits().cast_signed())
            .open(name.to_str().unwrap())
            .unwrap();
        let child = command
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave))
            .spawn()
            .expect("the program starts");
        let master = Arc::new(master);
        let (stop_read, stop) = rustix::pipe::pipe().unwrap();
        let output = Arc::new(Mutex::new(Vec::new()));
        let (tx, changed) = mpsc::channel();
        let reader = {
            let master = Arc::clone(&master);
            let output = Arc::clone(&output);
            std::thread::spawn(move || read_until_stopped(&master, &stop_read, &output, &tx))
        };
        Self {
            child,
            master: Some(master),
            stop: Some(stop),
            reader: Some(reader),
            output,
            changed,
        }
    }

    pub fn keys(&self, bytes: &[u8]) {
        let master = self.master.as_ref().expect("not hung up");
        let mut written = 0;
        while written < bytes.len() {
            written += rustix::io::write(master, &bytes[written..]).unwrap();
        }
    }

    /// The screen as a terminal shows it after everything written so far.
    pub fn screen(&self) -> String {
        let mut parser = vt100::Parser::new(24, 80, 0);
        parser.process(&self.output.lock().unwrap());
        parser.screen().contents()
    }

    /// Everything written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + DEADLINE;
        while !ready(&self.text()) && !ready(&self.screen()) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "timed out waiting for {what}; the screen:\n{}",
                self.screen()
            );
            let _ = self.changed.recv_timeout(left);
        }
    }

    /// Closes the terminal's other side: every descriptor of the master, as when `sshd`
    /// or a terminal window goes away.
    pub fn hang_up(&mut self) {
        if let Some(stop) = self.stop.take() {
            rustix::io::write(&stop, b"x").unwrap();
        }
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
        let master = self.master.take().expect("hung up once");
        drop(Arc::into_inner(master).expect("the reader has let go of the master"));
    }

    /// Waits for the process to exit (failing the test at the deadline, and killing it).
    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("the process did not exit after the hangup");
            }
            // Nothing to wake on once the terminal is gone: look again shortly.
            let _ = self.changed.recv_timeout(Duration::from_millis(20));
        }
    }
}

impl Drop for DroppablePty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Keeps what the program writes until `stop` is written to.
fn read_until_stopped(
    master: &OwnedFd,
    stop: &OwnedFd,
    output: &Mutex<Vec<u8>>,
    changed: &mpsc::Sender<()>,
) {
    let mut buf = [0u8; 8192];
    loop {
        let mut fds = [
            PollFd::new(master, PollFlags::IN),
            PollFd::new(stop, PollFlags::IN),
        ];
        if poll(&mut fds, None).is_err() || !fds[1].revents().is_empty() {
            return;
        }
        if fds[0].revents().is_empty() {
            continue;
        }
        match rustix::io::read(master, &mut buf) {
            Ok(n) if n > 0 => {
                output.lock().unwrap().extend_from_slice(&buf[..n]);
                let _ = changed.send(());
            }
            // The program has closed its side (it exited): nothing more will come.
            _ => return,
        }
    }
}

/// Whether `status` is an exit with `code` (not a signal, not a panic's 101).
pub fn exited_with(status: ExitStatus, code: i32) -> bool {
    status.code() == Some(code) && status.signal().is_none()
}
