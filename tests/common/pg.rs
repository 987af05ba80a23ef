//! A throwaway PostgreSQL server for the tests that run the service on PostgreSQL: started
//! once per test binary from the machine's PostgreSQL binaries, as an unprivileged user
//! (PostgreSQL refuses to run as root), listening only on a Unix socket in a temp dir, with
//! a fresh database for each test. Where no PostgreSQL is installed the tests skip with a
//! message, except when `CI` or `DOCDECK_REQUIRE_PG=1` is set: there they fail.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The role the tests connect as (initdb's superuser).
const ROLE: &str = "docdeck";
/// The user PostgreSQL runs as when the tests run as root; `.ci/run` creates it. `nobody`
/// is used where it does not exist.
const RUN_AS: &str = "docdeck-pg";

/// The running server: where its socket is.
pub struct PgServer {
    socket_dir: PathBuf,
    /// Holds the wrapper's standard input: when this process ends the pipe closes and the
    /// wrapper stops PostgreSQL and removes its directory.
    _guard: Child,
}

static SERVER: OnceLock<Option<PgServer>> = OnceLock::new();
static NEXT_DB: AtomicUsize = AtomicUsize::new(0);

/// True where a missing PostgreSQL must fail the tests rather than skip them.
fn required() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
        || std::env::var("DOCDECK_REQUIRE_PG").is_ok_and(|v| v == "1")
}

