//! What `serve`, `serve keys` and `import` share: the store `--db` (or
//! `DOCDECK_DATABASE_URL`, or the data folder's `service.sqlite`) names, and their
//! messages wrapped for an 80-column terminal.

use super::{CliError, default_service_db};
use crate::server::db::DbLocation;

/// The environment variable that gives the database when `--db` does not: a PostgreSQL
/// URL (its password kept out of `--help` and every message) or a SQLite path.
pub const DATABASE_VARIABLE: &str = "DOCDECK_DATABASE_URL";

/// `--db`, else `DOCDECK_DATABASE_URL`, else the data folder's `service.sqlite`.
pub(super) fn db_location(db: Option<&str>) -> Result<DbLocation, CliError> {
    if let Some(text) = db {
        return Ok(DbLocation::parse(text));
    }
    match std::env::var(DATABASE_VARIABLE) {
        Ok(text) if !text.trim().is_empty() => Ok(DbLocation::parse(text.trim())),
        _ => Ok(DbLocation::File(default_service_db()?)),
    }
}

/// Words in lines of at most 78 columns, the later ones indented, for an 80-column terminal.
pub(super) fn wrap(text: &str) -> String {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let Some(line) = lines.last_mut() else { break };
        if !line.trim().is_empty() && line.chars().count() + 1 + word.chars().count() > 78 {
            lines.push(format!("  {word}"));
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines.join("\n")
}
