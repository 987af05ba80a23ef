//! What a pane asks of the app beyond what it changed in itself, and the routing that
//! carries it out. A pane (the jobs list, the visitors table) owns its state, keys and
//! background reads; what is shared (the focus, the overlays, the notice line, the other
//! panes, the question before spending analytics requests) it hands back here as an
//! [`Outcome`], and `App` routes it.

use crate::insight::templates::Wanted;
use crate::tui::app::confirm::{Costly, Question};
use crate::tui::app::searches::{self, SearchesPane};
use crate::tui::app::visitors::{Ctx, VisitorsTable};
use crate::tui::app::{App, CallClass, NoticeKind, Overlay, Pane, Said, notices};
use crate::tui::keymap::{Action, KeyContext};
use crate::tui::message::{Clock, DraftKey, Effect};

/// What a key or a message in a pane asks of the app, beyond what it changed in the pane.
#[derive(Debug)]
pub(in crate::tui::app) enum Outcome {
    /// Handled in the pane (or not a key of the pane), nothing else to do.
    Done,
    /// The pane changed in a way the screen shows: redraw.
    Changed,
    /// Something about what the key did here: it leaves the notice line with the pane.
    Said(NoticeKind, String),
    /// News that stays on the notice line when the pane is left.
    News(NoticeKind, Said),
    /// Nothing to do, and the notice line says why.
    Notice(&'static str),
    /// An overlay to open over the pane.
    Open(Overlay),
    /// Close the overlay the key was read in.
    Close,
    /// From the detail: a follow-up to this job, which the list selects.
    FollowUp(String),
    /// From the detail: copy what the list's selected job offers (`y`).
    CopySelected,
    /// From the detail: open the selected job's link (`o`).
    OpenSelected,
    /// From the detail: read the job's impact (`i`), within the analytics budget.
    ReadImpact(String),
    /// From the detail: the impact's next window length (`w`), read again over it.
    ImpactWindow(String),
    /// Write in the composer, to a new job or as a follow-up to one.
    Compose(DraftKey),
    /// `n` in the visitors pane: a new job from the marked pages.
    NewJob,
    /// `n` in the searches pane: a new job asking for the page readers did not find.
    MissingPage(Wanted),
    /// Esc in the composer: back to the pane it was opened from, as it was left.
    Back(Pane),
    /// Quit the console.
    Quit,
    /// Two things, in this order.
    Then(Box<Outcome>, Box<Outcome>),
    /// Work of this many analytics requests: start it, ask first, or refuse (the
    /// question is an overlay, the budget the link's).
    Consider(Costly, u32),
    /// The answer to work that costs analytics requests, for the pane that asked: yes
    /// with the requests allowed, or why not.
    Answered(Costly, Result<u32, String>),
}

impl App {
    /// Hands a key or a message to the visitors pane, with what it reads of the app, and
    /// routes what it hands back.
    pub(in crate::tui::app) fn in_visitors(
        &mut self,
        now: Clock,
        effects: &mut Vec<Effect>,
        handle: impl FnOnce(&mut VisitorsTable, &Ctx, &mut Vec<Effect>) -> Outcome,
    ) {
        let ctx = Ctx::of(self, now);
        let outcome = handle(&mut self.visitors, &ctx, effects);
        self.route(outcome, now, effects);
    }

    /// Hands a key or a message to the searches pane, with what it reads of the app (the
    /// visitors pane's dates among it), and routes what it hands back.
    pub(in crate::tui::app) fn in_searches(
        &mut self,
        now: Clock,
        effects: &mut Vec<Effect>,
        handle: impl FnOnce(&mut SearchesPane, &searches::Ctx, &mut Vec<Effect>) -> Outcome,
    ) {
        let keys = self.keymap();
        let ctx = searches::Ctx {
            paused: self.link.refusal(CallClass::Analytics, now),
            over_budget: self.link.over_budget(now),
            dates: self.visitors.range.bounds(now.wall.date_naive()),
            job_key: (keys.key(KeyContext::Searches, Action::NewJob))
                .filter(|_| !self.config.read_only),
            rows_on_screen: self.viewport.searches_rows,
            analytics_left: self.link.budget.analytics.left(),
        };
        let outcome = handle(&mut self.searches, &ctx, effects);
        self.route(outcome, now, effects);
    }

