//! The runner's side of the visitors pane's insight: the chart's trend and the whole
//! range run as one task each (a new one stops the old), the period before and the
//! feedback per page as a single request each; every analytics request is counted in
//! the journal.

use super::{Runner, restart, spawn, stop, trend, whole};
use crate::api::signals::FeedbackByPage;
use crate::tui::message::{InsightIo, InsightMsg, Msg};

impl Runner {
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
                let read = trend::Read {
                    generation,
                    plan,
                    allow,
                    refresh,
                };
                restart(&mut self.trend, |cancel| trend::run(s, tx, read, cancel));
            }
            InsightIo::CancelTrend => stop(&mut self.trend),
            InsightIo::FetchWhole {
                generation,
                query,
                previous,
                max_rows,
                allow,
            } => {
                let read = whole::Read {
                    generation,
                    query,
                    previous,
                    max_rows,
                    allow,
                };
                restart(&mut self.whole, |cancel| whole::run(s, tx, read, cancel));
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
