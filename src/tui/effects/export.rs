//! The console's export: resolves the file the user typed (`~`, relative to the folder
//! docdeck runs in), never replaces a file unless that was confirmed, fetches every page,
//! and writes through a temporary file in the same folder. When the service stops paging
//! sensibly part-way, the rows fetched so far are kept in a file of their own.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use tokio::sync::mpsc::UnboundedSender;

use super::Services;
use crate::api::{ApiError, PathVisitors, VisitorsPage, VisitorsQuery};
use crate::export::{self as data, DataFormat};
use crate::tui::message::{ExportEnd, ExportError, Msg};

/// What the export is asked to do.
pub(super) struct Job {
    pub query: VisitorsQuery,
    pub format: DataFormat,
    pub path: PathBuf,
    pub overwrite: bool,
}

/// Runs one export to its end and says how it ended.
pub(super) async fn run(s: Services, tx: UnboundedSender<Msg>, job: Job) {
    let end = export(&s, &tx, job).await;
    let _ = tx.send(Msg::ExportDone(end));
}

async fn export(s: &Services, tx: &UnboundedSender<Msg>, job: Job) -> ExportEnd {
    let path = match resolve(&job.path) {
        Ok(path) => path,
        Err(reason) => return ExportEnd::Failed(reason),
    };
    if !job.overwrite && std::fs::symlink_metadata(&path).is_ok() {
        return ExportEnd::Exists(path);
    }
    // The rows are kept as they arrive, so a stop part-way loses none of them.
    let mut kept: Vec<PathVisitors> = Vec::new();
    let mut totals = None;
    let mut pages = 0u64;
    let fetched = s
        .client
        .visitors_all(&job.query, |page| {
            kept.extend(page.visitors.iter().cloned());
            totals.get_or_insert(page.totals);
            pages += 1;
            let _ = tx.send(Msg::ExportProgress {
                rows: kept.len() as u64,
                pages,
            });
        })
        .await;
    // Every request counts against the hour's analytics budget, the failed one too.
    let requests = u32::try_from(pages).unwrap_or(u32::MAX) + u32::from(fetched.is_err());
    for msg in s.counted(requests).await {
        let _ = tx.send(msg);
    }
    match fetched {
        Ok(all) => {
            let rows = all.visitors.len() as u64;
            match write(&path, &all, &job, None, job.overwrite).await {
                Ok(()) => ExportEnd::Written { path, rows },
                Err(reason) => ExportEnd::Failed(reason),
            }
        }
        Err(err) => stopped(err, kept, totals, &path, &job).await,
    }
}

/// Writes `text` (the whole range as read, `rows` of it) to the file typed: nothing is
/// fetched; an existing file is replaced only when that was confirmed.
pub(super) async fn whole(text: String, rows: u64, typed: &Path, overwrite: bool) -> ExportEnd {
    let path = match resolve(typed) {
        Ok(path) => path,
        Err(reason) => return ExportEnd::Failed(reason),
    };
    if !overwrite && std::fs::symlink_metadata(&path).is_ok() {
        return ExportEnd::Exists(path);
    }
    let target = path.clone();
    let written =
        tokio::task::spawn_blocking(move || write_file(&target, text.as_bytes(), overwrite))
            .await
            .map_err(|e| ExportError::Task(e.to_string()))
            .and_then(|written| written);
    match written {
        Ok(()) => ExportEnd::Written { path, rows },
        Err(reason) => ExportEnd::Failed(reason),
    }
}

/// The service failed or paged without end: keep what came, next to the file asked for.
async fn stopped(
    err: impl Into<ApiError>,
    rows: Vec<PathVisitors>,
    totals: Option<crate::api::VisitorTotals>,
    path: &Path,
    job: &Job,
) -> ExportEnd {
    let err: ApiError = err.into();
    let offset = match &err {
        ApiError::BrokenPaging { offset, .. } => *offset,
        _ => job.query.effective_offset() + rows.len() as u64,
    };
    let reason = err.to_string();
    let Some(totals) = totals.filter(|_| !rows.is_empty()) else {
        return ExportEnd::Failed(ExportError::Service(err));
    };
    let count = rows.len() as u64;
    let page = VisitorsPage {
        totals,
        visitors: rows,
        has_more: true,
    };
    let kept = incomplete_name(path);
    let stop = Some((offset, reason.as_str()));
    let kept = match write(&kept, &page, job, stop, true).await {
        Ok(()) => Some(kept),
        Err(_) => None,
    };
    ExportEnd::Stopped {
        offset,
        reason: err,
        rows: count,
        kept,
    }
}

