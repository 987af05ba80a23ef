//! The console. One task owns the state ([`app::App`]); input, replies and timers arrive
//! as messages; `update` returns effects: `Io` effects run as tasks in `effects.rs` (the
//! network, the journal, files), `Tty` effects run here, as only the loop owns the
//! terminal (escapes, suspend, the `$EDITOR` hand-off in `editor.rs`). The screen is
//! drawn only when something changed and the queue is empty. Idle means asleep: the only
//! timers are the next poll or link check, and the next moment a relative time on screen
//! (an age, a countdown) reads differently.

pub mod app;
pub mod clipboard;
mod editor;
pub mod effects;
pub mod hangup;
mod input;
pub(crate) mod keymap;
pub mod message;
mod sgr;
pub mod terminal;
pub(crate) mod typed;
pub mod view;
pub mod wire;

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Instant;

use crossterm::event::{Event, EventStream};
use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::buffer::Buffer;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::watch;

use app::App;
use effects::{Runner, Services};
use input::{KeyReader, input_msg};
use message::{Clock, Effect, Msg, Tty};
use terminal::Host;
use view::theme::Theme;
use view::{ViewContext, ViewMemory};

/// A source of terminal input. The loop asks for a new one after `$EDITOR` has run,
/// because the old one may have read keys meant for the editor.
pub type Input = BoxStream<'static, io::Result<Event>>;

/// Sees each frame drawn.
pub type FrameObserver = Box<dyn FnMut(&Buffer) + Send>;

/// How the loop draws and edits, beyond the app's own config.
pub struct LoopOptions {
    pub theme: Theme,
    /// Clock times in UTC instead of the local zone.
    pub utc: bool,
    /// The command that edits a file for Ctrl+E (`$VISUAL`, `$EDITOR`, or `vi`).
    pub editor: String,
    /// Called with each frame drawn (tests read the screen through it).
    pub on_frame: Option<FrameObserver>,
    /// Signals the process received (the loop ends, or redraws after a stop).
    pub stop: Option<UnboundedReceiver<LoopSignal>>,
    /// The journal's start-up read, when the caller began it early.
    pub startup: Option<effects::StartupRead>,
    /// Draws in ASCII (a locale that is not UTF-8): see `view::ascii`.
    pub ascii: bool,
    /// Turns true when the terminal hangs up (SIGHUP, or its other side closed): an open
    /// `$EDITOR` then gives up its text at once.
    pub hangup: Option<watch::Receiver<bool>>,
}

/// A signal, as the loop needs to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopSignal {
    /// SIGTERM, SIGHUP or SIGINT: leave cleanly.
    Terminate,
    /// SIGCONT: the process was stopped and goes on; the shell may have changed the
    /// terminal meanwhile, so it is taken again and redrawn whole.
    Continued,
}

/// Why the loop stopped early.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    #[error("terminal: {0}")]
    Terminal(String),
}

impl From<io::Error> for LoopError {
    fn from(err: io::Error) -> Self {
        Self::Terminal(err.to_string())
    }
}

