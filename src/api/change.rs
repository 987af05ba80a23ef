//! The local service's own `change` field of a job (issue 27, "did the change help?"):
//! the files the job's agent changed, the pages they are, and whether and when the change
//! was merged. The hosted interface has no such field; the client reads it only where a
//! service sends it, and only asks for it with `include=change` on a job's read.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The query a job's read takes to have its change worked out (it costs the local
/// service a few git commands, so it is never done on an ordinary poll).
pub const INCLUDE_CHANGE: (&str, &str) = ("include", "change");

/// What the service knows of a job's change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobChange {
    /// Every file the change touched, in git's order.
    #[serde(default)]
    pub files: Vec<ChangedFile>,
    /// The branch the change is compared with and merged into.
    #[serde(default)]
    pub base: Option<String>,
    /// When the change reached the base branch: the commit time of the merge.
    #[serde(default)]
    pub merged_at: Option<DateTime<Utc>>,
    /// The commit that brought the change into the base branch.
    #[serde(default)]
    pub merge_commit: Option<String>,
    /// Why `mergedAt` is null, in words a person can act on.
    #[serde(default)]
    pub not_merged: Option<String>,
}

/// One file of a change, and the page of the docs it is, if it is one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangedFile {
    /// The file's path in the repository.
    pub file: String,
    /// The page's path on the site (`/guides/setup`, `/` for the home page); null for a
    /// file that is no page (an image, a configuration file).
    #[serde(default)]
    pub page: Option<String>,
    /// How the page was found: `navigation` (listed in the docs' `docs.json` or
    /// `mint.json`) or `path` (the file's path without its extension).
    #[serde(default)]
    pub found_by: Option<String>,
}

impl JobChange {
    /// The pages of the change, each once, in the order of its files.
    #[must_use]
    pub fn pages(&self) -> Vec<String> {
        let mut pages: Vec<String> = Vec::new();
        for page in self.files.iter().filter_map(|file| file.page.as_ref()) {
            if !pages.contains(page) {
                pages.push(page.clone());
            }
        }
        pages
    }
}