/// `~` and `~/…` are the home folder; a relative path is under the current folder. The
/// result is absolute, so the user is told exactly where the file went.
pub(crate) fn resolve(typed: &Path) -> Result<PathBuf, ExportError> {
    let text = typed.to_string_lossy();
    let expanded = match text.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            let home = std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .ok_or(ExportError::NoHome)?;
            PathBuf::from(home).join(rest.trim_start_matches('/'))
        }
        _ => typed.to_owned(),
    };
    if expanded.is_absolute() {
        return Ok(expanded);
    }
    std::env::current_dir()
        .map(|dir| dir.join(&expanded))
        .map_err(|e| ExportError::NoCurrentFolder(e.to_string()))
}

/// `out.csv` → `out.incomplete.csv`: rows of an export that stopped part-way never go in
/// the file asked for, where they could pass for the whole range.
fn incomplete_name(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "export".into(), |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}.incomplete.{}", ext.to_string_lossy()),
        None => format!("{stem}.incomplete"),
    };
    path.with_file_name(name)
}

/// The file's text: CSV as the CLI writes it; JSON with the range and whether it is whole.
fn text(page: &VisitorsPage, job: &Job, stop: Option<(u64, &str)>) -> Result<String, ExportError> {
    if job.format == DataFormat::Csv {
        return data::visitors_csv(page).map_err(|e| ExportError::Encode(e.to_string()));
    }
    let side = |d: Option<crate::api::DateParam>| d.map(|d| d.to_string());
    let mut value = serde_json::json!({
        "dateFrom": side(job.query.date_from),
        "dateTo": side(job.query.date_to),
        "dateToExclusive": true,
        "complete": stop.is_none(),
        "totals": page.totals,
        "visitors": page.visitors,
    });
    if let (Some((offset, reason)), Some(object)) = (stop, value.as_object_mut()) {
        object.insert("stoppedAtOffset".into(), offset.into());
        object.insert("stopReason".into(), reason.into());
    }
    data::json_text(&value, true)
        .map(|t| t + "\n")
        .map_err(|e| ExportError::Encode(e.to_string()))
}

/// Writes through a temporary file in the same folder, then moves it into place: without
/// `replace`, a file that appeared meanwhile is never replaced.
async fn write(
    path: &Path,
    page: &VisitorsPage,
    job: &Job,
    stop: Option<(u64, &str)>,
    replace: bool,
) -> Result<(), ExportError> {
    let text = text(page, job, stop)?;
    let path = path.to_owned();
    tokio::task::spawn_blocking(move || write_file(&path, text.as_bytes(), replace))
        .await
        .map_err(|e| ExportError::Task(e.to_string()))?
}

fn write_file(path: &Path, bytes: &[u8], replace: bool) -> Result<(), ExportError> {
    let fail = |e: &dyn std::fmt::Display| ExportError::Write {
        path: path.to_owned(),
        reason: e.to_string(),
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    // 0666 less the umask, as any file the user makes: the temporary file's own 0600 is
    // for drafts, not for an export meant to be shared.
    let mut temp = tempfile::Builder::new()
        .prefix(".docdeck-export-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir.unwrap_or(Path::new(".")))
        .map_err(|e| fail(&e))?;
    temp.write_all(bytes).map_err(|e| fail(&e))?;
    let persisted = if replace {
        temp.persist(path).map(drop)
    } else {
        temp.persist_noclobber(path).map(drop)
    };
    persisted.map_err(|e| fail(&e.error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn whole_text_is_written_and_an_existing_file_is_kept_unless_confirmed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("whole.csv");
        let end = whole("path\n/a\n".into(), 1, &path, false).await;
        assert!(matches!(end, ExportEnd::Written { rows: 1, .. }), "{end:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "path\n/a\n");
        let end = whole("other".into(), 1, &path, false).await;
        assert!(matches!(end, ExportEnd::Exists(_)), "{end:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "path\n/a\n");
        let end = whole("other".into(), 1, &path, true).await;
        assert!(matches!(end, ExportEnd::Written { .. }), "{end:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "other");
    }

    #[test]
    fn a_typed_path_becomes_absolute_with_the_home_folder_for_tilde() {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap();
        assert_eq!(resolve(Path::new("~/x.csv")).unwrap(), home.join("x.csv"));
        assert_eq!(resolve(Path::new("~")).unwrap(), home);
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(resolve(Path::new("out.csv")).unwrap(), cwd.join("out.csv"));
        assert_eq!(resolve(Path::new("~x/a")).unwrap(), cwd.join("~x/a"));
        assert_eq!(
            incomplete_name(Path::new("/t/out.csv")),
            PathBuf::from("/t/out.incomplete.csv")
        );
    }

    #[test]
    fn without_replace_a_file_that_exists_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        std::fs::write(&path, "mine").unwrap();
        assert!(write_file(&path, b"new", false).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
        write_file(&path, b"new", true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left behind");
    }
}
