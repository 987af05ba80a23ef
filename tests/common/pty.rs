//! A docdeck process in a pseudo-terminal, with its output kept and read through vt100.

use std::io::Read as _;
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

use super::DEADLINE;

pub struct Pty {
    pub output: Arc<Mutex<Vec<u8>>>,
    pub changed: mpsc::Receiver<()>,
    pub writer: Box<dyn std::io::Write + Send>,
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    pub home: tempfile::TempDir,
    /// The terminal's size: rows, then columns.
    pub size: (u16, u16),
}

impl Pty {
    /// `docdeck demo` with a broken config file (the demo reads none).
    pub fn demo() -> Self {
        let home = tempfile::tempdir().unwrap();
        let config = home.path().join("config").join("docdeck");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(config.join("config.toml"), "this is = [not toml").unwrap();
        Self::spawn(home, &["demo", "--agent-delay-ms", "200"], &[])
    }

    /// `docdeck ARGS` on an 80x24 terminal, with its folders in `home` and only `env` set
    /// beside HOME, the XDG folders, TERM and PATH.
    pub fn spawn(home: tempfile::TempDir, args: &[&str], env: &[(&str, &str)]) -> Self {
        Self::spawn_program(home, env!("CARGO_BIN_EXE_docdeck"), args, env)
    }

    /// An interactive bash with job control (for Ctrl+Z and `fg`), prompt `$ `, in which
    /// `$DOCDECK` names the binary.
    pub fn shell(home: tempfile::TempDir) -> Self {
        let env = [("PS1", "$ "), ("DOCDECK", env!("CARGO_BIN_EXE_docdeck"))];
        // No line editing: readline turns bracketed paste on at every prompt and off after
        // each line, which would race with the check that docdeck turned it off.
        let args = ["--norc", "--noprofile", "--noediting", "-i"];
        Self::spawn_program(home, "bash", &args, &env)
    }

    pub fn spawn_program(
        home: tempfile::TempDir,
        program: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        Self::spawn_sized(home, program, args, env, (24, 80))
    }

    /// `program` on a terminal of `size` (rows, columns).
    pub fn spawn_sized(
        home: tempfile::TempDir,
        program: &str,
        args: &[&str],
        env: &[(&str, &str)],
        size: (u16, u16),
    ) -> Self {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: size.0,
                cols: size.1,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut command = CommandBuilder::new(program);
        command.args(args);
        command.env_clear();
        command.env("HOME", home.path());
        command.env("XDG_CONFIG_HOME", home.path().join("config"));
        command.env("XDG_DATA_HOME", home.path().join("data"));
        command.env("TERM", "xterm-256color");
        // A UTF-8 locale, as a terminal emulator sets (without one the console is ASCII).
        command.env("LANG", "C.UTF-8");
        command.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        for (name, value) in env {
            command.env(name, value);
        }
        let child = pair.slave.spawn_command(command).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let output = Arc::new(Mutex::new(Vec::new()));
        let (tx, changed) = mpsc::channel();
        let sink = Arc::clone(&output);
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
                if tx.send(()).is_err() {
                    break;
                }
            }
        });
        Self {
            output,
            changed,
            writer,
            child,
            home,
            size,
        }
    }

    /// The folder the process keeps its config and data in.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Types `bytes` as keys.
    pub fn keys(&mut self, bytes: &[u8]) {
        use std::io::Write as _;
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    /// The screen as a terminal would show it after everything written so far.
    pub fn screen(&self) -> String {
        self.parser().screen().contents()
    }

    /// A terminal after everything written so far: its screen and its modes.
    pub fn parser(&self) -> vt100::Parser {
        let mut parser = vt100::Parser::new(self.size.0, self.size.1, 0);
        parser.process(&self.output.lock().unwrap());
        parser
    }

    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + DEADLINE;
        while !ready(&self.screen()) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "timed out waiting for {what}; the screen:\n{}",
                self.screen()
            );
            let _ = self.changed.recv_timeout(left);
        }
    }

    pub fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // The reader may still hold output written just before the exit: wait
                // until it has read to the end (the terminal's other side closes).
                while Instant::now() < deadline {
                    match self.changed.recv_timeout(deadline - Instant::now()) {
                        Ok(()) => {}
                        Err(_) => break,
                    }
                }
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "docdeck did not exit; output:\n{:?}",
                self.text()
            );
            // Output (the restore sequence) arrives before the exit; wait on it, briefly.
            let _ = self.changed.recv_timeout(Duration::from_millis(50));
        }
    }

    pub fn assert_restored(&self) {
        let mut parser = vt100::Parser::new(24, 80, 0);
        parser.process(&self.output.lock().unwrap());
        assert!(
            !parser.screen().alternate_screen(),
            "still on the alternate screen"
        );
        assert!(!parser.screen().hide_cursor(), "the cursor is still hidden");
        assert!(
            !parser.screen().bracketed_paste(),
            "bracketed paste is still on"
        );
        let out = self.text();
        let entered = out
            .find("\x1b[?1049h")
            .expect("entered the alternate screen");
        let left = out.rfind("\x1b[?1049l").expect("left the alternate screen");
        assert!(left > entered);
        assert!(
            out[left..].contains("\x1b[?25h")
                || out[..left].rfind("\x1b[?25h").is_some_and(|i| i > entered),
            "cursor shown again"
        );
        assert!(out.contains("\x1b[?2004l"), "bracketed paste turned off");
        assert_eq!(
            parser.screen().mouse_protocol_mode(),
            vt100::MouseProtocolMode::None,
            "the mouse is still captured"
        );
        if let Some(captured) = out.rfind("\x1b[?1000h") {
            assert!(
                out[captured..].contains("\x1b[?1000l") && out[captured..].contains("\x1b[?1006l"),
                "mouse capture (and its SGR encoding) turned off after it was last turned on"
            );
        }
    }
}
