//! Visitors insight, below both faces (the CLI's `visitors trend`, `--compare`, `--sort`,
//! `--filter`, and the console's chart, comparison, whole-range table and page marking),
//! so a script and the screen compute every number the same way.
//!
//! What is here, and how a face uses it:
//! - [`buckets`] — [`buckets::buckets`] splits `[from, to)` into UTC days or ISO weeks
//!   (Monday first; first and last clipped); [`buckets::By::for_range`] is the console's
//!   rule (weeks above 60 days); [`buckets::Bucket::query`] is the `limit=1` request whose
//!   totals are the bucket's numbers; [`buckets::Bucket::settled`] says whether the journal
//!   may keep them ([`buckets::SETTLING`], 48 hours); [`buckets::previous_period`] is
//!   `[from − (to − from), from)`.
//! - [`cached`] — [`cached::read_cached`] is the trend read both faces call: the buckets
//!   the journal keeps (`Journal::trend_kept`) cost nothing, the cost of the others is
//!   shown to the face's `spend` first, then [`trend::read_trend`] reads them a few at a
//!   time, with progress and a [`Cancel`]; the requests are counted and the buckets read
//!   kept whether the reading finished or not. A face reaches the journal through
//!   [`cached::TrendCache`].
//! - [`whole`] — [`whole::WholeRange`] fetches every row of a range (250 a request,
//!   following `hasMore`) up to a threshold ([`whole::DEFAULT_MAX_ROWS`], 5,000 rows = 20
//!   requests; `Settings::visitors_max_rows` is `[visitors] max_rows` of `config.toml`);
//!   above it the outcome is [`whole::Whole::TooMany`] and the face stays in server
//!   paging, saying why. Step by step ([`whole::WholeRange::step`]) or to the end
//!   ([`whole::WholeRange::run`], with progress and a [`Cancel`]: Esc in the console).
//! - [`compare`] — totals now against before ([`compare::TotalsComparison`]: absolute, %,
//!   and AI share in points, with [`compare::Percent::NoPrevious`] instead of a division
//!   by zero) and rows by path ([`compare::compare_rows`]; a path absent before is new).
//! - [`order`] — [`order::Sort`] (`path|human|ai|total|ai-share|change`, `:asc`/`:desc`,
//!   defaults descending for numbers and ascending for the path, ties by path ascending)
//!   and [`order::order`], which filters with [`crate::listing::Pattern`] and returns
//!   positions into the rows, for plain rows and compared rows alike.
//! - [`templates`] — the two built-in prompt templates and those of `config.toml`
//!   (`Settings::templates`), and [`templates::fill`], which puts the marked pages with
//!   their numbers where `{pages}` is.
//!
//! - [`impact`] — "did the change help?": [`impact::Windows::around`] a merge,
//!   [`impact::marked_pages`] read back from a job's first prompt, [`impact::pages_of`] and
//!   [`impact::impact`] (each page before and after beside the whole site), and
//!   [`impact::CAVEAT`], said once wherever the numbers are shown.
//!
//! The analytics budget is the journal's: `Journal::analytics_budget(scope,
//! ANALYTICS_HOURLY_LIMIT, now)` gives `AnalyticsBudget` (`left()`, `used()`), and its
//! `decide(needed)` is the rule both faces follow: `Go`, `Ask` above 10 requests, or
//! `Refuse` above what is left, with the time enough free up
//! (`crate::journal::Decision`). `crate::cli::budget` shows how the CLI words it.

pub mod buckets;
pub mod cached;
mod cancel;
pub mod compare;
pub mod impact;
pub mod impact_merge;
pub mod impact_read;
pub mod order;
pub mod templates;
pub mod trend;
pub mod whole;

pub use buckets::{Bucket, By};
pub use cancel::Cancel;
pub use compare::{ComparedRow, Percent, ShareChange, TotalsComparison};
pub use order::{Sort, SortKey};
