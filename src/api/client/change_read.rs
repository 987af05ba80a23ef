//! A job's read with its change worked out (`include=change`, issue 27): the local
//! service answers with its `change` field; a service without it (the hosted one) sends
//! the job as always, with no `change`.

use reqwest::Method;

use super::{Client, Replay, same_job};
use crate::api::change::INCLUDE_CHANGE;
use crate::api::{ApiError, Asked, Job};

impl Client {
    /// The job with the files its change touched, their pages and its merge, where the
    /// service can see them (`Job::change`). A service that refuses the parameter (400)
    /// is asked again without it: the job is read as always.
    pub async fn get_job_with_change(&self, job_id: &str) -> Result<Job, ApiError> {
        let mut url = self.url(&["v2", "agent", &self.project, "job", job_id]);
        url.query_pairs_mut()
            .append_pair(INCLUDE_CHANGE.0, INCLUDE_CHANGE.1);
        let job = match self
            .call(Method::GET, url, None, Replay::Safe, Asked::Job)
            .await
        {
            Err(ApiError::BadRequest { .. }) => return self.get_job(job_id).await,
            other => other?,
        };
        same_job(job_id, job)
    }
}
