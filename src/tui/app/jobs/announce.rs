//! A job seen changing status in this session: when it is news, and how it is said (the
//! notice line, the bell or a desktop notification, the person's `notify_command`).

use super::{JobList, short_id};
use crate::api::{Job, JobStatus};
use crate::text::sanitize;
use crate::tui::app::{ConsoleOptions, NoticeKind, NotifyMode};
use crate::tui::message::{Alert, Effect, Io, Tty};

impl JobList {
    /// A status change seen in this session: the bell or a desktop notification, the
    /// person's alert, a fresh detail view if it is open (`detail_open`), and what the
    /// notice line says.
    pub(in crate::tui::app) fn announce(
        &self,
        id: &str,
        before: Option<&JobStatus>,
        job: &Job,
        detail_open: bool,
        config: &ConsoleOptions,
        effects: &mut Vec<Effect>,
    ) -> Option<(NoticeKind, String)> {
        let after = job.status.as_ref()?;
        if before == Some(after) {
            return None;
        }
        if detail_open {
            effects.push(Effect::Io(Io::LoadDetail(id.to_owned())));
        }
        // A job seen ending here is news; so is one that had ended and ends again after a
        // follow-up sent from elsewhere (failed, then completed). An ended job that the
        // service archives is not.
        let news = match before {
            None => false,
            Some(before) if !before.is_final() => true,
            Some(_) => *after != JobStatus::Archived,
        };
        if !after.is_final() || !news {
            return None;
        }
        let link = job
            .pr_link
            .as_deref()
            .map(|l| format!(" · {}", sanitize(l)))
            .unwrap_or_default();
        let reason = job
            .failure_reason
            .as_deref()
            .filter(|_| *after == JobStatus::Failed)
            .map(|r| format!(": {}", crate::text::excerpt(&sanitize(r), 160)))
            .unwrap_or_default();
        // Completed without a link: the agent changed nothing, which is news too.
        let unchanged = if *after == JobStatus::Completed && job.pr_link.is_none() {
            " · no change"
        } else {
            ""
        };
        let text = format!("job {} {after}{link}{unchanged}{reason}", short_id(id));
        let kind = if *after == JobStatus::Failed {
            NoticeKind::Error
        } else {
            NoticeKind::Done
        };
        if let Some(command) = &config.prefs.alert {
            let alert = Alert {
                command: command.clone(),
                job_id: id.to_owned(),
                status: after.as_wire().to_owned(),
                pr_link: job.pr_link.clone(),
                prompt: self.get(id).and_then(|row| row.first_prompt.clone()),
            };
            effects.push(Effect::Io(Io::Alert(Box::new(alert))));
        }
        match config.notify {
            NotifyMode::Off => {}
            NotifyMode::Bell => effects.push(Effect::Tty(Tty::Bell)),
            NotifyMode::Desktop => effects.push(Effect::Tty(Tty::Notify {
                title: "docdeck".to_owned(),
                body: text.clone(),
            })),
        }
        Some((kind, text))
    }
}
