//! Key hints drawn from the keymap in force: a hint shows the person's own keys, and
//! leaves out what no key does.

use crate::tui::keymap::{Action, KeyContext, Keymap};

/// The hints of one place.
#[derive(Clone, Copy)]
pub(crate) struct Hints<'a> {
    keymap: &'a Keymap,
    context: KeyContext,
}

impl<'a> Hints<'a> {
    pub(crate) fn new(keymap: &'a Keymap, context: KeyContext) -> Self {
        Self { keymap, context }
    }

    /// The key that does `action` here.
    pub(crate) fn key(self, action: Action) -> Option<String> {
        self.keymap.key(self.context, action)
    }

    /// `KEY what`, when a key does `action` here.
    pub(crate) fn one(self, action: Action, what: &str) -> Option<String> {
        self.key(action).map(|key| format!("{key} {what}"))
    }

    /// `A/B what` for two actions that go together (down and up), when keys do both.
    pub(crate) fn pair(self, first: Action, second: Action, what: &str) -> Option<String> {
        Some(format!("{}/{} {what}", self.key(first)?, self.key(second)?))
    }
}

/// The hints that have keys, joined by ` · `.
pub(crate) fn join(pieces: impl IntoIterator<Item = Option<String>>) -> String {
    pieces.into_iter().flatten().collect::<Vec<_>>().join(" · ")
}
