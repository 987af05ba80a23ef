//! The composer filled from the searches pane's marks (issue 27): the missing-page
//! prompt after the text the new-job draft holds, as a template fills it, so one Ctrl+U
//! takes it back out and Esc goes back to the pane.

use super::{Composer, TemplateFill};
use crate::insight::templates::{MISSING_PAGE, Marked};
use crate::tui::app::Pane;
use crate::tui::message::{DraftKey, Effect};

impl Composer {
    /// `n` in the searches pane: the new-job draft gets the missing-page prompt after
    /// the text it has (a template's own text is replaced). Returns what to say, or why
    /// not.
    pub(in crate::tui::app) fn fill_missing_page(
        &mut self,
        prompt: String,
        effects: &mut Vec<Effect>,
    ) -> Result<String, &'static str> {
        if self.sending.is_some() {
            return Err("a prompt is being sent: n works again once it is answered");
        }
        self.retarget(DraftKey::NewJob);
        let before = match &self.fill {
            Some(fill) if fill.filled == self.text() => fill.before.clone(),
            _ => self.text().trim_end().to_owned(),
        };
        let (before, filled) = self.put_prompt(prompt, before, effects);
        self.fill = Some(TemplateFill {
            index: 0,
            name: MISSING_PAGE.to_owned(),
            before,
            filled,
            marks: Marked::default(),
            from: Pane::Searches,
        });
        Ok("the missing-page prompt: read and edit it, then Ctrl+S sends".to_owned())
    }
}