/// Runs the console until it quits, then saves what is pending. The terminal, input and
/// host are passed in, so tests drive the real loop on a `TestBackend`.
pub async fn drive<B: Backend>(
    mut app: App,
    terminal: &mut Terminal<B>,
    host: &mut dyn Host,
    input: impl FnMut() -> Input + Send + 'static,
    services: Services,
    mut options: LoopOptions,
) -> Result<App, LoopError> {
    let (tx, mut rx) = unbounded_channel();
    let mut effects = Runner::new(services, tx.clone());
    effects.load(options.startup.take());
    // The app reads keys by the screen's size (below the minimum only quit works).
    if let Ok(size) = terminal.size() {
        app.update(
            Msg::Input(Event::Resize(size.width, size.height)),
            Clock::now(),
        );
    }
    let mut keys = KeyReader::start(input);
    // The view's memory between frames (list windows), owned here beside the app.
    let mut memory = ViewMemory::default();
    let outcome = loop {
        let mut batch = std::collections::VecDeque::new();
        if app.take_dirty() {
            if let Err(err) = draw(terminal, &app, &mut memory, &mut options) {
                break Err(err);
            }
            // What the frame measured reaches the app first, ahead of what comes next.
            batch.push_back(Msg::Drawn(memory.viewport()));
            tracing::trace!(loaded = app.loaded, "frame drawn");
        }
        if app.quit {
            break Ok(());
        }
        let wake = app.next_wake();
        batch.push_back(next_msg(&mut rx, &mut keys.rx, options.stop.as_mut(), wake).await);
        // Take everything already waiting before drawing again.
        while let Ok(more) = rx.try_recv() {
            batch.push_back(more);
        }
        while let Ok(event) = keys.rx.try_recv() {
            batch.push_back(input_msg(event));
        }
        while let Some(msg) = batch.pop_front() {
            if matches!(msg, Msg::Continued) {
                retake(terminal, host);
            }
            for effect in app.update(msg, Clock::now()) {
                match effect {
                    Effect::Io(io) => effects.run(io),
                    Effect::Tty(tty) => {
                        let editor = (options.editor.as_str(), options.hangup.clone());
                        let answer = tty_effect(tty, terminal, host, &mut keys, editor).await;
                        // Taken at once, before any signal still waiting: the text an
                        // editor gave back on a hangup reaches the draft before the loop
                        // ends.
                        if let Some(msg) = answer {
                            batch.push_front(msg);
                        }
                    }
                }
            }
        }
    };
    keys.stop();
    effects.finish().await;
    outcome.map(|()| app)
}

/// Carries out what only the owner of the terminal can. Returns the answer, if the
/// effect has one.
async fn tty_effect<B: Backend>(
    tty: Tty,
    terminal: &mut Terminal<B>,
    host: &mut dyn Host,
    keys: &mut KeyReader,
    (editor, hangup): (&str, Option<watch::Receiver<bool>>),
) -> Option<Msg> {
    let multiplexer = host.multiplexer();
    match tty {
        Tty::Copy(text) => {
            // Nothing when no way reaches the clipboard: the notice shows the text.
            if let Some(bytes) = host.clipboard().bytes(&terminal::osc52(&text)) {
                host.write_escape(&bytes);
            }
        }
        Tty::Bell => host.write_escape(b"\x07"),
        Tty::Notify { title, body } => {
            host.write_escape(&multiplexer.wrap(&terminal::osc9(&title, &body)));
        }
        Tty::Suspend => {
            if let Err(err) = host.suspend() {
                tracing::warn!("cannot give the terminal back: {err}");
            }
            host.stop_process();
            retake(terminal, host);
        }
        Tty::Edit { draft, text } => {
            return Some(editor::hand_off(host, terminal, keys, editor, hangup, draft, text).await);
        }
    }
    None
}

/// Takes the terminal again after a stop and forgets the last frame, so the next draw
/// writes every cell.
fn retake<B: Backend>(terminal: &mut Terminal<B>, host: &mut dyn Host) {
    if let Err(err) = host.resume() {
        tracing::warn!("cannot take the terminal again: {err}");
    }
    let _ = terminal::full_redraw(terminal);
}

async fn next_msg(
    rx: &mut UnboundedReceiver<Msg>,
    keys: &mut UnboundedReceiver<io::Result<Event>>,
    stop: Option<&mut UnboundedReceiver<LoopSignal>>,
    wake: Option<Instant>,
) -> Msg {
    let stop = async {
        match stop {
            Some(stop) => stop.recv().await,
            None => std::future::pending().await,
        }
    };
    let sleep = async {
        match wake {
            Some(at) => tokio::time::sleep_until(at.into()).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        biased;
        Some(signal) = stop => match signal {
            LoopSignal::Terminate => Msg::Terminate,
            LoopSignal::Continued => Msg::Continued,
        },
        Some(msg) = rx.recv() => msg,
        Some(event) = keys.recv() => input_msg(event),
        () = sleep => Msg::Tick,
    }
}

fn draw<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &App,
    memory: &mut ViewMemory,
    options: &mut LoopOptions,
) -> Result<(), LoopError> {
    let cx = ViewContext {
        wall: chrono::Utc::now(),
        mono: Instant::now(),
        theme: if options.ascii {
            options.theme.in_words()
        } else {
            options.theme
        },
        utc: options.utc,
    };
    let frame = terminal
        .draw(|frame| {
            view::draw(frame, app, &cx, memory);
            if options.ascii {
                view::ascii::downgrade(frame.buffer_mut());
            }
        })
        .map_err(|err| LoopError::Terminal(err.to_string()))?;
    if let Some(on_frame) = &mut options.on_frame {
        on_frame(frame.buffer);
    }
    Ok(())
}

