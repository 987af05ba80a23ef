//! Imports on hostile ground: an input that pauses (a FIFO kept open) never holds the
//! database from the service, a line without end cannot fill memory, and a disk that
//! fills up is said as such by the import and answered 507 by the service. What an import
//! commits, and that it holds nothing while it waits, is checked on both stores; the full
//! disk is a SQLite file's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{db_arg, docdeck_command, text};
use docdeck::server::db::DbLocation;

const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

fn line(second: u32, path: &str) -> String {
    format!(
        "203.0.113.7 - - [20/Nov/2026:09:00:{second:02} +0000] \"GET {path} HTTP/1.1\" 200 10 \"-\" \"{CHROME}\"\n"
    )
}

/// Ends a child a failing test leaves running (a follower, an import waiting on a FIFO).
struct EndOnPanic(u32);

impl Drop for EndOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = Command::new("kill")
                .args(["-9", &self.0.to_string()])
                .status();
        }
    }
}

/// The views of `project` in `db` (either store), 0 before the import made its tables.
fn views_of(db: &DbLocation, project: &str) -> i64 {
    if let DbLocation::File(path) = db {
        let conn = rusqlite::Connection::open(path).unwrap();
        conn.busy_timeout(Duration::from_secs(5)).unwrap();
        return conn
            .query_row(
                "SELECT COUNT(*) FROM views WHERE project = ?1",
                [project],
                |r| r.get(0),
            )
            .unwrap_or(0);
    }
    // A plain client: docdeck's own store would make its tables (and take their lock) on
    // opening, beside the import's.
    let (url, project) = (db_arg(db), project.to_owned());
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let count = "SELECT COUNT(*) FROM views WHERE project = $1";
        // Before the import made its tables: none.
        client
            .query_one(count, &[&project])
            .map_or(0, |row| row.get::<_, i64>(0))
    })
    .join()
    .unwrap()
}

/// The views of the default project (`demo`) in `db`.
fn views(db: &DbLocation) -> i64 {
    views_of(db, "demo")
}

/// Fails unless another writer takes the whole of `db` at once (within half a second):
/// SQLite's write lock, or PostgreSQL's strongest lock on the views table (which waits for
/// any transaction that has touched it).
fn assert_free_for_a_writer(db: &DbLocation) {
    match db {
        DbLocation::File(path) => {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.busy_timeout(Duration::from_millis(500)).unwrap();
            conn.execute_batch("BEGIN IMMEDIATE; COMMIT;")
                .expect("the database is free while the import waits for input");
        }
        _ => {
            let url = db_arg(db);
            std::thread::spawn(move || {
                let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
                client
                    .batch_execute(
                        "SET lock_timeout = '500ms'; BEGIN; LOCK TABLE views IN ACCESS EXCLUSIVE MODE; COMMIT;",
                    )
                    .expect("the database is free while the import waits for input");
            })
            .join()
            .unwrap();
        }
    }
}

