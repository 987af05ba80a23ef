//! `docdeck serve`'s keys from the command line (issue 24): from the environment or a
//! private file rather than the process list, and `serve keys list|add|revoke` against a
//! running service. The keys stored, served and revoked are checked on both stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::Output;

use common::{DEADLINE, KEY, ServeProcess, cli_command, db_arg, docdeck_command, text};
use docdeck::server::db::DbLocation;

const VARIABLE: &str = "DOCDECK_SERVE_API_KEY";

/// `serve`'s flags for `db` (either store), unseeded, with fast turns.
fn serve_args(db: &DbLocation) -> Vec<String> {
    [
        "--db",
        &db_arg(db),
        "--seed",
        "none",
        "--agent-delay-ms",
        "20",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn create_with(home: &Path, base_url: &str, key: &str) -> Output {
    cli_command(home, base_url, key)
        .args(["jobs", "create", "Fix the typo"])
        .output()
        .unwrap()
}

/// `docdeck serve ARGS` that is expected to stop at once: its output.
fn serve_refused(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    docdeck_command(home)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn keys(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    docdeck_command(home)
        .args(["serve", "keys"])
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

on_both_stores_sync! {
    fn the_key_comes_from_the_environment_and_is_listed_by_its_prefix_only(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let args = serve_args(&db);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let service = ServeProcess::spawn_env(home.path(), &args, &[(VARIABLE, KEY)]);
        let out = create_with(home.path(), &service.base_url, KEY);
        assert!(out.status.success(), "{}", text(&out.stderr));
        drop(service);
        let listed = text(&keys(home.path(), &["list", "--db", &db_arg(&db)], &[]).stdout);
        assert!(listed.contains("mint_tes…"), "{listed}");
        assert!(
            !listed.contains(KEY),
            "the key itself is never listed: {listed}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_key_file_others_can_read_is_refused_with_the_chmod_to_run() {
    use std::os::unix::fs::PermissionsExt as _;
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("key");
    std::fs::write(&file, format!("{KEY}\n")).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let file_arg = file.to_str().unwrap();
    let out = serve_refused(
        home.path(),
        &["--db", ":memory:", "--api-key-file", file_arg],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("chmod 600 {file_arg}")),
        "{stderr}"
    );

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let db = DbLocation::File(home.path().join("service.sqlite"));
    let mut args = serve_args(&db);
    args.extend(["--api-key-file".to_owned(), file_arg.to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let service = ServeProcess::spawn(home.path(), &args);
    let out = create_with(home.path(), &service.base_url, KEY);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn the_key_on_the_command_line_still_works_with_a_warning_and_short_keys_are_warned_about() {
    let home = tempfile::tempdir().unwrap();
    let service = ServeProcess::spawn(
        home.path(),
        &[
            "--db",
            ":memory:",
            "--seed",
            "none",
            "--api-key",
            "short_key",
        ],
    );
    let out = create_with(home.path(), &service.base_url, "short_key");
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The warnings are wrapped at 78 columns: read them as words.
    let mut lines = Vec::new();
    let mut warnings = String::new();
    while !warnings.contains("characters long") {
        lines.push(service.stderr.recv_timeout(DEADLINE).expect("the warnings"));
        warnings = lines
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
    }
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{lines:#?}");
    assert!(warnings.contains("(ps)"), "{warnings}");
    assert!(warnings.contains(VARIABLE), "{warnings}");
    assert!(warnings.contains("9 characters long"), "{warnings}");
}

on_both_stores_sync! {
    fn keys_added_listed_and_revoked_while_the_service_runs(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let db_text = db_arg(&db);
        let db_arg = db_text.as_str();
        let added = keys(
            home.path(),
            &["add", "--db", db_arg, "--project", "demo"],
            &[],
        );
        assert!(added.status.success(), "{}", text(&added.stderr));
        let new_key = text(&added.stdout).trim().to_owned();
        assert!(
            new_key.starts_with("mint_") && new_key.len() == 37,
            "{new_key}"
        );
        let other = keys(
            home.path(),
            &["add", "--db", db_arg, "--project", "elsewhere"],
            &[(VARIABLE, "mint_elsewhere_0123456789")],
        );
        assert!(other.status.success(), "{}", text(&other.stderr));
        assert!(other.stdout.is_empty(), "a key given is not printed back");

        // The stored key is served without being given again; a key of another project
        // stops the start instead of being moved to this one.
        let refused = serve_refused(
            home.path(),
            &serve_args(&db)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            &[(VARIABLE, "mint_elsewhere_0123456789")],
        );
        assert_eq!(refused.status.code(), Some(1));
        assert!(text(&refused.stderr).contains("belongs to project elsewhere"));
        let args = serve_args(&db);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let service = ServeProcess::spawn(home.path(), &args);
        let out = create_with(home.path(), &service.base_url, &new_key);
        assert!(out.status.success(), "{}", text(&out.stderr));

        let listed = text(&keys(home.path(), &["list", "--db", db_arg], &[]).stdout);
        let lines: Vec<&str> = listed.lines().collect();
        assert_eq!(lines.len(), 3, "{listed}");
        assert!(lines[0].starts_with("ID  PREFIX"), "{listed}");
        assert!(
            lines[1].contains("demo") && lines[2].contains("elsewhere"),
            "{listed}"
        );
        assert!(!listed.contains(&new_key), "{listed}");

        let revoked = keys(home.path(), &["revoke", "--db", db_arg, "1"], &[]);
        assert!(revoked.status.success(), "{}", text(&revoked.stderr));
        let out = create_with(home.path(), &service.base_url, &new_key);
        assert_eq!(out.status.code(), Some(1));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("revoked"), "{stderr}");
        let listed = text(&keys(home.path(), &["list", "--db", db_arg], &[]).stdout);
        let lines: Vec<&str> = listed.lines().collect();
        assert!(
            lines[1].ends_with("UTC"),
            "revoked, with its time: {listed}"
        );
        assert!(lines[2].ends_with('-'), "never used nor revoked: {listed}");
    }
}

on_both_stores_sync! {
    fn a_revoked_key_given_again_at_start_stops_the_start(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let db_text = db_arg(&db);
        let db_arg = db_text.as_str();
        let env = [(VARIABLE, KEY)];
        assert!(
            keys(home.path(), &["add", "--db", db_arg], &env)
                .status
                .success()
        );
        assert!(
            keys(home.path(), &["revoke", "--db", db_arg, "mint_tes"], &[])
                .status
                .success()
        );
        let args = serve_args(&db);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let refused = serve_refused(home.path(), &args, &env);
        assert_eq!(refused.status.code(), Some(1));
        assert!(
            text(&refused.stderr).contains("was revoked"),
            "{}",
            text(&refused.stderr)
        );
    }
}