    /// Carries out what a pane handed back.
    pub(in crate::tui::app) fn route(
        &mut self,
        outcome: Outcome,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        match outcome {
            Outcome::Done => {}
            Outcome::Changed => self.dirty = true,
            Outcome::Said(kind, text) => self.notify_here(kind, text),
            Outcome::News(kind, text) => self.notify(kind, text),
            Outcome::Notice(text) => self.notify_here(NoticeKind::Info, text),
            Outcome::Open(overlay) => {
                if matches!(overlay, Overlay::Detail(_)) {
                    // A new text: where it ends is known after its first frame.
                    self.viewport.detail = None;
                }
                self.overlay = Some(overlay);
                self.dirty = true;
            }
            Outcome::Close => self.overlay = None,
            Outcome::FollowUp(id) => {
                self.overlay = None;
                self.jobs.select(&id);
                let outcome = self.jobs.follow_up();
                self.route(outcome, now, effects);
            }
            Outcome::CopySelected => {
                let outcome = self.jobs.copy_selected(&self.config, effects);
                self.route(outcome, now, effects);
            }
            Outcome::OpenSelected => {
                let outcome = self.jobs.open_selected(&self.config, effects);
                self.route(outcome, now, effects);
            }
            Outcome::ReadImpact(id) => {
                let ctx = Ctx::of(self, now);
                let outcome = self.jobs.impacts.want(&id, &ctx, effects);
                self.route(outcome, now, effects);
            }
            Outcome::ImpactWindow(id) => {
                let ctx = Ctx::of(self, now);
                let outcome = self.jobs.impacts.next_window(&id, &ctx, effects);
                self.route(outcome, now, effects);
            }
            Outcome::Compose(draft) => {
                self.composer.retarget(draft);
                self.focus(Pane::Composer, now, effects);
            }
            Outcome::NewJob => {
                let marks = self.visitors.marks.marked();
                let filled = self
                    .composer
                    .fill_from_marks(&self.config.templates, marks, effects);
                if filled.is_ok() {
                    self.focus(Pane::Composer, now, effects);
                }
                self.notify_here(NoticeKind::Info, filled.unwrap_or_else(str::to_owned));
            }
            Outcome::MissingPage(wanted) => {
                let prompt = crate::insight::templates::missing_page(&wanted);
                let filled = self.composer.fill_missing_page(prompt, effects);
                if filled.is_ok() {
                    self.focus(Pane::Composer, now, effects);
                }
                self.notify_here(NoticeKind::Info, filled.unwrap_or_else(str::to_owned));
            }
            Outcome::Back(pane) => {
                self.dirty |=
                    notices::leave_line(&mut self.notice, &mut self.notice_pane, |about| {
                        about != pane
                    });
                self.focus = pane;
            }
            Outcome::Quit => self.quit = true,
            Outcome::Then(first, then) => {
                self.route(*first, now, effects);
                self.route(*then, now, effects);
            }
            Outcome::Consider(work, requests) => {
                self.dirty = true;
                let outcome = Question::consider(work, requests, &self.link.budget.analytics);
                self.route(outcome, now, effects);
            }
            Outcome::Answered(Costly::Impact { id, days, detail }, answer) => {
                let ctx = Ctx::of(self, now);
                let outcome =
                    (self.jobs.impacts).answered((id.clone(), days), answer, &ctx, effects);
                self.route(outcome, now, effects);
                // The question was asked over the job's detail: back to it, where it was
                // scrolled (it opened at the top, losing the place the person read).
                if let Some(scroll) = detail
                    && self.overlay.is_none()
                {
                    effects.push(Effect::Io(crate::tui::message::Io::LoadDetail(id.clone())));
                    let mut detail = crate::tui::app::JobDetail::new(id);
                    detail.scroll = scroll;
                    self.route(Outcome::Open(Overlay::Detail(detail)), now, effects);
                }
            }
            Outcome::Answered(Costly::AllPages { generation }, answer) => {
                self.in_searches(now, effects, |s, ctx, fx| {
                    s.answered(generation, answer, ctx, fx)
                });
            }
            Outcome::Answered(work, answer) => {
                // The footer has one line for why the whole range is not read: the
                // notice gives the refusal whole (a no's own notice follows it).
                let said = match (&work, &answer) {
                    (Costly::Whole { .. }, Err(why)) => {
                        Outcome::Said(NoticeKind::Warning, why.clone())
                    }
                    _ => Outcome::Done,
                };
                self.in_visitors(now, effects, |v, ctx, fx| {
                    v.answered(work, answer, ctx, fx);
                    said
                });
            }
        }
    }
}

/// `Changed` when `changed`, else `Done`.
pub(in crate::tui::app) fn changed(changed: bool) -> Outcome {
    if changed {
        Outcome::Changed
    } else {
        Outcome::Done
    }
}

impl Ctx {
    /// What the visitors pane reads of the rest of the app now.
    fn of(app: &App, now: Clock) -> Self {
        Self {
            now,
            paused: app.link.refusal(CallClass::Analytics, now),
            over_budget: app.link.over_budget(now),
            analytics_left: app.link.budget.analytics.left(),
            whole_max_rows: app.config.whole_max_rows,
            size: app.size,
            refresh_key: app
                .keymap()
                .key_or_name(KeyContext::Visitors, Action::Refresh),
            focused: app.focus == Pane::Visitors,
            overlay_open: app.overlay.is_some(),
            rows_on_screen: app.viewport.visitors_rows,
        }
    }
}
