//! `App::update`: one message in, the state changed, the effects to run out. Each kind of
//! message is handed to the part that owns it (a pane, the link, the notices); what
//! follows every message is `wake.rs`'s `after_message`.

use std::sync::Arc;

use super::wake::RowsChange;
use super::{App, CallClass, NoticeKind, Overlay, Pane, Said, outcome};
use crate::tui::message::{Clock, Effect, Io, Msg, Tty};

impl App {
    /// Takes in one message; returns what to do about it.
    pub fn update(&mut self, msg: Msg, now: Clock) -> Vec<Effect> {
        let mut effects = Vec::new();
        let rows = RowsChange::of(&msg);
        let was_failing = self.link.connection.is_failing();
        match msg {
            Msg::Input(event) => self.on_event(event, now, &mut effects),
            Msg::Tick => {
                // Relative times on screen move with the clock: redraw when one changed.
                self.dirty |= self.jobs.clock_ticking(now.mono)
                    || self.display_due.is_some_and(|due| due <= now.mono);
                if self.focus == Pane::Searches {
                    self.in_searches(now, &mut effects, |s, ctx, fx| {
                        outcome::changed(s.pause_over(ctx, fx))
                    });
                }
            }
            Msg::ConnectionChecked(result) => {
                let recorded = self.link.checked(result, now);
                // A check that failed again moves the bar's next try (the same error is
                // not said again, so nothing else redraws it: the trial's bar named a try
                // a minute past).
                self.dirty = true;
                self.heard(recorded, CallClass::Read, None, now);
            }
            Msg::AlertFailed(err) => self.notify(NoticeKind::Warning, Said::AlertFailed(err)),
            Msg::OpenFailed { url, reason } => {
                let copied = self.config.clipboard.notice("the link", &url);
                effects.push(Effect::Tty(Tty::Copy(url)));
                self.notify(NoticeKind::Warning, Said::OpenFailed { reason, copied });
            }
            Msg::Loaded(startup) => self.on_loaded(*startup, now),
            Msg::TrackedList(jobs) => {
                // Jobs another docdeck made were counted in the journal's hourly budgets:
                // the status bar reads them again.
                if self.jobs.add_tracked(jobs, now) {
                    self.dirty = true;
                    effects.push(Effect::Io(Io::RefreshBudget));
                }
            }
            Msg::JobFetched { id, result } => {
                self.record_call(result.as_ref().map(|_| ()), CallClass::Read, Some(&id), now);
                let detail_open = matches!(&self.overlay, Some(Overlay::Detail(d)) if d.id == id);
                let outcome = (self.jobs).on_fetched(
                    &id,
                    result,
                    detail_open,
                    &self.config,
                    now,
                    &mut effects,
                );
                self.route(outcome, now, &mut effects);
            }
            Msg::Tracked {
                id,
                result,
                first_prompt,
            } => {
                if !matches!(result, Err(crate::api::ApiError::InvalidInput(_))) {
                    self.record_call(result.as_ref().map(|_| ()), CallClass::Read, None, now);
                }
                let form = match &mut self.overlay {
                    Some(Overlay::Track(form)) if form.looking_up => Some(&mut **form),
                    _ => None,
                };
                let outcome = self.jobs.on_tracked(&id, result, first_prompt, form, now);
                self.route(outcome, now, &mut effects);
            }
            Msg::Submitted { draft, outcome } => {
                self.on_submitted(draft, outcome, now, &mut effects);
            }
            Msg::Unsure(list) => {
                self.jobs.set_unsure(list);
                self.dirty = true;
            }
            Msg::Detail {
                id,
                conversation,
                timeline,
            } => {
                if let Some(Overlay::Detail(detail)) = &mut self.overlay
                    && detail.id == id
                {
                    detail.conversation = Some(conversation);
                    detail.timeline = timeline;
                    self.viewport.detail = None;
                }
                self.dirty = true;
            }
            Msg::ViewsSpan(span) => {
                self.dirty |= self.visitors.span != span;
                self.visitors.span = span;
            }
            Msg::Visitors { generation, result } => {
                self.record_call(result.as_ref().map(|_| ()), CallClass::Analytics, None, now);
                self.in_visitors(now, &mut effects, |v, ctx, fx| {
                    v.on_page(generation, result, ctx, fx)
                });
            }
            Msg::Insight(msg) => {
                if let Some(call) = msg.analytics_call() {
                    self.record_call(call, CallClass::Analytics, None, now);
                }
                self.in_visitors(now, &mut effects, |v, ctx, _| v.on_insight(msg, ctx));
            }
            Msg::Signals { generation, result } => {
                self.record_call(result.as_ref().map(|_| ()), CallClass::Analytics, None, now);
                self.in_searches(now, &mut effects, |s, ctx, fx| {
                    s.on_reply(generation, result, ctx, fx)
                });
            }
            Msg::Signal(msg) => self.on_signal(msg, now, &mut effects),
            Msg::ExportProgress { rows, pages } => {
                self.visitors.export_progress(rows, pages);
                self.dirty = true;
            }
            Msg::ExportDone(end) => {
                self.in_visitors(now, &mut effects, |v, ctx, _| v.on_export_done(end, ctx));
            }
            Msg::Budget(budget) => {
                self.dirty |= self.link.budget != budget;
                self.link.budget = budget;
            }
            Msg::EditorDone { draft, result } => {
                let outcome = self.composer.on_editor_done(draft, result, &mut effects);
                self.route(outcome, now, &mut effects);
            }
            Msg::LocalFailure(reason) => {
                self.notify(NoticeKind::Error, Said::Local(Arc::new(reason)));
            }
            Msg::DraftNotSaved(reason) => {
                self.notify(NoticeKind::Error, Said::DraftNotSaved(Arc::new(reason)));
            }
            Msg::Terminate => self.quit = true,
            Msg::Continued => self.dirty = true,
            Msg::Drawn(viewport) => {
                // Nothing on screen changes: the next frame uses these numbers.
                self.viewport = viewport;
                if let (Some(Overlay::Detail(detail)), Some(found)) =
                    (&mut self.overlay, viewport.found)
                {
                    detail.adopt_found(found);
                }
            }
        }
        self.after_message(rows, was_failing, now, &mut effects);
        effects
    }
}
