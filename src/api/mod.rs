//! The client side of the interface: wire types, query rules, the HTTP client and its
//! errors. The local service uses the same types and rules, so both sides agree by
//! construction.

pub mod change;
pub mod client;
pub mod error;
pub mod limit;
pub mod model;
pub mod paging;
pub mod query;
pub mod signals;

pub use change::{ChangedFile, JobChange};
pub use client::{Client, ClientOptions, Probe, RetryPolicy};
pub use error::{ApiError, Asked, HumanWait, Missing, PagingFault};
pub use limit::StatedLimit;
pub use model::{
    ErrorBody, ErrorDetail, Job, JobStatus, PathVisitors, PromptRequest, Source, VisitorTotals,
    VisitorsPage, format_timestamp,
};
pub use paging::MAX_PAGES;
pub use query::{DateParam, QueryError, VisitorsQuery};

/// Creates, and follow-ups, the hosted service accepts per project per hour (each its
/// own budget).
pub const HOURLY_LIMIT: u32 = 100;
