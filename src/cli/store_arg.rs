//! What `serve`, `serve keys` and `import` share: the store `--db` (or
//! `DOCDECK_DATABASE_URL`, or the data folder's `service.sqlite`) names, and their
//! messages wrapped for an 80-column terminal.

use super::{CliError, default_service_db};
use crate::server::db::DbLocation;

/// The environment variable that gives the database when `--db` does not: a PostgreSQL
/// URL (its password kept out of `--help` and every message) or a SQLite path.
pub const DATABASE_VARIABLE: &str = "DOCDECK_DATABASE_URL";

/// `--db`, else `DOCDECK_DATABASE_URL`, else the data folder's `service.sqlite`.
/// A file in a folder that does not exist is refused: a mistyped path would otherwise
/// make the folders and start an empty database.
pub(super) fn db_location(db: Option<&str>) -> Result<DbLocation, CliError> {
    if let Some(text) = db {
        return in_a_folder(DbLocation::parse(text), "--db");
    }
    match std::env::var(DATABASE_VARIABLE) {
        Ok(text) if !text.trim().is_empty() => {
            in_a_folder(DbLocation::parse(text.trim()), DATABASE_VARIABLE)
        }
        _ => Ok(DbLocation::File(default_service_db()?)),
    }
}

fn in_a_folder(location: DbLocation, from: &str) -> Result<DbLocation, CliError> {
    if let DbLocation::File(path) = &location
        && let Some(folder) = path.parent()
        && !folder.as_os_str().is_empty()
        && !folder.is_dir()
    {
        return Err(CliError::usage(format!(
            "{from} {}: the folder {} does not exist; check the path, or create the folder first",
            path.display(),
            folder.display()
        )));
    }
    Ok(location)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_in_a_folder_that_does_not_exist_is_refused() {
        // The trial of stop 33: a mistyped path made the folders and a new, seeded
        // database with a new key.
        let err = db_location(Some("/nonexistent/dir/x.sqlite")).unwrap_err();
        assert_eq!(err.code, 2);
        assert!(
            err.message
                .contains("the folder /nonexistent/dir does not exist"),
            "{}",
            err.message
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.sqlite");
        assert!(db_location(Some(file.to_str().unwrap())).is_ok());
        assert!(db_location(Some("x.sqlite")).is_ok(), "the current folder");
        assert!(db_location(Some(":memory:")).is_ok());
        assert!(db_location(Some("postgres://u@h/db")).is_ok());
    }
}
