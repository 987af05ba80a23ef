//! Support for the real-agent tests: a docs repository with a local bare repository as
//! its remote, agents as small POSIX sh scripts, and the service configured to run them.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use docdeck::server::ServeOptions;
use docdeck::server::agent::{Forge, GITHUB_API, RealAgentConfig};
use docdeck::server::db::DbLocation;

/// A repository on disk: a bare remote and a clone of it with one commit on `main`.
pub struct Repos {
    pub root: tempfile::TempDir,
}

impl Repos {
    /// `root/acme/docs.git` (the remote, its last two parts read as a GitHub owner and
    /// name) and `root/docs` (the clone the service works on).
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let remote = root.path().join("acme").join("docs.git");
        std::fs::create_dir_all(&remote).unwrap();
        git(&remote, &["init", "--quiet", "--bare", "-b", "main"]);
        let clone = root.path().join("docs");
        git(
            root.path(),
            &["clone", "--quiet", remote.to_str().unwrap(), "docs"],
        );
        std::fs::write(clone.join("intro.mdx"), "# Introduction\n\nWelcome.\n").unwrap();
        std::fs::write(clone.join("docs.json"), "{\"name\": \"Acme\"}\n").unwrap();
        git(&clone, &["add", "."]);
        git(&clone, &["commit", "--quiet", "-m", "First pages"]);
        git(&clone, &["push", "--quiet", "origin", "main"]);
        Self { root }
    }

    pub fn remote(&self) -> PathBuf {
        self.root.path().join("acme").join("docs.git")
    }

    pub fn clone_dir(&self) -> PathBuf {
        self.root.path().join("docs")
    }

    pub fn work_dir(&self) -> PathBuf {
        self.root.path().join("work")
    }

    /// A file for scripts to leave traces in.
    pub fn trace(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    /// Writes an executable `#!/bin/sh` script and returns its path.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.root.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// The real agent running `script` on the clone.
    pub fn config(&self, script: &Path) -> RealAgentConfig {
        RealAgentConfig {
            command: vec![script.to_string_lossy().into_owned()],
            repo: self.clone_dir().to_string_lossy().into_owned(),
            base_branch: None,
            push_remote: None,
            timeout: Duration::from_secs(30),
            max_agents: 2,
            agent_env: Vec::new(),
            forge: Forge::None,
            github_token: None,
            github_api: GITHUB_API.to_owned(),
            work_dir: self.work_dir(),
            launcher: None,
        }
    }
}

/// Service options with the test key and the real agent running `script`.
pub fn options(repos: &Repos, db: DbLocation, script: &Path) -> ServeOptions {
    let mut options = crate::common::options_on(&db);
    options.real_agent = Some(repos.config(script));
    options
}

/// Runs git with a fixed identity (the machine may have none) and returns its output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// docdeck's own clone of the repository (`agent/<hash>/clone`), under the data folder of
/// a `docdeck serve` run with `home` as its home.
pub fn docdeck_clone(home: &Path) -> PathBuf {
    fn find(dir: &Path) -> Option<PathBuf> {
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let path = entry.path();
            if !path.is_dir() {
                continue;
            }
            if path.file_name().is_some_and(|n| n == "clone") && path.join(".git").is_dir() {
                return Some(path);
            }
            if let Some(found) = find(&path) {
                return Some(found);
            }
        }
        None
    }
    find(home).expect("docdeck made its own clone")
}

/// Whether process `pid` still exists (a zombie counts as gone).
pub fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}
