//! The help and the log of notices: overlays opened over whatever is open (a form, a
//! job's detail), which they go back to when they close, and which scroll where they do
//! not fit.

use super::viewport::scrolled;
use super::{Overlay, TextExtent};
use crate::tui::keymap::{Action, KeyContext};

/// Where the help (or the log) was opened, and how far it is scrolled.
#[derive(Debug, Default)]
pub struct Help {
    /// The overlay the help was opened over, back when the help closes.
    under: Option<Box<Overlay>>,
    /// The first help row shown, when the help scrolls (the view clamps it).
    pub scroll: usize,
}

impl Help {
    /// `?`: the help for `context`, the place the keys go to now, over whatever overlay is
    /// open; in the help (or the log) it closes. Returns whether a help opened (a new
    /// text: where it ends is known after its first frame).
    pub(super) fn toggle_help(
        &mut self,
        overlay: &mut Option<Overlay>,
        context: KeyContext,
    ) -> bool {
        if context == KeyContext::Help {
            self.close(overlay);
            return false;
        }
        self.open(overlay, Overlay::Help(context));
        true
    }

    /// `L`: the log of recent notices over what is open, closed the same way as the help
    /// (which it then goes back to). Returns whether it opened.
    pub(super) fn toggle_log(&mut self, overlay: &mut Option<Overlay>) -> bool {
        if matches!(overlay, Some(Overlay::Notices)) {
            self.close(overlay);
            return false;
        }
        self.open(overlay, Overlay::Notices);
        true
    }

    fn open(&mut self, overlay: &mut Option<Overlay>, help: Overlay) {
        self.under = overlay.take().map(Box::new);
        *overlay = Some(help);
        self.scroll = 0;
    }

    /// Closes the help, back to what it was opened over.
    fn close(&mut self, overlay: &mut Option<Overlay>) {
        *overlay = self.under.take().map(|under| *under);
    }

    /// Switching panes closes every overlay: none is gone back to.
    pub(super) fn forget(&mut self) {
        self.under = None;
    }

    /// Keys of the help: close it, or scroll it where it does not fit (`extent`, as the
    /// last frame drew it). Returns whether the key did anything.
    pub(super) fn on_action(
        &mut self,
        overlay: &mut Option<Overlay>,
        action: Option<Action>,
        extent: Option<TextExtent>,
    ) -> bool {
        let by = |rows: isize| scrolled(self.scroll, extent, rows);
        match action {
            Some(Action::Close) => self.close(overlay),
            Some(Action::Up) => self.scroll = by(-1),
            Some(Action::Down) => self.scroll = by(1),
            Some(Action::PrevPage) => self.scroll = by(-10),
            Some(Action::NextPage) => self.scroll = by(10),
            Some(Action::Top) => self.scroll = 0,
            Some(Action::Bottom) => self.scroll = usize::MAX,
            _ => return false,
        }
        true
    }

    /// The wheel over the help: `by` rows.
    pub(super) fn wheel(&mut self, extent: Option<TextExtent>, by: isize) {
        self.scroll = scrolled(self.scroll, extent, by);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(overlay: Option<&Overlay>) -> &'static str {
        match overlay {
            Some(Overlay::Help(_)) => "help",
            Some(Overlay::Notices) => "log",
            Some(Overlay::Confirm(_)) => "question",
            None => "nothing",
            Some(_) => "other",
        }
    }

    fn question() -> Overlay {
        Overlay::Confirm(super::super::Question {
            work: super::super::Costly::Whole {
                generation: crate::tui::message::Generation::test(1),
            },
            requests: 20,
            left: 100,
        })
    }

    #[test]
    fn the_help_and_the_log_close_back_to_what_they_were_opened_over() {
        let mut help = Help::default();
        let mut overlay = Some(question());
        assert!(help.toggle_help(&mut overlay, KeyContext::Confirm));
        assert_eq!(shown(overlay.as_ref()), "help");
        // `?` in the help closes it, back to the question.
        assert!(!help.toggle_help(&mut overlay, KeyContext::Help));
        assert_eq!(shown(overlay.as_ref()), "question");
        assert!(help.toggle_log(&mut overlay));
        assert_eq!(shown(overlay.as_ref()), "log");
        assert!(help.on_action(&mut overlay, Some(Action::Close), None));
        assert_eq!(shown(overlay.as_ref()), "question");
        // Switching panes forgets what was below.
        help.toggle_log(&mut overlay);
        help.forget();
        help.on_action(&mut overlay, Some(Action::Close), None);
        assert_eq!(shown(overlay.as_ref()), "nothing");
    }

    #[test]
    fn the_help_scrolls_from_where_the_last_frame_could_show_it() {
        let mut help = Help::default();
        let mut overlay = None;
        help.toggle_help(&mut overlay, KeyContext::Jobs);
        assert!(help.on_action(&mut overlay, Some(Action::Bottom), None));
        let extent = Some(TextExtent { rows: 10, last: 7 });
        assert!(help.on_action(&mut overlay, Some(Action::Up), extent));
        assert_eq!(help.scroll, 6);
        help.wheel(extent, 3);
        assert_eq!(help.scroll, 9);
        assert!(!help.on_action(&mut overlay, Some(Action::Apply), extent));
        // Opened again, it starts at the top.
        help.toggle_help(&mut overlay, KeyContext::Help);
        help.toggle_help(&mut overlay, KeyContext::Jobs);
        assert_eq!(help.scroll, 0);
    }
}
