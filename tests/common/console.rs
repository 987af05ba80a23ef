//! The real console loop (`tui::drive`) on a TestBackend, driven by scripted keys, for
//! the loop and soak tests.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use docdeck::journal::{Journal, Scope};
use docdeck::server::RunningServer;
use docdeck::tui::app::{App, ConsoleOptions, NotifyMode, Prefs};
use docdeck::tui::effects::Services;
use docdeck::tui::terminal::Host;
use docdeck::tui::view::theme::Theme;
use docdeck::tui::{Input, LoopOptions, drive};
use futures_util::StreamExt as _;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::{DEADLINE, PROJECT};

/// Records what the console writes to the terminal besides frames.
pub struct Recorder(Arc<Mutex<Vec<u8>>>);

impl Host for Recorder {
    fn write_escape(&mut self, bytes: &[u8]) {
        self.0.lock().unwrap().extend_from_slice(bytes);
    }
    fn suspend(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn resume(&mut self) -> io::Result<()> {
        Ok(())
    }
}

pub struct Console {
    pub keys: mpsc::UnboundedSender<io::Result<Event>>,
    pub screen: watch::Receiver<String>,
    pub task: JoinHandle<App>,
    pub journal: Arc<Mutex<Journal>>,
    pub scope: Scope,
    /// Escapes written besides frames: clipboard, bell.
    pub written: Arc<Mutex<Vec<u8>>>,
}

pub fn text_of(buffer: &Buffer) -> String {
    let width = usize::from(buffer.area.width);
    buffer
        .content
        .chunks(width)
        .map(|row| {
            row.iter()
                .map(ratatui::buffer::Cell::symbol)
                .collect::<String>()
                + "\n"
        })
        .collect()
}

impl Console {
    pub fn open(server: &RunningServer, poll: Duration) -> Self {
        Self::open_with(
            server,
            poll,
            Arc::new(Mutex::new(Journal::open_in_memory().unwrap())),
        )
    }

    pub fn open_with(server: &RunningServer, poll: Duration, journal: Arc<Mutex<Journal>>) -> Self {
        Self::open_full(server, poll, journal, "false")
    }

    pub fn open_full(
        server: &RunningServer,
        poll: Duration,
        journal: Arc<Mutex<Journal>>,
        editor: &str,
    ) -> Self {
        Self::open_sized(server, poll, journal, editor, (120, 40))
    }

    /// The demo seed served from `db` (either store, its views all written), and a
    /// console at 80x24 on it with an in-memory journal the test reads too.
    pub async fn on_the_demo(
        db: &docdeck::server::db::DbLocation,
    ) -> (RunningServer, Self, Arc<Mutex<Journal>>) {
        docdeck::api::client::install_crypto_provider();
        let mut options = crate::common::options_on(db);
        options.seed = docdeck::server::SeedKind::Demo;
        let mut server = crate::common::start(options).await;
        server.seeded().await.unwrap();
        let journal = Arc::new(Mutex::new(Journal::open_in_memory().unwrap()));
        let console = Self::open_sized(
            &server,
            Duration::from_secs(3),
            Arc::clone(&journal),
            "false",
            (80, 24),
        );
        (server, console, journal)
    }

    /// A console on a screen of `(width, height)`.
    pub fn open_sized(
        server: &RunningServer,
        poll: Duration,
        journal: Arc<Mutex<Journal>>,
        editor: &str,
        size: (u16, u16),
    ) -> Self {
        Self::open_at(&server.base_url(), poll, journal, editor, size)
    }

    /// The console on any service at `base_url` (such as a fake one), with the test key,
    /// on a screen of `(width, height)`.
    pub fn open_at(
        base_url: &str,
        poll: Duration,
        journal: Arc<Mutex<Journal>>,
        editor: &str,
        size: (u16, u16),
    ) -> Self {
        Self::open_with_prefs(base_url, poll, journal, editor, size, Prefs::default())
    }

