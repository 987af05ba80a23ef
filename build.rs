//! Names the commit docdeck is built from, for `docdeck --version`, as `DOCDECK_COMMIT`.
//! Asks git; outside a git checkout of this crate (a source tarball, a vendored copy) or
//! without git it says "unknown commit", and it never fails the build. Packagers who
//! build from a tarball can set `DOCDECK_BUILD_COMMIT`.
//!
//! Rebuilds stay cheap: this reruns only when HEAD moves (the HEAD file, the ref it points
//! at, or packed-refs), not on every source change.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DOCDECK_BUILD_COMMIT");
    let given = std::env::var("DOCDECK_BUILD_COMMIT")
        .ok()
        .filter(|commit| !commit.trim().is_empty());
    let commit = match given {
        Some(commit) => format!("commit {}", commit.trim()),
        None => from_git().unwrap_or_else(|| "unknown commit".to_owned()),
    };
    println!("cargo:rustc-env=DOCDECK_COMMIT={commit}");
}

/// `commit <short hash>`, when this crate's folder is the top of a git work tree.
fn from_git() -> Option<String> {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    // A crate vendored inside another project's repository must not take its commit.
    let top = git(&manifest, &["rev-parse", "--show-toplevel"])?;
    if canonical(Path::new(&top)) != canonical(&manifest) {
        return None;
    }
    watch(&manifest);
    let hash = git(&manifest, &["rev-parse", "--short=12", "HEAD"])?;
    Some(format!("commit {hash}"))
}

/// Asks cargo to rerun when HEAD changes. A path that does not exist would make cargo
/// rerun on every build, so only existing files are named. In a linked worktree HEAD is in
/// its own git folder and branch refs in the common one.
fn watch(manifest: &Path) {
    let Some(git_dir) = git(manifest, &["rev-parse", "--absolute-git-dir"]) else {
        return;
    };
    let common = git(manifest, &["rev-parse", "--git-common-dir"])
        .map(|dir| manifest.join(dir))
        .unwrap_or_else(|| PathBuf::from(&git_dir));
    let git_dir = PathBuf::from(git_dir);
    let mut files = vec![git_dir.join("HEAD"), common.join("packed-refs")];
    if let Some(head_ref) = git(manifest, &["symbolic-ref", "-q", "HEAD"]) {
        files.push(git_dir.join(&head_ref));
        files.push(common.join(&head_ref));
    }
    for file in files {
        if file.is_file() {
            println!("cargo:rerun-if-changed={}", file.display());
        }
    }
}

/// One line of git's output, or `None` when git is missing or fails.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let line = text.lines().next()?.trim().to_owned();
    (!line.is_empty()).then_some(line)
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
