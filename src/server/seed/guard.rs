//! Real views and invented ones never share a project. An import claims its project for
//! real views before it writes one; a project the demo seed claimed refuses the import,
//! unless the import is told to delete the invented views first.

use rusqlite::Connection;
use thiserror::Error;

use super::pending_marker;
use crate::server::db::{StoreError, now_ms};
use crate::server::store::{Lite, Sql};

/// The `meta` key that marks a project as holding real views: the demo seed never goes
/// into it after that, even while the import has not yet written a view.
pub(crate) fn real_marker(project: &str) -> String {
    format!("real-views:{project}")
}

/// The `meta` key that marks a project as seeded by the demo.
pub(crate) fn seeded_marker(project: &str) -> String {
    format!("seeded:{project}")
}

/// Why real views cannot go into a project.
#[derive(Debug, Error)]
pub enum MixError {
    #[error(
        "project {project} holds {views} invented views from the demo seed (docdeck serve seeds a new project unless started with --seed none); real views are never mixed with them. Import into another project (--project NAME, and serve --project NAME), or add --discard-demo to delete the invented views first"
    )]
    Invented { project: String, views: String },
    #[error(
        "project {project} is being seeded by a running docdeck serve; wait until it says the demo data is written, then import with --discard-demo, or import into another project (--project NAME)"
    )]
    Seeding { project: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What [`claim_real`] did to make the project real.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Claimed {
    /// Invented views deleted (with `--discard-demo`).
    pub discarded: u64,
    /// Invented searches, feedback and assistant questions deleted with them.
    pub discarded_signals: u64,
}

/// Claims `project` for real views, in one transaction with the check, so a `serve`
/// starting beside the import cannot seed it in between. A seeded project is refused,
/// unless `discard` is set: then its invented views are deleted (its invented jobs stay,
/// they hold no numbers) and it is real from then on.
pub fn claim_real(
    conn: &mut Connection,
    project: &str,
    discard: bool,
) -> Result<Claimed, MixError> {
    let tx = crate::sqlite::write_transaction(conn).map_err(StoreError::from)?;
    let claimed = claim_in(&mut Lite(&tx), project, discard)?;
    tx.commit().map_err(StoreError::from)?;
    Ok(claimed)
}

/// [`claim_real`] inside the caller's transaction, on either store.
pub fn claim_in(sql: &mut dyn Sql, project: &str, discard: bool) -> Result<Claimed, MixError> {
    let seeded = marker_set(sql, &seeded_marker(project))?;
    let mut claimed = Claimed::default();
    if seeded {
        if marker_set(sql, &pending_marker(project))? {
            return Err(MixError::Seeding {
                project: project.to_owned(),
            });
        }
        let views = sql
            .one(
                "SELECT COUNT(*) FROM views WHERE project = $1",
                &[project.into()],
            )?
            .int(0)?;
        let views = u64::try_from(views).unwrap_or(0);
        if views > 0 && !discard {
            return Err(MixError::Invented {
                project: project.to_owned(),
                views: crate::text::thousands(views),
            });
        }
        sql.exec("DELETE FROM views WHERE project = $1", &[project.into()])?;
        for table in crate::server::signals::INVENTED_IN {
            let deleted = sql.exec(
                &format!("DELETE FROM {table} WHERE project = $1 AND invented = 1"),
                &[project.into()],
            )?;
            claimed.discarded_signals += deleted;
        }
        sql.exec(
            "DELETE FROM meta WHERE key = $1",
            &[seeded_marker(project).into()],
        )?;
        claimed.discarded = views;
    }
    sql.exec(
        "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        &[real_marker(project).into(), now_ms().to_string().into()],
    )?;
    Ok(claimed)
}

fn marker_set(sql: &mut dyn Sql, key: &str) -> Result<bool, StoreError> {
    Ok(sql
        .opt("SELECT 1 FROM meta WHERE key = $1", &[key.into()])?
        .is_some())
}