/// The console on the real terminal: takes it, listens for signals and for a hangup, and
/// gives it back however the loop ends. Returns the number of the signal that ended it, if
/// one did, so the process can exit as a shell reports it (143 for SIGTERM, 129 for
/// SIGHUP; a terminal that hung up without a signal counts as SIGHUP).
pub async fn run(
    app: App,
    services: Services,
    startup: Option<effects::StartupRead>,
    editor: String,
    theme: Theme,
) -> Result<Option<i32>, LoopError> {
    let mut app = app;
    let (mut guard, mut terminal) = terminal::TerminalGuard::enter(app.config.mouse)?;
    // The notices of a copy say what the terminal side does.
    app.config.clipboard = guard.clipboard();
    let (signal_tx, signal_rx) = unbounded_channel();
    let (hung_tx, hung_rx) = watch::channel(false);
    hangup::watch(hung_tx.clone());
    let ended_by = Arc::new(AtomicI32::new(0));
    let signals = tokio::spawn(forward_signals(signal_tx, Arc::clone(&ended_by), hung_tx));
    let options = LoopOptions {
        theme,
        utc: false,
        editor,
        on_frame: None,
        stop: Some(signal_rx),
        startup,
        ascii: !view::ascii::utf8_locale(&|name| std::env::var(name).ok()),
        hangup: Some(hung_rx),
    };
    let input = || -> Input { EventStream::new().boxed() };
    let result = drive(app, &mut terminal, &mut guard, input, services, options).await;
    signals.abort();
    // Only a terminal that is gone is let go of: after a SIGHUP alone it is restored.
    let hung_up = hangup::gone();
    if hung_up {
        // Nothing can be written to a terminal that is gone: every write from here on
        // (the restore, ratatui's own on drop, a message) goes to /dev/null instead.
        let _ = hangup::detach();
        ended_by.store(signal_hook::consts::SIGHUP, Ordering::SeqCst);
    }
    drop(guard);
    if terminal.show_cursor().is_err() {
        // ratatui shows the cursor again on drop and reports a failure on standard error,
        // which panics when that is the broken terminal too.
        let _ = hangup::detach();
    }
    drop(terminal);
    let ended = Some(ended_by.load(Ordering::SeqCst)).filter(|signal| *signal != 0);
    match result {
        // A draw that failed because the terminal went away is the hangup, not an error.
        Err(_) if hung_up => Ok(ended),
        other => other.map(|_| ended),
    }
}

/// SIGTERM, SIGHUP and SIGINT end the loop the normal way: drafts written, terminal
/// restored; which one it was is kept in `ended_by`. A terminal that hangs up without a
/// signal ends it as SIGHUP does, and SIGHUP sets `hung_up` (an open editor gives up its
/// text). SIGCONT (after a stop) redraws.
async fn forward_signals(
    tx: UnboundedSender<LoopSignal>,
    ended_by: Arc<AtomicI32>,
    hung_up: watch::Sender<bool>,
) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut hup), Ok(mut int), Ok(mut cont)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::from_raw(signal_hook::consts::SIGCONT)),
    ) else {
        return;
    };
    let mut terminal_gone = hung_up.subscribe();
    loop {
        let number = tokio::select! {
            _ = term.recv() => signal_hook::consts::SIGTERM,
            _ = hup.recv() => {
                hung_up.send_replace(true);
                signal_hook::consts::SIGHUP
            }
            _ = int.recv() => signal_hook::consts::SIGINT,
            Ok(_) = terminal_gone.wait_for(|gone| *gone) => signal_hook::consts::SIGHUP,
            _ = cont.recv() => {
                let _ = tx.send(LoopSignal::Continued);
                continue;
            }
        };
        ended_by.store(number, Ordering::SeqCst);
        let _ = tx.send(LoopSignal::Terminate);
        return;
    }
}