/// A new FIFO in `home`.
#[cfg(unix)]
fn fifo_in(home: &Path) -> std::path::PathBuf {
    let fifo = home.join("access.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    fifo
}

/// `docdeck import` of a new FIFO in `home`, started, and the FIFO opened for writing (which
/// waits for the import to open it for reading).
#[cfg(unix)]
fn import_from_fifo(home: &Path, db: &DbLocation) -> (std::process::Child, std::fs::File) {
    let fifo = fifo_in(home);
    let import = docdeck_command(home)
        .args(["import", "--db", &db_arg(db), "--format", "combined"])
        .arg(&fifo)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    (import, writer)
}

/// Waits (with a deadline) until `db` holds `n` views of `project`.
fn wait_for_views(db: &DbLocation, project: &str, n: i64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while views_of(db, project) < n {
        assert!(Instant::now() < deadline, "{n} views were not committed");
        std::thread::sleep(Duration::from_millis(20));
    }
}

on_both_stores_sync! {
    /// `import` of a FIFO whose writer pauses: what was read is committed before the import
    /// waits, and meanwhile another writer (the service) gets the database at once.
    #[cfg(unix)]
    fn an_import_waiting_on_a_fifo_holds_no_lock(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let (import, mut writer) = import_from_fifo(home.path(), &db);
        let _end = EndOnPanic(import.id());
        writer
            .write_all((line(1, "/a") + &line(2, "/b")).as_bytes())
            .unwrap();
        writer.flush().unwrap();
        wait_for_views(&db, "demo", 2);
        // The FIFO is still open and the import waits on it: a writer gets the lock at once.
        assert_free_for_a_writer(&db);
        writer.write_all(line(3, "/c").as_bytes()).unwrap();
        drop(writer);
        let out = import.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("read 3 lines: kept 3 views"),
            "{}",
            text(&out.stdout)
        );
        // Standard error is a pipe: no progress line is drawn into it.
        assert!(
            !text(&out.stderr).contains("lines/s"),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(views(&db), 3);
    }
}

/// On a terminal an import says how far it is while it reads (lines, views, rate), and
/// clears that line before its summary.
#[cfg(unix)]
#[test]
fn an_import_on_a_terminal_shows_its_progress_and_clears_it() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("service.sqlite");
    let fifo = fifo_in(home.path());
    let (db_arg, fifo_arg) = (
        db.to_str().unwrap().to_owned(),
        fifo.to_str().unwrap().to_owned(),
    );
    let args = ["import", "--db", &db_arg, "--format", "combined", &fifo_arg];
    let mut import = common::pty::Pty::spawn(tempfile::tempdir().unwrap(), &args, &[]);
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    writer
        .write_all((line(1, "/a") + &line(2, "/b")).as_bytes())
        .unwrap();
    writer.flush().unwrap();
    // The import waits on the FIFO with two lines read: its line says so.
    import.wait_for("the progress line", |screen| {
        screen.contains("read 2 lines · kept 2 views · ") && screen.contains(" lines/s")
    });
    writer.write_all(line(3, "/c").as_bytes()).unwrap();
    drop(writer);
    let status = import.wait_exit();
    assert!(status.success(), "{}", import.screen());
    let screen = import.screen();
    assert!(screen.contains("read 3 lines: kept 3 views"), "{screen}");
    assert!(
        !screen.contains("lines/s"),
        "the progress line was left:\n{screen}"
    );
}

