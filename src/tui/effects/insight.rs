//! The runner's side of the visitors pane's insight: the chart's trend and the whole
//! range run as one task each (a new one stops the old), the period before and the
//! feedback per page as a single request each; every analytics request is counted in
//! the journal.

use super::{Effects, spawn, stop, trend, whole};
use crate::api::signals::FeedbackByPage;
use crate::insight::Cancel;
use crate::tui::message::{InsightIo, InsightMsg, Msg};

impl Effects {
    pub(super) fn run_insight(&mut self, io: InsightIo) {
        let s = self.services.clone();
        let tx = self.tx.clone();
        match io {
            InsightIo::FetchTrend {
                generation,
                plan,
                allow,
                refresh,
            } => {
                stop(&mut self.trend);
                let cancel = Cancel::new();
                let ask = trend::Ask {
                    generation,
                    plan,
                    allow,
                    refresh,
                };
                let task = tokio::spawn(trend::run(s, tx, ask, cancel.clone()));
                self.trend = Some((task, cancel));
            }
            InsightIo::CancelTrend => stop(&mut self.trend),
            InsightIo::FetchWhole {
                generation,
                query,
                previous,
                max_rows,
                allow,
            } => {
                stop(&mut self.whole);
                let cancel = Cancel::new();
                let ask = whole::Ask {
                    generation,
                    query,
                    previous,
                    max_rows,
                    allow,
                };
                let task = tokio::spawn(whole::run(s, tx, ask, cancel.clone()));
                self.whole = Some((task, cancel));
            }
            InsightIo::CancelWhole => stop(&mut self.whole),
            InsightIo::FetchPrevious { generation, query } => spawn(tx, async move {
                let result = s.client.visitors(&query).await;
                let mut msgs = s.counted(super::reached(&result)).await;
                msgs.push(Msg::Insight(InsightMsg::Previous { generation, result }));
                msgs
            }),
            InsightIo::FetchFeedback { generation, query } => spawn(tx, async move {
                let result = s.client.signals::<FeedbackByPage>(&query).await;
                let mut msgs = s.counted(super::reached(&result)).await;
                msgs.push(Msg::Insight(InsightMsg::Feedback { generation, result }));
                msgs
            }),
        }
    }
}