/// The folder holding `initdb` and `postgres`: `DOCDECK_PG_BIN`, else the newest
/// `/usr/lib/postgresql/*/bin`, else `PATH`.
fn bin_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("DOCDECK_PG_BIN") {
        let dir = PathBuf::from(dir);
        return dir.join("initdb").exists().then_some(dir);
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    if let Some((_, bin)) = found.pop() {
        return Some(bin);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .find(|dir| dir.join("initdb").exists() && dir.join("postgres").exists())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// `uid:gid` of the unprivileged user to run PostgreSQL as.
fn run_as_ids() -> (String, String) {
    for user in [RUN_AS, "nobody"] {
        let uid = Command::new("id").args(["-u", user]).output();
        let gid = Command::new("id").args(["-g", user]).output();
        if let (Ok(uid), Ok(gid)) = (uid, gid)
            && uid.status.success()
            && gid.status.success()
        {
            return (
                String::from_utf8_lossy(&uid.stdout).trim().to_owned(),
                String::from_utf8_lossy(&gid.stdout).trim().to_owned(),
            );
        }
    }
    panic!(
        "no unprivileged user to run PostgreSQL as: create {RUN_AS} (useradd --system {RUN_AS})"
    );
}

/// `program` as a command that runs as the unprivileged user when this process is root.
fn as_pg_user(program: &Path, ids: Option<&(String, String)>) -> Command {
    match ids {
        Some((uid, gid)) => {
            let mut command = Command::new("setpriv");
            command
                .arg(format!("--reuid={uid}"))
                .arg(format!("--regid={gid}"))
                .arg("--clear-groups")
                .arg(program);
            command
        }
        None => Command::new(program),
    }
}

/// The PostgreSQL binaries' folder; `None` (after a printed message) where the tests skip.
fn installed() -> Option<PathBuf> {
    let found = bin_dir();
    if found.is_none() {
        let message = "no PostgreSQL installed (no initdb in DOCDECK_PG_BIN, /usr/lib/postgresql/*/bin or PATH): install postgresql-15 (apt-get install postgresql-15) to run the PostgreSQL tests";
        if required() {
            panic!("{message}; CI and DOCDECK_REQUIRE_PG=1 require them");
        }
        eprintln!("skipping: {message}");
    }
    found
}

fn start() -> Option<PgServer> {
    let bin = installed()?;
    let ids = is_root().then(run_as_ids);
    let (dir, data, socket_dir) = init_cluster(&bin, ids.as_ref());
    // A wrapper that runs PostgreSQL and, when its standard input closes (this test binary
    // ended, however) or it is told to stop, stops it at once (a fast shutdown) and
    // removes the directory.
    let postgres = bin.join("postgres");
    let mut server_cmd = vec![postgres.display().to_string()];
    if let Some((uid, gid)) = &ids {
        server_cmd = vec![
            "setpriv".to_owned(),
            format!("--reuid={uid}"),
            format!("--regid={gid}"),
            "--clear-groups".to_owned(),
            postgres.display().to_string(),
        ];
    }
    let script = r#"
"$@" >"$LOG" 2>&1 &
pid=$!
stop() { kill -INT "$pid" 2>/dev/null; wait "$pid"; rm -rf "$TOPDIR"; exit 0; }
trap stop INT TERM HUP
exec 3<&0
cat <&3 >/dev/null &
wait $!
stop
"#;
    let log = dir.join("postgres.log");
    let guard = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("pg-wrapper")
        .args(&server_cmd)
        .arg("-D")
        .arg(&data)
        .arg("-k")
        .arg(&socket_dir)
        .args(SERVER_SETTINGS)
        .env("LOG", &log)
        .env("TOPDIR", &dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the PostgreSQL wrapper starts");
    let server = PgServer {
        socket_dir,
        _guard: guard,
    };
    wait_until_up(&server.admin_url(), &log);
    Some(server)
}

/// The settings of a test server: a Unix socket only, and no waiting for the disk.
const SERVER_SETTINGS: [&str; 10] = [
    "-c",
    "listen_addresses=",
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "max_connections=200",
];

/// Waits until the server at `url` answers, at most 30 s (then fails with its log).
fn wait_until_up(url: &str, log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while postgres::Client::connect(url, postgres::NoTls).is_err() {
        if Instant::now() > deadline {
            let mut text = String::new();
            let _ = std::fs::File::open(log).and_then(|mut f| f.read_to_string(&mut text));
            panic!("PostgreSQL did not start within 30 s: {text}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A new database cluster in a temp dir owned by the user PostgreSQL runs as: the dir
/// (kept: whoever stops the server removes it), the data folder and the socket folder.
fn init_cluster(bin: &Path, ids: Option<&(String, String)>) -> (PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("docdeck-pg-")
        .tempdir()
        .expect("a temp dir for PostgreSQL")
        .keep();
    let data = dir.join("data");
    let socket_dir = dir.join("socket");
    std::fs::create_dir(&socket_dir).unwrap();
    if let Some((uid, gid)) = ids {
        let status = Command::new("chown")
            .args(["-R", &format!("{uid}:{gid}")])
            .arg(&dir)
            .status()
            .unwrap();
        assert!(status.success(), "chown of {} failed", dir.display());
    }
    let init = as_pg_user(&bin.join("initdb"), ids)
        .args(["-D"])
        .arg(&data)
        .args([
            "-U",
            ROLE,
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale=C",
        ])
        .stdout(Stdio::null())
        .output()
        .expect("initdb runs");
    assert!(
        init.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&init.stderr)
    );
    (dir, data, socket_dir)
}

impl PgServer {
    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        format!(
            "postgresql://{ROLE}@/{name}?host={}",
            self.socket_dir.display()
        )
    }

    fn admin_url(&self) -> String {
        self.url("postgres")
    }
}

/// The shared server, started on first use; `None` (after a printed message) where no
/// PostgreSQL is installed and none is required.
pub fn server() -> Option<&'static PgServer> {
    SERVER.get_or_init(start).as_ref()
}

/// A new, empty database on the shared server and its URL; `None` where the tests skip.
pub fn fresh_database() -> Option<String> {
    let server = server()?;
    let name = format!(
        "t_{}_{}",
        std::process::id(),
        NEXT_DB.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = postgres::Client::connect(&server.admin_url(), postgres::NoTls)
        .expect("connect to the test PostgreSQL");
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .expect("create a test database");
    Some(server.url(&name))
}

/// Skips the calling test (returns from it) where no PostgreSQL is available.
#[macro_export]
macro_rules! pg_or_skip {
    () => {
        match common::pg::fresh_database() {
            Some(url) => url,
            None => return,
        }
    };
}

/// [`fresh_database`] from async code (the client owns a runtime of its own, which must
/// not be started on an async thread).
pub async fn fresh_database_async() -> Option<String> {
    tokio::task::spawn_blocking(fresh_database)
        .await
        .expect("the PostgreSQL set-up thread")
}

/// [`pg_or_skip`] in an async test.
#[macro_export]
macro_rules! pg_or_skip_async {
    () => {
        match common::pg::fresh_database_async().await {
            Some(url) => url,
            None => return,
        }
    };
}

/// A PostgreSQL server of one test's own, which it may stop and start again on the same
/// data and socket (the shared server must stay up for the other tests of its binary):
/// started with `pg_ctl` as the unprivileged user; when this handle is dropped (or the
/// test binary ends, however) a wrapper stops it and removes its directory.
pub struct OwnServer {
    bin: PathBuf,
    ids: Option<(String, String)>,
    data: PathBuf,
    socket_dir: PathBuf,
    log: PathBuf,
    _guard: Child,
}

impl OwnServer {
    /// Starts a new server; `None` where the tests skip.
    pub fn start() -> Option<Self> {
        let bin = installed()?;
        let ids = is_root().then(run_as_ids);
        let (dir, data, socket_dir) = init_cluster(&bin, ids.as_ref());
        let log = dir.join("postgres.log");
        // Waits for its standard input to close, then stops whatever server runs on the
        // data folder at once and removes the directory.
        let pg_ctl = bin.join("pg_ctl");
        let mut stop = Vec::new();
        if let Some((uid, gid)) = &ids {
            stop.extend([
                "setpriv".to_owned(),
                format!("--reuid={uid}"),
                format!("--regid={gid}"),
                "--clear-groups".to_owned(),
            ]);
        }
        stop.push(pg_ctl.display().to_string());
        let guard = Command::new("sh")
            .arg("-c")
            .arg(r#"cat >/dev/null; "$@" stop -D "$DATA" -m immediate -w >/dev/null 2>&1; rm -rf "$TOPDIR""#)
            .arg("pg-own-wrapper")
            .args(&stop)
            .env("DATA", &data)
            .env("TOPDIR", &dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the PostgreSQL wrapper starts");
        let server = Self {
            bin,
            ids,
            data,
            socket_dir,
            log,
            _guard: guard,
        };
        server.resume();
        Some(server)
    }

    fn pg_ctl(&self) -> Command {
        let mut command = as_pg_user(&self.bin.join("pg_ctl"), self.ids.as_ref());
        command.arg("-D").arg(&self.data);
        command.stdin(Stdio::null()).stdout(Stdio::null());
        command
    }

    /// Starts the server (again), on the same socket, and waits until it answers.
    pub fn resume(&self) {
        let options = format!(
            "-k {} {}",
            self.socket_dir.display(),
            SERVER_SETTINGS.join(" ")
        );
        let started = self
            .pg_ctl()
            .arg("-l")
            .arg(&self.log)
            .args(["-o", options.as_str(), "-w", "start"])
            .output()
            .expect("pg_ctl runs");
        assert!(
            started.status.success(),
            "pg_ctl start failed: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        wait_until_up(&self.url("postgres"), &self.log);
    }

    /// Stops the server as an operator would (`pg_ctl stop -m fast`): connections are
    /// closed and new ones refused until [`OwnServer::resume`].
    pub fn stop(&self) {
        let stopped = self
            .pg_ctl()
            .args(["-m", "fast", "-w", "stop"])
            .output()
            .expect("pg_ctl runs");
        assert!(
            stopped.status.success(),
            "pg_ctl stop failed: {}",
            String::from_utf8_lossy(&stopped.stderr)
        );
    }

    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        format!(
            "postgresql://{ROLE}@/{name}?host={}",
            self.socket_dir.display()
        )
    }

    /// A new, empty database on this server and its URL.
    pub fn fresh_database(&self) -> String {
        let mut admin = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .expect("connect to the test's own PostgreSQL");
        admin
            .batch_execute("CREATE DATABASE own")
            .expect("create the test database");
        self.url("own")
    }
}

/// How many tables the database at `url` has, asked with a plain client (docdeck's own
/// store would make its tables on opening), on a thread of its own (the client owns a
/// runtime, which must not be started on an async thread).
pub fn tables_in(url: &str) -> i64 {
    let url = url.to_owned();
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls)
            .expect("connect to the test PostgreSQL");
        let tables = "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()";
        client.query_one(tables, &[]).unwrap().get::<_, i64>(0)
    })
    .join()
    .expect("the PostgreSQL thread")
}
