//! The shell's conventions as a user meets them: `docdeck completions SHELL` (and bash
//! completing with it), `docdeck man`, and `--version` naming the commit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::{docdeck_command, text};

const COMMANDS: [&str; 11] = [
    "demo",
    "jobs",
    "visitors",
    "serve",
    "import",
    "classify",
    "doctor",
    "completions",
    "man",
    "create",
    "untrack",
];

#[test]
fn every_shell_gets_a_script_that_names_the_commands() {
    let home = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = docdeck_command(home.path())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        assert!(script.len() > 1000, "{shell}: {script}");
        for command in COMMANDS {
            assert!(script.contains(command), "{shell}: no {command}");
        }
    }
    let out = docdeck_command(home.path())
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("[possible values: bash, elvish, fish, powershell, zsh]"),
        "{}",
        text(&out.stderr)
    );
}

/// Sources the bash script in a bash without startup files and asks its completion
/// function what `docdeck <TAB>` and `docdeck jobs c<TAB>` offer.
#[test]
fn bash_completes_commands_with_the_script() {
    if Command::new("bash").arg("--version").output().is_err() {
        eprintln!("bash is not installed: skipped");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let out = docdeck_command(home.path())
        .args(["completions", "bash"])
        .output()
        .unwrap();
    let script = home.path().join("docdeck.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    let ask = r#"
        source "$1"
        complete -p docdeck >/dev/null || exit 9
        COMP_WORDS=(docdeck ""); COMP_CWORD=1; COMP_LINE="docdeck "; COMP_POINT=8
        _docdeck docdeck "" docdeck
        echo "top: ${COMPREPLY[*]}"
        COMP_WORDS=(docdeck jobs c); COMP_CWORD=2; COMP_LINE="docdeck jobs c"; COMP_POINT=14
        _docdeck docdeck c jobs
        echo "jobs c: ${COMPREPLY[*]}"
    "#;
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", ask, "bash"])
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let top = stdout.lines().next().unwrap();
    for command in ["demo", "jobs", "visitors", "doctor", "completions", "man"] {
        assert!(top.split(' ').any(|word| word == command), "{top}");
    }
    assert!(stdout.contains("jobs c: create\n"), "{stdout}");
}

#[test]
fn the_man_page_is_roff_with_every_command() {
    let home = tempfile::tempdir().unwrap();
    let out = docdeck_command(home.path()).arg("man").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    assert!(page.contains("\n.TH docdeck 1 "), "{}", &page[..200]);
    for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "CONNECTION"] {
        assert!(page.contains(&format!("\n.SH {section}\n")), "no {section}");
    }
    for command in [
        "DEMO",
        "JOBS",
        "JOBS CREATE",
        "JOBS MESSAGE",
        "JOBS GET",
        "JOBS LIST",
        "JOBS TRACK",
        "JOBS UNTRACK",
        "VISITORS",
        "SERVE",
        "IMPORT",
        "CLASSIFY",
        "DOCTOR",
        "COMPLETIONS",
        "MAN",
    ] {
        assert!(
            page.contains(&format!("\n.SH \"DOCDECK {command}\"\n")),
            "no section for docdeck {command}"
        );
    }
    // A flag of a nested command is documented in its section.
    let create = page.split(".SH \"DOCDECK JOBS CREATE\"").nth(1).unwrap();
    let create = create.split("\n.SH ").next().unwrap();
    assert!(create.contains("\\-\\-wait"), "{create}");
}

/// The page renders with the system's `man` (or groff) without warnings, when installed.
#[test]
fn man_renders_the_page() {
    let home = tempfile::tempdir().unwrap();
    let page = docdeck_command(home.path()).arg("man").output().unwrap();
    let path = home.path().join("docdeck.1");
    std::fs::write(&path, &page.stdout).unwrap();
    let Ok(out) = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(&path)
        .output()
    else {
        eprintln!("groff is not installed: skipped");
        return;
    };
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "groff warned");
}

#[test]
fn the_version_names_the_commit() {
    let home = tempfile::tempdir().unwrap();
    let out = docdeck_command(home.path())
        .arg("--version")
        .output()
        .unwrap();
    let version = text(&out.stdout);
    let expected = format!("docdeck {} (", env!("CARGO_PKG_VERSION"));
    assert!(version.starts_with(&expected), "{version}");
    // Built from a git checkout (as tests are), it is a hash; otherwise it says so.
    let inside = version
        .trim_end()
        .strip_prefix(&expected)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap();
    let is_hash = inside
        .strip_prefix("commit ")
        .is_some_and(|hash| hash.len() >= 7 && hash.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(is_hash || inside == "unknown commit", "{version}");
    // And it is the commit checked out, when git can say (and no packager named one).
    let head = Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| text(&out.stdout).trim().to_owned());
    if let (Some(head), None) = (head, option_env!("DOCDECK_BUILD_COMMIT")) {
        let hash = inside.strip_prefix("commit ").unwrap();
        assert!(head.starts_with(hash), "{version} is not HEAD {head}");
    }
}