on_both_stores_sync! {
    /// A line of 5 MiB (as `/dev/zero` gives) and a last line of 100 KiB are skipped and
    /// counted as too long; the lines around them count.
    fn a_line_over_64_kib_is_skipped_and_counted(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let log = home.path().join("access.log");
        let mut file = std::fs::File::create(&log).unwrap();
        file.write_all(line(1, "/a").as_bytes()).unwrap();
        file.write_all(&vec![0u8; 5 << 20]).unwrap();
        file.write_all(b"\n").unwrap();
        file.write_all(line(2, "/b").as_bytes()).unwrap();
        file.write_all(&vec![b'x'; 100 << 10]).unwrap();
        drop(file);
        for follow in [false, true] {
            // A project of each run's own, in the one database.
            let project = format!("follow-{follow}");
            let mut command = docdeck_command(home.path());
            command.args(["import", "--db", &db_arg(&db), "--format", "combined"]);
            command.args(["--project", &project]);
            if follow {
                command.arg("--follow");
            }
            let out = if follow {
                // Followed until its end is read, then stopped as Ctrl-C would.
                let child = command
                    .arg(&log)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                let _end = EndOnPanic(child.id());
                wait_for_views(&db, &project, 2);
                common::signal(child.id(), "-INT");
                child.wait_with_output().unwrap()
            } else {
                command.arg(&log).output().unwrap()
            };
            let stdout = text(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
            assert!(stdout.contains("kept 2 views"), "follow {follow}: {stdout}");
            // A follower waits for the end of the last line, which has none yet.
            let too_long = if follow { 1 } else { 2 };
            assert!(
                stdout.contains(&format!("lines over 64 KiB {too_long}")),
                "follow {follow}: {stdout}"
            );
        }
    }
}

on_both_stores_sync! {
    /// SIGTERM (as Ctrl-C) while an import waits on a FIFO that stays open: it stops at once,
    /// keeps what it read, says so, and exits 0.
    #[cfg(unix)]
    fn a_signal_stops_an_import_waiting_on_a_fifo_and_keeps_what_was_read(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let (import, mut writer) = import_from_fifo(home.path(), &db);
        let _end = EndOnPanic(import.id());
        writer.write_all(line(1, "/a").as_bytes()).unwrap();
        writer.flush().unwrap();
        wait_for_views(&db, "demo", 1);
        common::signal(import.id(), "-TERM");
        let out = import.wait_with_output().unwrap();
        drop(writer);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("read 1 line: kept 1 view"),
            "{}",
            text(&out.stdout)
        );
        assert!(
            text(&out.stderr).contains("stopped by a signal: what was read before it is kept"),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(views(&db), 1);
    }
}

/// A tmpfs of `size` mounted on a new folder, unmounted when dropped; `None` where this
/// process may not mount one (not root, or no `CAP_SYS_ADMIN`).
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> Option<Self> {
        let dir = tempfile::tempdir().ok()?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        mounted.then_some(Self { dir })
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // Lazily: a connection of the service may still be closing; the mount goes with it.
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

#[tokio::test]
async fn a_full_disk_stops_an_import_saying_so_and_the_service_answers_507() {
    let Some(disk) = SmallDisk::mount("1536k") else {
        eprintln!("cannot mount a small tmpfs here (needs root): skipped");
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("access.log");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&log).unwrap());
    for n in 0..60_000u32 {
        // A new page and a new visitor each line: the views fill the disk.
        writeln!(
            file,
            "203.0.{}.{} - - [20/Nov/2026:09:{:02}:{:02} +0000] \"GET /docs/page-{n} HTTP/1.1\" 200 10 \"-\" \"{CHROME}\"",
            n / 250 % 250,
            n % 250,
            n / 60 % 60,
            n % 60
        )
        .unwrap();
    }
    drop(file);
    let db = DbLocation::File(disk.dir.path().join("service.sqlite"));
    let out = docdeck_command(home.path())
        .args(["import", "--db", &db_arg(&db), "--format", "combined"])
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    assert!(said.contains("disk full: "), "{said}");
    // How much was committed before the disk filled depends on the machine's speed
    // (batches commit at most a second apart); the message says what is kept either way.
    let kept = views(&db);
    assert!(kept < 60_000, "{kept} views kept");
    if kept == 0 {
        assert!(said.contains("nothing of it had been committed"), "{said}");
    } else {
        assert!(
            said.contains(&format!(
                "the {} views committed before it are kept",
                thousands(kept)
            )),
            "the message gives the views kept ({kept}): {said}"
        );
    }

    let server = common::start(common::fast_options(db)).await;
    docdeck::api::client::install_crypto_provider();
    let http = reqwest::Client::new();
    let prompt = serde_json::json!({ "prompt": "y".repeat(900_000) }).to_string();
    let mut statuses = Vec::new();
    for _ in 0..3 {
        let answer = http
            .post(format!("{}/v2/agent/demo/job", server.base_url()))
            .bearer_auth(common::KEY)
            .header("content-type", "application/json")
            .body(prompt.clone())
            .send()
            .await
            .unwrap();
        let status = answer.status().as_u16();
        let body = answer.text().await.unwrap();
        if status == 507 {
            assert!(body.contains("disk is full"), "{body}");
        }
        statuses.push(status);
    }
    assert!(statuses.contains(&507), "{statuses:?}");
    assert!(!statuses.contains(&500), "never a bare 500: {statuses:?}");
    server.shutdown().await;
}

/// `n` with a comma between thousands, as the import writes it.
fn thousands(n: i64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
