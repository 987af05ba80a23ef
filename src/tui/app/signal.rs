//! Where a job's impact and a page's comments come back: the app records the calls (the
//! job read, the analytics requests) with the link, then hands the reply to the jobs
//! list's impacts or the visitors pane's page view.

use super::{App, CallClass, Overlay};
use crate::tui::message::{Clock, Effect, SignalMsg};

impl App {
    pub(super) fn on_signal(&mut self, msg: SignalMsg, now: Clock, effects: &mut Vec<Effect>) {
        if let Some(call) = msg.analytics_call() {
            self.record_call(call, CallClass::Analytics, None, now);
        }
        match msg {
            SignalMsg::Impact {
                id, result, read, ..
            } => {
                if let Some(read) = read {
                    self.record_call(read.as_ref().map(|_| ()), CallClass::Read, None, now);
                }
                let detail = match &self.overlay {
                    Some(Overlay::Detail(d)) if d.id == id => Some(d.scroll),
                    _ => None,
                };
                let rows = self.config.whole_max_rows;
                let outcome = self.jobs.impacts.on_read(id, *result, (rows, detail));
                self.route(outcome, now, effects);
            }
            SignalMsg::Comments {
                generation, result, ..
            } => self.in_visitors(now, effects, |v, _, _| v.on_comments(generation, result)),
        }
    }
}