    /// The console with the person's own keys, alert command or start-up warnings.
    pub fn open_with_prefs(
        base_url: &str,
        poll: Duration,
        journal: Arc<Mutex<Journal>>,
        editor: &str,
        (width, height): (u16, u16),
        prefs: Prefs,
    ) -> Self {
        let scope = Scope {
            service: base_url.to_owned(),
            project: PROJECT.into(),
        };
        let services = Services {
            client: Arc::new(super::client_with(base_url, PROJECT, super::KEY)),
            journal: Arc::clone(&journal),
            scope: Arc::new(scope.clone()),
        };
        let host = base_url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        let config = ConsoleOptions {
            profile: None,
            project: PROJECT.into(),
            host,
            read_only: false,
            notify: NotifyMode::Bell,
            has_display: false,
            poll_interval: poll,
            hourly_limit: 100,
            seed: 1,
            templates: docdeck::insight::templates::all(&[]),
            whole_max_rows: docdeck::insight::whole::DEFAULT_MAX_ROWS,
            columns: docdeck::tui::app::JobColumn::DEFAULT.to_vec(),
            mouse: true,
            prefs,
            clipboard: Default::default(),
        };
        let (keys, rx) = mpsc::unbounded_channel();
        // One receiver shared by every input stream the loop asks for (it asks again
        // after the editor has run).
        let rx = Arc::new(Mutex::new(rx));
        let input = move || -> Input {
            let rx = Arc::clone(&rx);
            futures_util::stream::poll_fn(move |cx| rx.lock().unwrap().poll_recv(cx)).boxed()
        };
        let (screen_tx, screen) = watch::channel(String::new());
        let options = LoopOptions {
            theme: Theme::default().without_color(),
            utc: true,
            editor: editor.into(),
            on_frame: Some(Box::new(move |buffer| {
                screen_tx.send_replace(text_of(buffer));
            })),
            stop: None,
            startup: None,
            ascii: false,
            hangup: None,
        };
        let written = Arc::new(Mutex::new(Vec::new()));
        let recorder = Arc::clone(&written);
        let task = tokio::spawn(async move {
            let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
            let mut host = Recorder(recorder);
            drive(
                App::new(config),
                &mut terminal,
                &mut host,
                input,
                services,
                options,
            )
            .await
            .unwrap()
        });
        Self {
            keys,
            screen,
            task,
            journal,
            scope,
            written,
        }
    }

    pub fn key(&self, code: KeyCode) {
        self.keys
            .send(Ok(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))))
            .unwrap();
    }

    pub fn ctrl(&self, c: char) {
        self.keys
            .send(Ok(Event::Key(KeyEvent::new(
                KeyCode::Char(c),
                KeyModifiers::CONTROL,
            ))))
            .unwrap();
    }

    /// From the jobs list: `n`, the prompt, Ctrl+S.
    pub async fn start_job(&mut self, prompt: &str) {
        self.key(KeyCode::Char('n'));
        self.wait_for("the composer", |s| s.contains("New job"))
            .await;
        self.type_text(prompt);
        self.ctrl('s');
    }

    pub fn type_text(&self, text: &str) {
        for c in text.chars() {
            self.key(if c == '\n' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            });
        }
    }

    /// Waits until the screen satisfies `ready`, failing with the last screen at the deadline.
    pub async fn wait_for(&mut self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let wait = async {
            loop {
                {
                    let screen = self.screen.borrow_and_update();
                    if ready(&screen) {
                        return screen.clone();
                    }
                }
                self.screen.changed().await.unwrap();
            }
        };
        match tokio::time::timeout(DEADLINE, wait).await {
            Ok(screen) => screen,
            Err(_) => panic!(
                "timed out waiting for {what}; the screen was:\n{}",
                *self.screen.borrow()
            ),
        }
    }

    pub async fn quit(self) -> App {
        self.key(KeyCode::Esc);
        self.key(KeyCode::Char('q'));
        tokio::time::timeout(DEADLINE, self.task)
            .await
            .expect("the console quits")
            .unwrap()
    }
}

pub fn line_with<'a>(screen: &'a str, needle: &str) -> Option<&'a str> {
    screen.lines().find(|line| line.contains(needle))
}

impl Console {
    /// Waits for the next frame drawn after now that satisfies `ready`.
    pub async fn next_frame(&mut self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        self.screen.mark_unchanged();
        self.wait_for(what, ready).await
    }
}

/// The screen's words joined by single spaces, so a message wrapped over lines still matches.
pub fn flat(screen: &str) -> String {
    screen.split_whitespace().collect::<Vec<_>>().join(" ")
}
