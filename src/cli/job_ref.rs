//! The job a command means: the id as typed (refused when blank), or the job whose id a
//! unique start of it is, as the journal knows them. Used by every `jobs` command and by
//! `jobs impact`.

use super::{CliError, warn};
use crate::journal::{IdMatch, Journal, Scope};

/// The id as typed, refused when blank: nothing is sent for an empty id.
pub(super) fn typed_id(typed: &str) -> Result<&str, CliError> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err(CliError::usage(
            "the job id is empty: give the id that `docdeck jobs list` shows, or a unique start of it",
        ));
    }
    Ok(typed)
}

/// The one job of the project, followed from another service (another node of a
/// cluster), whose id starts with `typed`, said on standard error: a start of an id sent
/// as typed can only get a 404 (the trial of stop 33, two nodes of one PostgreSQL).
fn elsewhere(journal: &Journal, scope: &Scope, typed: &str) -> Option<String> {
    let (id, service) = journal.only_elsewhere(scope, typed)?;
    warn(&format!(
        "{} is {} (followed from {}): the only job of this project this machine knows that starts with it",
        crate::text::sanitize(typed),
        crate::text::sanitize(&id),
        crate::text::sanitize(&service)
    ));
    Some(id)
}

/// The job the user meant: a unique start of the id of a job the journal knows becomes
/// that id; text no known job starts with is passed on as typed (the job may have been
/// made elsewhere); text several jobs start with is refused, naming them.
pub(super) fn resolve_id(
    journal: Option<&Journal>,
    scope: &Scope,
    typed: &str,
) -> Result<String, CliError> {
    let typed = typed_id(typed)?;
    let Some(journal) = journal else {
        return Ok(typed.to_owned());
    };
    match journal.resolve_id(scope, typed) {
        Ok(IdMatch::Known(id)) => Ok(id),
        Ok(IdMatch::Unknown(id)) => Ok(elsewhere(journal, scope, &id).unwrap_or(id)),
        Ok(IdMatch::Ambiguous(ids)) => {
            let more = if ids.len() >= 6 { "\n  ..." } else { "" };
            let ids: Vec<String> = ids.iter().map(|id| crate::text::sanitize(id)).collect();
            Err(CliError::usage(format!(
                "{} is the start of several jobs; type more of the id:\n  {}{more}",
                crate::text::sanitize(typed),
                ids.join("\n  ")
            )))
        }
        Err(err) => {
            warn(&format!(
                "the journal could not look up {}: {err}; using it as typed",
                crate::text::sanitize(typed)
            ));
            Ok(typed.to_owned())
        }
    }
}
