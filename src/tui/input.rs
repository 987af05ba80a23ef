//! Reading the terminal: a task forwards its events to the loop, pauses while `$EDITOR`
//! has the terminal, and stops reading an input that has failed.

use std::io;

use crossterm::event::Event;
use futures_util::StreamExt as _;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::Input;
use super::message::Msg;

/// Reads the terminal in its own task, so the loop can take every waiting key at once.
/// It can pause: while `$EDITOR` runs, the editor must get every key.
pub(crate) struct KeyReader {
    pub(crate) rx: UnboundedReceiver<io::Result<Event>>,
    tx: UnboundedSender<io::Result<Event>>,
    task: Option<tokio::task::JoinHandle<()>>,
    /// Makes a new input source: the old one may have read keys meant for the editor.
    input: Box<dyn FnMut() -> Input + Send>,
}

impl KeyReader {
    pub(crate) fn start(input: impl FnMut() -> Input + Send + 'static) -> Self {
        let (tx, rx) = unbounded_channel();
        let mut reader = Self {
            rx,
            tx,
            task: None,
            input: Box::new(input),
        };
        reader.resume();
        reader
    }

    /// Stops reading and waits until the reader has let go of the terminal.
    pub(crate) async fn pause(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
            let _ = task.await;
        }
    }

    /// Reads again, from a new input source.
    pub(crate) fn resume(&mut self) {
        let input = (self.input)();
        self.task = Some(tokio::spawn(forward_input(input, self.tx.clone())));
    }

    pub(crate) fn stop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Forwards every event of `input` to the loop until either ends, or until the input
/// fails: an error is final (the terminal is gone), so it is passed on once and the input
/// is not read again, rather than read in a loop that finds the same error each time.
async fn forward_input(mut input: Input, tx: UnboundedSender<io::Result<Event>>) {
    while let Some(event) = input.next().await {
        let failed = event.is_err();
        if tx.send(event).is_err() || failed {
            return;
        }
    }
}

pub(crate) fn input_msg(event: io::Result<Event>) -> Msg {
    match event {
        Ok(event) => Msg::Input(event),
        // The terminal is gone (an SSH drop): leave; drafts are already saved.
        Err(_) => Msg::Terminate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_failed_input_is_passed_on_once_and_not_read_again() {
        let gone = || Err(io::Error::other("input/output error"));
        let key = Ok(Event::FocusGained);
        let input: Input = futures_util::stream::iter(vec![key, gone(), gone(), gone()]).boxed();
        let (tx, mut rx) = unbounded_channel();
        forward_input(input, tx).await;
        assert!(matches!(rx.recv().await, Some(Ok(Event::FocusGained))));
        assert!(matches!(rx.recv().await, Some(Err(_))));
        assert!(
            rx.recv().await.is_none(),
            "read again after the input failed"
        );
    }
}
